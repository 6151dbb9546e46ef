"""Build an expensive test input once per test run, shared by every pytest-xdist worker.

A session fixture runs once per worker; with two workers a tiny model would be saved twice and a
snapshot recomputed twice. :func:`built_once` keeps what ``build`` writes in a folder of the run's
own temporary directory (the parent of every worker's ``basetemp``; without xdist, ``basetemp``
itself), under a file lock: the first worker builds, the others wait for it and reuse the folder.
``build(folder)`` returns a JSON value (paths as strings) that every worker gets back.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

DONE = "built.json"


def run_folder(factory: pytest.TempPathFactory) -> Path:
    """This run's temporary folder, the same for every xdist worker (and only this run's)."""
    base = factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def built_once(factory: pytest.TempPathFactory, name: str, build: Callable[[Path], Any]) -> Any:
    """``build(folder)``'s JSON value, ``folder`` built by the first worker that asks (see the module docstring)."""
    folder = run_folder(factory) / f"once-{name}"
    lock = run_folder(factory) / f"once-{name}.lock"
    with lock.open("w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            done = folder / DONE
            if done.is_file():
                return json.loads(done.read_text(encoding="utf-8"))
            shutil.rmtree(folder, ignore_errors=True)  # what a worker that failed to build left
            folder.mkdir(parents=True)
            value = build(folder)
            done.write_text(json.dumps(value), encoding="utf-8")  # last: a half-built folder is never reused
            return json.loads(done.read_text(encoding="utf-8"))
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
