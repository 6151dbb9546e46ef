"""The architecture guard can fail: each rule of ``test_architecture.py`` runs on a copy of the source
trees, passes as copied, and fails once a violation is planted (a forbidden import at module level
and inside a function, an oversized module, an import cycle, a stale allowlist entry)."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.harness.test_architecture import (
    MAX_LINES,
    REPO,
    core_imports_outside,
    import_cycle,
    kit_imports,
    oversized,
    undocumented,
)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A copy of ``harness/``, ``plugins/``, ``leaderboard/`` (their Python files) and the architecture doc."""
    root = tmp_path / "copy"
    for folder in ("harness", "plugins", "leaderboard"):
        shutil.copytree(
            REPO / folder,
            root / folder,
            ignore=lambda d, names: [n for n in names if not n.endswith(".py") and not Path(d, n).is_dir()],
        )
    (root / "docs").mkdir()
    shutil.copy(REPO / "docs" / "architecture.md", root / "docs")
    return root


def _append(path: Path, text: str) -> None:
    path.write_text(path.read_text(encoding="utf-8") + "\n\n" + text + "\n", encoding="utf-8")


def _lines(n: int) -> str:
    return "\n".join(f"PLANTED_{k} = {k}" for k in range(n))


def _planted(check: Callable[[Path], list[str]], tree: Path, plant: Callable[[], object]) -> list[str]:
    """What ``check`` finds after ``plant`` that it did not find before (the copy's own state aside)."""
    before = check(tree)
    plant()
    return [p for p in check(tree) if p not in before]


def test_the_copy_as_it_is_passes_every_rule(tree):
    assert core_imports_outside(tree) == []
    assert kit_imports(tree) == []
    assert oversized(tree) == []
    assert import_cycle(tree) == []
    assert undocumented(tree) == []


@pytest.mark.parametrize(
    ("planted", "found"),
    [
        ("import vlc_leaderboard.board", "vlc_harness.hashing imports vlc_leaderboard.board"),
        (
            "from vlc_harness_builtins.models import openclip",
            "vlc_harness.hashing imports vlc_harness_builtins.models.openclip",
        ),
        ("def planted():\n    from vlc_leaderboard import site", "vlc_harness.hashing imports vlc_leaderboard.site"),
        (
            "def planted():\n    import vlc_harness_builtins.benchmarks.sugarcrepe as s\n    return s",
            "vlc_harness.hashing imports vlc_harness_builtins.benchmarks.sugarcrepe",
        ),
        (
            "def planted():\n    import importlib\n    return importlib.import_module('vlc_leaderboard.render')",
            "vlc_harness.hashing imports vlc_leaderboard.render",
        ),
        (
            "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from vlc_leaderboard.board import Board",
            "vlc_harness.hashing imports vlc_leaderboard.board",
        ),
    ],
    ids=["module-level", "from-module-level", "in-function", "in-function-import", "import_module", "type-checking"],
)
def test_a_core_import_of_a_plugin_or_the_board_fails(tree, planted, found):
    assert _planted(core_imports_outside, tree, lambda: _append(tree / "harness" / "hashing.py", planted)) == [found]


def test_a_plugin_importing_the_board_is_no_core_violation(tree):
    plant = "def planted():\n    from vlc_leaderboard import fmt"
    assert (
        _planted(core_imports_outside, tree, lambda: _append(tree / "plugins" / "benchmarks" / "coco.py", plant)) == []
    )


@pytest.mark.parametrize(
    ("module", "planted", "found"),
    [
        (
            "run/plan.py",
            "def planted():\n    from ..kit import weights",
            "vlc_harness.run.plan imports vlc_harness.kit.weights",
        ),
        ("store/__init__.py", "from ..kit.precision import *", "vlc_harness.store imports vlc_harness.kit.precision"),
        ("verify.py", "from . import kit", "vlc_harness.verify imports vlc_harness.kit"),
    ],
    ids=["relative-in-function", "relative-from-package", "relative-package"],
)
def test_a_core_import_of_the_kit_fails_relative_imports_resolved(tree, module, planted, found):
    assert _planted(kit_imports, tree, lambda: _append(tree / "harness" / module, planted)) == [found]


