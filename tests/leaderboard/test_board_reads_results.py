"""The board reads stored results and never runs the metric engine.

Every module of ``leaderboard/`` reads cells, values, replicates, outcomes and verdicts through the
results API (:mod:`vlc_harness.results`). That it imports neither ``vlc_harness.metrics`` nor
``vlc_harness.store`` (at any depth: inside functions, under ``TYPE_CHECKING``, relative) is an
import contract (``board-reads-results`` in pyproject.toml, run by ``tests/repo/test_architecture.py``).
What import-linter cannot see is checked here: a name the ``vlc_harness`` package loads lazily from
them (``from vlc_harness import Macro``), and calls: none calls a benchmark's ``compute``, its
metric families or the engine's functions, and none calls a store's read or write methods itself.
Each rule is a function of a root folder, so the last tests plant violations in a copy of the board
and see them fail.
"""

from __future__ import annotations

import ast
import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
FORBIDDEN_PACKAGES = ("vlc_harness.metrics", "vlc_harness.store")
"""The engine's metric code and the store's own classes: the board reaches them only through the results API."""
ENGINE_CALLS = frozenset(
    {
        "compute",
        "compute_choices",
        "metric_families",
        "families_for",
        "columns_for",
        "compute_values",
        "cell_metrics",
        "outcome_arrays",
        "rebuild_cells",
    }
)
"""Calls that compute metrics (a benchmark's, the families', the engine's), by any receiver or none."""
STORE_CALLS = frozenset(
    {
        "latest_cells",
        "outcomes",
        "run_provenance",
        "stored_cell",
        "model_cells",
        "scores_for",
        "text_scores_for",
        "stored_answers",
        "stored_pairs",
        "abstained_pairs",
        "save_cell",
        "update_metrics",
        "add_scores",
        "add_answers",
        "forget",
        "start_run",
        "finish_run",
        "register_model",
    }
)
"""A store's own read and write methods (called on an object): the board reads through ``StoredResults``."""


def board_modules(root: Path) -> dict[str, Path]:
    """Every module under ``root/leaderboard``, by import name."""
    out = {}
    for path in sorted((root / "leaderboard").rglob("*.py")):
        parts = ("vlc_leaderboard", *path.relative_to(root / "leaderboard").with_suffix("").parts)
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


def exported_from() -> dict[str, str]:
    """Name -> module of what ``vlc_harness`` exports, read from the stub it loads them by
    (``harness/__init__.pyi``: ``from .models import Identity as Identity``)."""
    stub = ast.parse((REPO / "harness" / "__init__.pyi").read_text(encoding="utf-8"))
    return {a.name: f"vlc_harness.{n.module}" for n in stub.body if isinstance(n, ast.ImportFrom) for a in n.names}


def lazy_imports(root: Path) -> list[str]:
    """``module:line imports name (from module)`` for each board import of a name the ``vlc_harness``
    package loads from the metric code or the store (import-linter sees an import of ``vlc_harness``)."""
    exports = exported_from()
    found = []
    for module, path in board_modules(root).items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module == "vlc_harness" and not node.level:
                for alias in node.names:
                    source = exports.get(alias.name, "")
                    if any(source == p or source.startswith(p + ".") for p in FORBIDDEN_PACKAGES):
                        found.append(f"{module}:{node.lineno} imports {alias.name} (from {source})")
    return found


def _called(node: ast.Call) -> tuple[str, bool]:
    """The called name and whether it is called on an object (``x.name(...)``)."""
    if isinstance(node.func, ast.Attribute):
        return node.func.attr, True
    if isinstance(node.func, ast.Name):
        return node.func.id, False
    return "", False


def forbidden_calls(root: Path) -> list[str]:
    """``module:line calls name`` for each call that computes metrics or reads a store directly."""
    found = []
    for module, path in board_modules(root).items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            name, on_object = _called(node)
            if name in ENGINE_CALLS or (on_object and name in STORE_CALLS):
                found.append(f"{module}:{node.lineno} calls {name}")
    return found


# -- the rules on this checkout ----------------------------------------------------------------------


def test_the_board_imports_no_name_vlc_harness_loads_from_the_metric_code_or_the_store():
    found = lazy_imports(REPO)
    assert not found, found


def test_the_board_computes_no_metric_and_reads_the_store_only_through_the_results_api():
    found = forbidden_calls(REPO)
    assert not found, found


def test_the_rules_see_every_board_module():
    modules = board_modules(REPO)
    assert {"vlc_leaderboard.compare", "vlc_leaderboard.stats", "vlc_leaderboard.render"} <= set(modules)
    assert len(modules) == len(list((REPO / "leaderboard").rglob("*.py")))


# -- the rules fail on planted violations ------------------------------------------------------------


@pytest.fixture
def board(tmp_path: Path) -> Path:
    """A copy of the board's modules to plant violations in."""
    shutil.copytree(REPO / "leaderboard", tmp_path / "leaderboard", ignore=shutil.ignore_patterns("__pycache__"))
    assert lazy_imports(tmp_path) == [] and forbidden_calls(tmp_path) == []
    return tmp_path


def _plant(root: Path, module: str, code: str) -> None:
    path = root / "leaderboard" / f"{module}.py"
    path.write_text(path.read_text(encoding="utf-8") + "\n\n" + code + "\n", encoding="utf-8")


@pytest.mark.parametrize(
    "code, expected",
    [
        ("from vlc_harness import Macro", "planted:1 imports Macro (from vlc_harness.metrics.aggregate)"),
        (
            "def planted():\n    from vlc_harness import Column, StoredResults\n    return Column",
            "planted:2 imports Column (from vlc_harness.metrics.engine)",
        ),
    ],
)
def test_a_planted_import_of_a_lazy_name_from_the_engine_fails(board, code, expected):
    (board / "leaderboard" / "planted.py").write_text(code + "\n", encoding="utf-8")
    assert lazy_imports(board) == [f"vlc_leaderboard.{expected}"]


def test_a_lazy_name_from_the_results_api_is_allowed(board):
    _plant(board, "fmt", "from vlc_harness import StoredResults, hookimpl")
    assert lazy_imports(board) == []


@pytest.mark.parametrize(
    "code, expected",
    [
        ("def planted(bench, results):\n    return bench.compute(results)", "calls compute"),
        ("def planted(bench):\n    return list(bench.metric_families())", "calls metric_families"),
        ("def planted(bench, outcomes):\n    return columns_for(bench, outcomes, False)", "calls columns_for"),
        ("def planted(store):\n    return store.latest_cells(with_replicates=True)", "calls latest_cells"),
        ("def planted(store, cell):\n    return list(store.outcomes(cell.id))", "calls outcomes"),
        ("def planted(store, cell):\n    store.save_cell(cell, [])", "calls save_cell"),
    ],
)
def test_a_planted_metric_computation_or_store_read_fails(board, code, expected):
    _plant(board, "compare", code)
    found = forbidden_calls(board)
    assert len(found) == 1 and found[0].startswith("vlc_leaderboard.compare:") and found[0].endswith(expected), found
