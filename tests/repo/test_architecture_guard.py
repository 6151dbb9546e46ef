"""The architecture guard can fail: the repository's own import contracts (``pyproject.toml``,
``import-cycles.toml``), their package names swapped for a tiny synthetic tree's, pass on that tree
as written and break, one contract at a time, once a violation is planted (at module level, inside
a function, under ``TYPE_CHECKING``, relative). So do the plain rules of ``test_architecture.py``:
a cycle through a package's ``__init__``, an import by a literal name, module size, the doc table.
"""

from __future__ import annotations

import configparser
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.repo.test_architecture import (
    CONFIGS,
    MAX_LINES,
    REPO,
    literal_dynamic_imports,
    oversized,
    package_init_cycles,
    undocumented,
)

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10: the same parser, from PyPI (a dev dependency there)
    import tomli as tomllib

SYNTHETIC = {"vlc_harness": "synth_core", "vlc_harness_builtins": "synth_plugins", "vlc_leaderboard": "synth_board"}
"""The repository's root packages -> the synthetic tree's."""
TREE = {
    "synth_core/__init__.py": "",
    "synth_core/types.py": "",
    "synth_core/kit/__init__.py": "",
    "synth_core/kit/weights.py": "from synth_core import types\n",
    "synth_core/testing/__init__.py": "from synth_core.kit import weights\n",
    "synth_core/metrics/__init__.py": "from synth_core import types\n",
    "synth_core/store/__init__.py": "from synth_core import types\n",
    "synth_core/results/__init__.py": "from synth_core import metrics, store\n",
    "synth_core/run/__init__.py": "from synth_core.run import plan\n",
    "synth_core/run/plan.py": "from synth_core import types\n",
    "synth_plugins/__init__.py": "",
    "synth_plugins/models.py": "from synth_core.kit import weights\n",
    "synth_plugins/testing/__init__.py": "from synth_core import testing\nfrom synth_plugins import models\n",
    "synth_board/__init__.py": "",
    "synth_board/pages.py": "from synth_core import results\n",
}
"""What the contracts allow, in small: plugins use the kit, testing uses the kit, the board reads
results (which import the metric code and the store), test code imports production code."""
TYPE_CHECKING_ONLY = "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    {}\n"


def _synthetic(name: str) -> str:
    """A module name or expression of the repository in the synthetic tree."""
    root, dot, rest = name.partition(".")
    return SYNTHETIC.get(root, root) + dot + rest


def _ini_value(value: object) -> str:
    """A TOML value as import-linter's INI reader reads it back (a list: one item a line)."""
    if isinstance(value, list):
        return "".join(f"\n{_synthetic(str(v))}" for v in value)
    return _synthetic(str(value))


def synthetic_config(config: str, folder: Path) -> Path:
    """The repository's configuration ``config``, every package name swapped, as an INI file."""
    options = tomllib.loads((REPO / config).read_text(encoding="utf-8"))["tool"]["importlinter"]
    ini = configparser.ConfigParser()
    ini["importlinter"] = {k: _ini_value(v) for k, v in options.items() if k != "contracts"}
    for contract in options["contracts"]:
        ini[f"importlinter:contract:{contract['id']}"] = {k: _ini_value(v) for k, v in contract.items() if k != "id"}
    path = folder / f"{Path(config).stem}.ini"
    with path.open("w", encoding="utf-8") as f:
        ini.write(f)
    return path