@pytest.mark.parametrize("module", ["leaderboard/fmt.py", "harness/hashing.py", "plugins/benchmarks/coco.py"])
def test_an_oversized_module_fails(tree, module):
    found = _planted(oversized, tree, lambda: _append(tree / module, _lines(MAX_LINES)))
    assert len(found) == 1 and found[0].startswith(f"{module} has ") and found[0].endswith(f"(at most {MAX_LINES})")


PLANTED = "plugins/benchmarks/coco.py"
CEILING = MAX_LINES + 20


def _allowed() -> dict[str, tuple[int, str]]:
    return {PLANTED: (CEILING, "planted")}


def test_an_allowlisted_module_up_to_its_ceiling_passes_and_past_it_fails(tree):
    (tree / PLANTED).write_text(_lines(CEILING), encoding="utf-8")
    assert PLANTED not in " ".join(oversized(tree, _allowed()))
    (tree / PLANTED).write_text(_lines(CEILING + 1), encoding="utf-8")
    assert (
        f"{PLANTED} has {CEILING + 1} non-blank lines, over its allowlisted ceiling {CEILING} (the list only shrinks)"
        in (oversized(tree, _allowed()))
    )


def test_an_allowlisted_module_that_shrank_or_went_must_leave_the_list(tree):
    (tree / PLANTED).write_text(_lines(MAX_LINES), encoding="utf-8")
    assert f"{PLANTED} has {MAX_LINES} non-blank lines: take it off the oversized allowlist" in oversized(
        tree, _allowed()
    )
    (tree / PLANTED).unlink()
    assert f"{PLANTED} is allowlisted but does not exist" in oversized(tree, _allowed())


def test_the_board_and_the_core_cannot_be_allowlisted(tree):
    for rel in ("leaderboard/site.py", "harness/cli/__init__.py"):
        (tree / rel).write_text(_lines(MAX_LINES + 1), encoding="utf-8")
        assert f"{rel}: only plugin modules may be allowlisted" in oversized(tree, {rel: (MAX_LINES + 1, "planted")})


def test_an_import_cycle_through_a_function_fails(tree):
    _append(tree / "leaderboard" / "fmt.py", "def planted():\n    from vlc_leaderboard import site")
    cycle = import_cycle(tree)
    assert cycle[0] == cycle[-1] and {"vlc_leaderboard.fmt", "vlc_leaderboard.site"} <= set(cycle), cycle


def test_an_import_cycle_across_packages_fails(tree):
    _append(tree / "plugins" / "benchmarks" / "sugarcrepe.py", "from vlc_leaderboard import stats")
    _append(tree / "leaderboard" / "stats.py", "def planted():\n    import vlc_harness_builtins.benchmarks.sugarcrepe")
    cycle = import_cycle(tree)
    assert cycle[0] == cycle[-1] and {"vlc_harness_builtins.benchmarks.sugarcrepe", "vlc_leaderboard.stats"} <= set(
        cycle
    )


def test_a_relative_import_cycle_fails(tree):
    (tree / "harness" / "planted_a.py").write_text("from . import planted_b\n", encoding="utf-8")
    (tree / "harness" / "planted_b.py").write_text("from .planted_a import X\n", encoding="utf-8")
    assert import_cycle(tree) == ["vlc_harness.planted_a", "vlc_harness.planted_b", "vlc_harness.planted_a"]


def test_a_type_checking_import_makes_no_cycle(tree):
    plant = "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from vlc_leaderboard import site"
    _append(tree / "leaderboard" / "fmt.py", plant)
    assert import_cycle(tree) == []


def test_a_module_the_doc_does_not_name_fails(tree):
    def plant() -> None:
        (tree / "leaderboard" / "planted.py").write_text('"""Planted."""\n', encoding="utf-8")
        (tree / "harness" / "run" / "planted.py").write_text('"""Planted."""\n', encoding="utf-8")

    assert sorted(_planted(undocumented, tree, plant)) == ["vlc_harness.run.planted", "vlc_leaderboard.planted"]
