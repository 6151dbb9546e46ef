"""The suite's two tiers, and a guard that keeps them honest (registered by ``tests/conftest.py``).

The inner loop is ``pytest -m "not slow"``; the full suite runs everything. A test says why it
is slow with a marker (all registered in ``pyproject.toml``):

* ``e2e``: the installed program end to end; every test under ``tests/e2e/`` (added here).
* ``browser``: drives Chromium through selenium; every test that uses a ``browser`` fixture (added here).
* ``subprocess``: starts a Python interpreter, pip, PostgreSQL or the ``vlc-harness`` script
  (marked in the test file; added here to tests of the ``postgres_server`` and ``side_env`` fixtures).
* ``vlc_worker_process``: models run in worker processes (the shipped plugin's marker: ``vlc_run``
  then passes ``--executor local``); the tests about isolation.

Each of these implies ``slow`` (added at collection); so does reading ../shared/data's real files
(the ``shared_data`` fixture); a test that is long for another reason is marked ``slow`` itself.
The guard (:class:`ProcessGuard`) fails a test that starts one of the :data:`HEAVY` programs during
its setup or call without a marker that says so, naming what it started, so the inner loop cannot
silently grow a subprocess.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

REASONS = ("e2e", "browser", "subprocess", "vlc_worker_process")
"""The markers that say why a test is slow; each implies ``slow``."""
BY_FIXTURE = {"browser": "browser", "postgres_server": "subprocess", "side_env": "subprocess", "shared_data": "slow"}
"""A test that uses the fixture (directly or through another) gets the marker (``shared_data``: the real
files of ../shared/data, read in the full suite)."""
E2E = Path(__file__).resolve().parent / "e2e"
HEAVY = ("python", "vlc-harness", "pip", "chromedriver", "chromium", "initdb", "pg_ctl", "createdb", "ray")
"""Programs whose start costs a test seconds (by name, ``python3.11`` included)."""
WRAPPERS = frozenset({"runuser", "env", "sudo", "timeout", "nice"})
"""Programs that start another named later on their command line."""


def reason_marks(item: pytest.Item) -> list[str]:
    """The markers of :data:`REASONS` that ``item`` carries."""
    return [name for name in REASONS if item.get_closest_marker(name) is not None]


def mark_tiers(items: list[pytest.Item]) -> None:
    """Add ``e2e`` (by folder), the fixture markers (:data:`BY_FIXTURE`) and ``slow`` (to every test
    with a reason marker) at collection."""
    for item in items:
        if Path(str(item.path)).resolve().is_relative_to(E2E):
            item.add_marker("e2e")
        for fixture, marker in BY_FIXTURE.items():
            if fixture in getattr(item, "fixturenames", ()):
                item.add_marker(marker)
        if reason_marks(item) and item.get_closest_marker("slow") is None:
            item.add_marker("slow")


def _program(arg: Any) -> str:
    text = os.fsdecode(arg).strip()
    return os.path.basename(text.split()[0]) if text else ""


def heavy_program(args: Any) -> str | None:
    """The :data:`HEAVY` program a ``Popen`` argument list starts, if any (after one of :data:`WRAPPERS`,
    any program on its command line)."""
    argv = [args] if isinstance(args, (str, bytes, os.PathLike)) else list(args)
    names = [_program(argv[0])] if argv else []
    if names and names[0] in WRAPPERS:
        names = [_program(a) for a in argv[1:]]
    for name in names:
        if any(name == h or name.startswith(f"{h}3") or name.startswith(f"{h}-") for h in HEAVY):
            return name
    return None


class ProcessGuard:
    """Fails a test that starts a :data:`HEAVY` program in its setup or call without a reason marker."""

    def __init__(self) -> None:
        self.started: list[str] = []
        self._original: Any = None

    def pytest_sessionstart(self, session: pytest.Session) -> None:
        """Wrap ``subprocess.Popen._execute_child`` (where every ``Popen`` starts its process)."""
        original = self._original = subprocess.Popen._execute_child  # type: ignore[attr-defined]
        started = self.started

        def execute_child(popen: subprocess.Popen, args: Any, *rest: Any, **kwargs: Any) -> Any:
            name = heavy_program(args)
            if name:
                started.append(name)
            return original(popen, args, *rest, **kwargs)

        subprocess.Popen._execute_child = execute_child  # type: ignore[attr-defined]

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        """Put ``Popen`` back."""
        if self._original is not None:
            subprocess.Popen._execute_child = self._original  # type: ignore[attr-defined]

    @pytest.hookimpl(hookwrapper=True, tryfirst=True)
    def pytest_runtest_setup(self, item: pytest.Item) -> Iterator[None]:
        """Count from the start of the test's setup (its fixtures' processes are its own)."""
        self.started.clear()
        yield

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
        """After the call: fail a passing test that started a heavy program without a reason marker."""
        outcome = yield
        report = outcome.get_result()
        if call.when != "call" or not self.started or reason_marks(item) or not report.passed:
            return
        report.outcome = "failed"
        report.longrepr = (
            f"{item.nodeid} started {', '.join(sorted(set(self.started)))} without a marker saying so: mark it "
            f"{' or '.join(REASONS)} (tests/tiers.py), or keep it in this process (vlc_run runs models in-process)"
        )
