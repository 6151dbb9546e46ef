"""A pytest plugin that fails the session when the tests left files or folders in the working tree.

Registered by ``tests/conftest.py`` for the repository root: the tree under the root (files and
folders, empty ones too, so a stray ``file:/tmp/...`` tree of folders counts) is listed when the
session starts and again when it finishes; anything new outside tolerated caches fails the session
and is named in the summary. ``.git`` and virtualenvs are not looked into.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

TOLERATED = frozenset({"__pycache__", ".pytest_cache", ".ruff_cache", ".mypy_cache", "build", "dist"})
"""Folder names the tests or the tools may create anywhere (caches, build output)."""
NOT_WALKED = frozenset({".git", ".venv", ".ci/venv"})
"""Paths (relative to the root) that are not the tests' to keep clean."""
SHOWN = 20


def tolerated(name: str) -> bool:
    """Whether a folder called ``name`` is a cache or build output, never a stray."""
    return name in TOLERATED or name.endswith(".egg-info")


def tree(root: Path) -> set[str]:
    """Every file and folder under ``root`` (relative, ``/``-separated), leaving out
    :data:`NOT_WALKED` and tolerated folders."""
    found: set[str] = set()
    for folder, dirs, files in os.walk(root):
        rel = Path(folder).relative_to(root).as_posix()
        prefix = "" if rel == "." else f"{rel}/"
        dirs[:] = [d for d in dirs if not tolerated(d) and f"{prefix}{d}" not in NOT_WALKED]
        found.update(f"{prefix}{name}" for name in dirs + files)
    return found


def stray_paths(before: set[str], after: set[str]) -> list[str]:
    """What is new in ``after``, each new folder named once instead of with everything in it."""
    new = sorted(after - before)
    tops: list[str] = []
    for path in new:
        if not any(path.startswith(f"{top}/") for top in tops):
            tops.append(path)
    return tops


class WorkingTreeCheck:
    """Fails a session that leaves new files or folders under ``root``."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.before: set[str] = set()
        self.strays: list[str] = []

    def pytest_sessionstart(self, session: pytest.Session) -> None:
        """List the tree before any test runs."""
        self.before = tree(self.root)

    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        """List it again; anything new fails the session."""
        self.strays = stray_paths(self.before, tree(self.root))
        if self.strays and exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        """Name what the tests left behind."""
        if not self.strays:
            return
        terminalreporter.section("working tree", red=True)
        terminalreporter.write_line(f"the tests left {len(self.strays)} new paths under {self.root}:", red=True)
        for path in self.strays[:SHOWN]:
            terminalreporter.write_line(f"  {path}")
        if len(self.strays) > SHOWN:
            terminalreporter.write_line(f"  ... and {len(self.strays) - SHOWN} more")
