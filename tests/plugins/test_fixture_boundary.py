"""Test code stays out of production: no plugin or board module imports ``vlc_harness.testing`` or the
built-ins' testing package, at any depth (inside functions too); the plugins hold no import loop,
function-level imports counted; and the built-ins' conformance examples come from their testing
plugin, registered through the ``vlc_harness_testing`` entry point as a third party's would be.

Each rule is a function of a root folder, so the last tests plant violations in a copy and see
the rules fail.
"""

from __future__ import annotations

import ast
import importlib.metadata
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PACKAGES = {"plugins": "vlc_harness_builtins", "leaderboard": "vlc_leaderboard"}
"""Folder -> import name (setuptools ``package-dir``) of the production packages checked here."""
TESTING_PACKAGES = ("vlc_harness.testing", "vlc_harness_builtins.testing")
"""Test code: the shipped testing helpers and the built-ins' tiny checkpoints and example data."""
OWN_EXAMPLES = {"random", "shapes_clip", "t2v_metrics"}
"""Built-in model types whose example is on the class: params only, no files (``t2v_metrics``: none)."""


def package_modules(root: Path) -> dict[str, Path]:
    """Every module under ``root``'s plugin and board folders, by import name."""
    out = {}
    for folder, package in PACKAGES.items():
        for path in sorted((root / folder).rglob("*.py")):
            parts = (package, *path.relative_to(root / folder).with_suffix("").parts)
            out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


def is_testing(name: str) -> bool:
    """True for a module of a testing package (or the package itself)."""
    return any(name == t or name.startswith(t + ".") for t in TESTING_PACKAGES)


def _type_checking_only(tree: ast.AST) -> set[int]:
    """Nodes under ``if TYPE_CHECKING:`` (by id): never executed."""
    return {
        id(n)
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
        for n in ast.walk(node)
    }


