"""The working-tree check (tests/working_tree.py, registered by tests/conftest.py) fails a session
that leaves files behind, names them, and passes one that leaves none."""

from __future__ import annotations

import pytest

from tests.working_tree import WorkingTreeCheck, stray_paths, tree

pytest_plugins = ["pytester"]

PLANTS = """
from pathlib import Path

def test_plants_a_file():
    Path("stray.txt").write_text("left behind")

def test_plants_a_tree_of_empty_folders():
    Path("file:/tmp/pytest-of-someone").mkdir(parents=True)
"""

CLEAN = """
def test_writes_only_to_tmp(tmp_path):
    (tmp_path / "fine.txt").write_text("fine")
"""


def test_a_session_that_plants_files_fails_and_names_them(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_plant=PLANTS)
    result = pytester.runpytest(plugins=[WorkingTreeCheck(pytester.path)])
    result.assert_outcomes(passed=2)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["*the tests left 2 new paths under*", "  file:", "  stray.txt"])


def test_a_session_that_leaves_nothing_passes(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_clean=CLEAN)
    result = pytester.runpytest(plugins=[WorkingTreeCheck(pytester.path)])
    result.assert_outcomes(passed=1)
    assert result.ret == pytest.ExitCode.OK
    assert "working tree" not in result.stdout.str()


def test_caches_and_build_output_are_tolerated(tmp_path) -> None:
    before = tree(tmp_path)
    for folder in ("__pycache__", "pkg/__pycache__", ".pytest_cache", ".ruff_cache", "build", "x.egg-info"):
        (tmp_path / folder).mkdir(parents=True)
        (tmp_path / folder / "f").write_text("")
    (tmp_path / ".git" / "objects").mkdir(parents=True)
    assert stray_paths(before, tree(tmp_path)) == ["pkg"]  # the folder that holds the cache is new