class Synthetic:
    """The synthetic tree on ``sys.path``, with the repository's contracts for it."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.configs = {config: synthetic_config(config, root) for config in CONFIGS}

    def plant(self, rel: str, code: str) -> None:
        """Append ``code`` to the module at ``rel``."""
        path = self.root / rel
        path.write_text(path.read_text(encoding="utf-8") + "\n" + code + "\n", encoding="utf-8")

    def broken(self, config: str) -> set[str]:
        """The ids of the contracts of ``config`` that the tree breaks, each checked on its own."""
        from importlinter.application.use_cases import lint_imports
        from importlinter.configuration import configure

        configure()  # what the lint-imports command does first: the file reader, the graph builder
        path = str(self.configs[config])
        ids = [s.split(":")[-1] for s in _sections(self.configs[config]) if s.startswith("importlinter:contract:")]
        kept = {i: lint_imports(path, (i,), cache_dir=None, is_debug_mode=True, no_logo=True) for i in ids}
        return {i for i, ok in kept.items() if not ok}


def _sections(path: Path) -> list[str]:
    ini = configparser.ConfigParser()
    ini.read(path, encoding="utf-8")
    return ini.sections()


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Synthetic:
    for rel, code in TREE.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(code, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    return Synthetic(tmp_path)


def test_the_synthetic_tree_keeps_every_contract_and_rule(tree):
    assert tree.broken("pyproject.toml") == set()
    assert tree.broken("import-cycles.toml") == set()
    assert package_init_cycles(list(SYNTHETIC.values())) == []
    assert literal_dynamic_imports(tree.root, {p: p for p in SYNTHETIC.values()}) == []


def test_the_contracts_are_the_repositorys(tree):
    ids = {s.split(":")[-1] for path in tree.configs.values() for s in _sections(path) if ":contract:" in s}
    assert ids == {"core-alone", "kit-for-plugins", "plugins-apart", "board-reads-results", "no-test-code", "no-cycles"}


@pytest.mark.parametrize(
    ("module", "planted", "contract"),
    [
        ("synth_core/run/plan.py", "import synth_board.pages", "core-alone"),
        ("synth_core/run/plan.py", "def planted():\n    from synth_plugins import models", "core-alone"),
        ("synth_core/run/plan.py", TYPE_CHECKING_ONLY.format("from synth_board.pages import X"), "core-alone"),
        ("synth_core/run/plan.py", "def planted():\n    from ..kit import weights", "kit-for-plugins"),
        ("synth_core/store/__init__.py", "from .. import kit", "kit-for-plugins"),
        ("synth_core/types.py", TYPE_CHECKING_ONLY.format("from synth_core.kit.weights import W"), "kit-for-plugins"),
        ("synth_plugins/models.py", "def planted():\n    import synth_board.pages", "plugins-apart"),
        ("synth_board/pages.py", "from synth_core.store import Store", "board-reads-results"),
        ("synth_board/pages.py", "def planted():\n    import synth_core.metrics as m", "board-reads-results"),
        ("synth_board/pages.py", TYPE_CHECKING_ONLY.format("from synth_core.store import S"), "board-reads-results"),
        ("synth_board/pages.py", "def planted():\n    from synth_core import testing", "no-test-code"),
        ("synth_plugins/models.py", TYPE_CHECKING_ONLY.format("import synth_plugins.testing"), "no-test-code"),
    ],
)
def test_a_planted_violation_breaks_its_contract_and_only_it(tree, module, planted, contract):
    tree.plant(module, planted)
    assert tree.broken("pyproject.toml") == {contract}


@pytest.mark.parametrize(
    ("module", "planted"),
    [
        ("synth_core/types.py", "def planted():\n    from synth_core.run import plan"),
        ("synth_core/metrics/__init__.py", "def planted():\n    from synth_core import results"),
        ("synth_plugins/models.py", "def planted():\n    from synth_plugins import testing"),
    ],
    ids=["modules", "subpackages", "plugins"],
)
def test_a_planted_cycle_breaks_the_cycle_contract(tree, module, planted):
    tree.plant(module, planted)
    assert tree.broken("import-cycles.toml") == {"no-cycles"}


def test_a_cycle_under_type_checking_is_no_cycle(tree):
    tree.plant("synth_core/types.py", TYPE_CHECKING_ONLY.format("from synth_core.run.plan import P"))
    assert tree.broken("import-cycles.toml") == set()


def test_a_cycle_through_a_package_init_is_found_by_the_plain_rule(tree):
    tree.plant("synth_core/run/plan.py", "def planted():\n    from synth_core import run")
    assert tree.broken("import-cycles.toml") == set()  # what import-linter cannot see
    assert package_init_cycles(list(SYNTHETIC.values())) == ["synth_core.run -> synth_core.run.plan -> synth_core.run"]


@pytest.mark.parametrize("call", ["importlib.import_module('synth_board.pages')", "__import__('synth_board')"])
def test_an_import_by_a_literal_name_is_found_by_the_plain_rule(tree, call):
    tree.plant("synth_core/types.py", f"import importlib\n\ndef planted():\n    return {call}")
    assert tree.broken("pyproject.toml") == set()  # what import-linter cannot see
    assert literal_dynamic_imports(tree.root, {p: p for p in SYNTHETIC.values()}) == [f"synth_core.types:5 {call}"]


# -- module size and the doc table, on a tree of the repository's folder names ----------------------------


@pytest.fixture
def folders(tmp_path: Path) -> Path:
    """``harness/``, ``plugins/``, ``leaderboard/`` with one small module each, and the doc naming them."""
    for rel in ("harness/hashing.py", "plugins/benchmarks/coco.py", "leaderboard/fmt.py"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text('"""A module."""\n', encoding="utf-8")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "architecture.md").write_text("`vlc_harness.hashing`, `vlc_leaderboard.fmt`\n")
    assert oversized(tmp_path, {}) == [] and undocumented(tmp_path) == []
    return tmp_path


def _lines(n: int) -> str:
    return "\n".join(f"PLANTED_{k} = {k}" for k in range(n))


def _planted(check: Callable[[Path], list[str]], root: Path, plant: Callable[[], object]) -> list[str]:
    before = check(root)
    plant()
    return [p for p in check(root) if p not in before]


@pytest.mark.parametrize("module", ["leaderboard/fmt.py", "harness/hashing.py", "plugins/benchmarks/coco.py"])
def test_an_oversized_module_fails(folders, module):
    (folders / module).write_text(_lines(MAX_LINES + 1), encoding="utf-8")
    assert oversized(folders, {}) == [f"{module} has {MAX_LINES + 1} non-blank lines (at most {MAX_LINES})"]


PLANTED = "plugins/benchmarks/coco.py"
CEILING = MAX_LINES + 20


def _allowed() -> dict[str, tuple[int, str]]:
    return {PLANTED: (CEILING, "planted")}


def test_an_allowlisted_module_up_to_its_ceiling_passes_and_past_it_fails(folders):
    (folders / PLANTED).write_text(_lines(CEILING), encoding="utf-8")
    assert oversized(folders, _allowed()) == []
    (folders / PLANTED).write_text(_lines(CEILING + 1), encoding="utf-8")
    assert oversized(folders, _allowed()) == [
        f"{PLANTED} has {CEILING + 1} non-blank lines, over its allowlisted ceiling {CEILING} (the list only shrinks)"
    ]


def test_an_allowlisted_module_that_shrank_or_went_must_leave_the_list(folders):
    (folders / PLANTED).write_text(_lines(MAX_LINES), encoding="utf-8")
    assert oversized(folders, _allowed()) == [
        f"{PLANTED} has {MAX_LINES} non-blank lines: take it off the oversized allowlist"
    ]
    (folders / PLANTED).unlink()
    assert oversized(folders, _allowed()) == [f"{PLANTED} is allowlisted but does not exist"]


def test_the_board_and_the_core_cannot_be_allowlisted(folders):
    for rel in ("leaderboard/fmt.py", "harness/hashing.py"):
        (folders / rel).write_text(_lines(MAX_LINES + 1), encoding="utf-8")
        assert f"{rel}: only plugin modules may be allowlisted" in oversized(folders, {rel: (MAX_LINES + 1, "x")})


def test_a_module_the_doc_does_not_name_fails(folders):
    def plant() -> None:
        (folders / "leaderboard" / "planted.py").write_text('"""Planted."""\n', encoding="utf-8")
        (folders / "harness" / "run").mkdir()
        (folders / "harness" / "run" / "planted.py").write_text('"""Planted."""\n', encoding="utf-8")
        (folders / "plugins" / "planted.py").write_text('"""Plugins need no row."""\n', encoding="utf-8")

    assert sorted(_planted(undocumented, folders, plant)) == ["vlc_harness.run.planted", "vlc_leaderboard.planted"]