def imported_names(name: str, path: Path, skip_type_checking: bool = True) -> set[str]:
    """Every module name ``name`` imports anywhere in its file (module level, functions, methods),
    each name of a ``from X import a`` as ``X.a`` too, relative imports resolved, and literal
    ``importlib.import_module("...")`` calls."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = _type_checking_only(tree) if skip_type_checking else set()
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    out: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join([*package[: len(package) - node.level + 1], *([base] if base else [])])
            out.add(base)
            out.update(f"{base}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            if ast.unparse(node.func).endswith("import_module"):
                out.add(str(node.args[0].value))
    return out


def imports_of_test_code(root: Path) -> list[str]:
    """``module imports name`` for each production module that imports test code (type-checking
    blocks included: production must not even name it)."""
    return [
        f"{name} imports {module}"
        for name, path in package_modules(root).items()
        if not is_testing(name)
        for module in sorted(imported_names(name, path, skip_type_checking=False))
        if is_testing(module)
    ]


def plugin_import_graph(root: Path) -> dict[str, set[str]]:
    """Plugin module -> the plugin modules it imports at run time (inside functions too)."""
    known = {n: p for n, p in package_modules(root).items() if n.startswith(PACKAGES["plugins"])}
    graph = {}
    for name, path in known.items():
        targets = set()
        for module in imported_names(name, path):
            parts = module.split(".")
            reached = next(
                (".".join(parts[:k]) for k in range(len(parts), 0, -1) if ".".join(parts[:k]) in known), None
            )
            if reached and reached != name and reached != PACKAGES["plugins"]:
                targets.add(reached)
        graph[name] = targets
    return graph


def import_loops(root: Path) -> list[list[str]]:
    """Every import loop among the plugin modules (each as ``[a, b, ..., a]``), none when clean."""
    graph = plugin_import_graph(root)
    loops, state = [], {}

    def visit(node: str, path: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                loops.append(path[path.index(nxt) :] + [nxt])
            elif nxt not in state:
                visit(nxt, [*path, nxt])
        state[node] = 2

    for name in sorted(graph):
        if name not in state:
            visit(name, [name])
    return loops


# -- the rules on this checkout ----------------------------------------------------------------------


def test_no_production_module_imports_test_code():
    found = imports_of_test_code(REPO)
    assert not found, found


def test_the_plugins_hold_no_import_loop_function_level_imports_counted():
    loops = import_loops(REPO)
    assert not loops, " ; ".join(" -> ".join(loop) for loop in loops)


def test_the_builtins_register_their_testing_plugin_through_the_entry_point():
    found = {ep.name: ep.value for ep in importlib.metadata.entry_points(group="vlc_harness_testing")}
    assert found.get("builtin") == "vlc_harness_builtins.testing.examples", found
    import vlc_harness_builtins

    assert vlc_harness_builtins.vlc_harness_plugins, "no built-in plugin module found"
    assert not [m for m in vlc_harness_builtins.vlc_harness_plugins if is_testing(m)]


def test_every_builtin_type_gets_its_example_from_the_testing_plugin(vlc_plugins):
    from vlc_harness_builtins.testing.examples import builtin_example

    for registrar in (vlc_plugins.models, vlc_plugins.benchmarks):
        for name, reg in registrar.entries.items():
            if not reg.cls.__module__.startswith("vlc_harness_builtins."):
                continue
            if name in OWN_EXAMPLES:
                assert "conformance_example" in vars(reg.cls), name
                assert builtin_example(reg.cls) is None, name
            else:
                found = builtin_example(reg.cls)
                assert found is not None and found[0] is reg.cls, name


def test_a_subclass_inherits_the_builtin_example_unless_it_has_its_own(tmp_path):
    from vlc_harness.testing.examples import example_for
    from vlc_harness_builtins.models.precomputed import Precomputed

    class Replay(Precomputed):
        """Inherits the example."""

    class Own(Precomputed):
        """Brings its own."""

        @classmethod
        def conformance_example(cls, tmp_path):
            return {"path": "own.jsonl"}

    assert example_for(Replay, tmp_path)["path"] == str(tmp_path / "precomputed_example.jsonl")
    assert example_for(Own, tmp_path) == {"path": "own.jsonl"}


@pytest.mark.subprocess
def test_a_run_never_imports_test_code():
    code = (
        "import sys\nfrom click.testing import CliRunner\nfrom vlc_harness.cli import build_cli\n"
        "r = CliRunner().invoke(build_cli(), ['plugins'])\nassert r.exit_code == 0, r.output\n"
        "from vlc_harness.plugins import get_plugins\n"
        "[e.cls for r in (get_plugins().models, get_plugins().benchmarks) for e in r.entries.values()]\n"
        f"print(','.join(sorted(m for m in sys.modules if m == 'pytest' or m.startswith({TESTING_PACKAGES!r}))))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "", f"listing the plugins imported {out.stdout.strip()}"


# -- the rules fail on planted violations ------------------------------------------------------------


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    """A copy of the production folders to plant violations in."""
    for folder in PACKAGES:
        shutil.copytree(REPO / folder, tmp_path / folder, ignore=shutil.ignore_patterns("__pycache__", "*.json"))
    return tmp_path


def test_a_function_level_import_of_test_code_is_found(checkout):
    assert imports_of_test_code(checkout) == []
    path = checkout / "plugins" / "models" / "random_baseline.py"
    path.write_text(path.read_text() + "\n\ndef _planted():\n    from vlc_harness.testing import require\n")
    bench = checkout / "plugins" / "benchmarks" / "coco.py"
    bench.write_text(
        bench.read_text() + "\n\nclass _P:\n    def m(self):\n        import vlc_harness_builtins.testing.tiny_hf\n"
    )
    board = checkout / "leaderboard" / "__init__.py"
    board.write_text(board.read_text() + "\n\ndef _planted():\n    from vlc_harness import testing\n")
    found = imports_of_test_code(checkout)
    assert "vlc_harness_builtins.models.random_baseline imports vlc_harness.testing" in found
    assert "vlc_harness_builtins.benchmarks.coco imports vlc_harness_builtins.testing.tiny_hf" in found
    assert "vlc_leaderboard imports vlc_harness.testing" in found


def test_a_loop_through_a_function_level_import_is_found(checkout):
    assert import_loops(checkout) == []
    path = checkout / "plugins" / "models" / "openclip_repos.py"
    path.write_text(
        path.read_text() + "\n\ndef _planted():\n    from vlc_harness_builtins.models.openclip import OpenClip\n"
    )
    loops = import_loops(checkout)
    assert ["vlc_harness_builtins.models.openclip", "vlc_harness_builtins.models.openclip_repos"] == sorted(
        set(loops[0])
    )
