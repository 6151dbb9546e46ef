"""The house stays easy to see. The layers are import contracts, run here by import-linter on the
installed packages: ``pyproject.toml``'s ``[tool.importlinter]`` (type-checking imports count) and
``import-cycles.toml`` (the run-time graph has no cycle). The plain rules below check what
import-linter cannot: a cycle through a package's own ``__init__``, imports by a literal name
(``importlib.import_module("...")``), module size, and the module table of ``docs/architecture.md``.

Each plain rule is a function of a root folder or of root packages, so ``test_architecture_guard.py``
can plant violations in a tiny synthetic tree and see every rule, and every contract kind, fail.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CONFIGS = ("pyproject.toml", "import-cycles.toml")
"""The import-linter configurations: one graph each (with type-checking imports, without)."""
FOLDERS = {"harness": "vlc_harness", "plugins": "vlc_harness_builtins", "leaderboard": "vlc_leaderboard"}
"""Folder -> import name (setuptools ``package-dir``)."""
DOCUMENTED = ("vlc_harness", "vlc_leaderboard")
"""Packages whose every module ``docs/architecture.md`` names."""
UNNAMED = ("vlc_harness", "vlc_harness.__main__", "vlc_leaderboard")
MAX_LINES = 300
OVERSIZED: dict[str, tuple[int, str]] = {}
"""Plugin modules over :data:`MAX_LINES` today, each with its count as a ceiling and why it may
wait. The list only shrinks: a listed file that grows past its ceiling fails, and so does one that
drops to :data:`MAX_LINES` or below (take it off) or no longer exists."""


def lint_imports(config: Path) -> subprocess.CompletedProcess[str]:
    """``lint-imports --no-cache --config CONFIG`` (what CI runs), on the packages this Python imports."""
    command = [str(Path(sys.executable).with_name("lint-imports")), "--no-cache", "--no-logo", "--config", str(config)]
    return subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=300)


def modules(root: Path, folders: Mapping[str, str] = FOLDERS) -> dict[str, Path]:
    """Every module under ``root``'s package folders, by import name (``vlc_harness.run.plan``)."""
    out = {}
    for folder, package in folders.items():
        for path in sorted((root / folder).rglob("*.py")):
            parts = (package, *path.relative_to(root / folder).with_suffix("").parts)
            out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


def package_init_cycles(roots: Sequence[str]) -> list[str]:
    """``package -> module -> package`` for each import cycle through a package's own module (its
    ``__init__``) and modules inside it, on the run-time graph of the importable packages ``roots``.

    import-linter's ``acyclic_siblings`` compares the children of a package, never the package
    itself, so it misses exactly these: a cycle whose members share no deeper package than one of
    them. Such a cycle enters that package from a module inside it."""
    import grimp

    graph = grimp.build_graph(*roots, exclude_type_checking_imports=True, cache_dir=None)
    return sorted(
        f"{package} -> {module} -> {package}"
        for module in graph.modules
        for package in graph.find_modules_directly_imported_by(module)
        if module.startswith(package + ".") and graph.chain_exists(importer=package, imported=module)
    )


def literal_dynamic_imports(root: Path, folders: Mapping[str, str] = FOLDERS) -> list[str]:
    """``module:line import_module('name')`` for each ``importlib.import_module`` or ``__import__``
    call with a literal name: an import that import-linter does not see."""
    found = []
    for name, path in modules(root, folders).items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
                func = ast.unparse(node.func)
                if func.endswith("import_module") or func == "__import__":
                    found.append(f"{name}:{node.lineno} {func}({node.args[0].value!r})")
    return found


def undocumented(root: Path) -> list[str]:
    """Modules of the core and the board that ``docs/architecture.md`` does not name."""
    doc = (root / "docs" / "architecture.md").read_text(encoding="utf-8")
    return [
        name
        for name in modules(root)
        if name.split(".")[0] in DOCUMENTED and name not in UNNAMED and f"`{name}`" not in doc
    ]


def non_blank_lines(path: Path) -> int:
    """A module's size: its non-blank lines."""
    return sum(1 for line in path.read_text(encoding="utf-8").splitlines() if line.strip())


def size_problem(root: Path, path: Path, allowed: dict[str, tuple[int, str]]) -> str:
    """Why ``path`` breaks the size rule (``""`` when it keeps it)."""
    rel = path.relative_to(root).as_posix()
    lines = non_blank_lines(path)
    if rel not in allowed:
        return f"{rel} has {lines} non-blank lines (at most {MAX_LINES})" if lines > MAX_LINES else ""
    ceiling, _ = allowed[rel]
    if lines > ceiling:
        return f"{rel} has {lines} non-blank lines, over its allowlisted ceiling {ceiling} (the list only shrinks)"
    if lines <= MAX_LINES:
        return f"{rel} has {lines} non-blank lines: take it off the oversized allowlist"
    return ""


def oversized(root: Path, allowed: dict[str, tuple[int, str]] = OVERSIZED) -> list[str]:
    """Every module over :data:`MAX_LINES` and not allowlisted, over its ceiling, or listed while small or
    gone; an allowlisted module outside ``plugins/`` (the core and the board get no exception)."""
    problems = [size_problem(root, path, allowed) for path in modules(root).values()]
    problems += [f"{rel} is allowlisted but does not exist" for rel in allowed if not (root / rel).is_file()]
    problems += [f"{rel}: only plugin modules may be allowlisted" for rel in allowed if not rel.startswith("plugins/")]
    return [p for p in problems if p]


MODULES = modules(REPO)


@pytest.mark.parametrize("config", CONFIGS)
def test_the_import_contracts_hold(config):
    out = lint_imports(REPO / config)
    assert out.returncode == 0, out.stdout[-6000:] + out.stderr[-3000:]
    assert " kept, 0 broken." in out.stdout, out.stdout[-3000:]


def test_no_import_cycle_runs_through_a_package_init():
    cycles = package_init_cycles(list(FOLDERS.values()))
    assert not cycles, cycles


def test_no_import_by_a_literal_name_hides_from_import_linter():
    found = literal_dynamic_imports(REPO)
    assert not found, f"write these as import statements (inside a function to keep them lazy): {found}"


def test_every_core_and_board_module_is_named_in_the_architecture_doc():
    missing = undocumented(REPO)
    assert not missing, f"docs/architecture.md does not name: {', '.join(missing)}"


@pytest.mark.parametrize("name", sorted(MODULES))
def test_every_module_is_small(name):
    problem = size_problem(REPO, MODULES[name], OVERSIZED)
    assert not problem, problem


def test_the_oversized_allowlist_only_shrinks():
    stale = [p for p in oversized(REPO) if "allowlist" in p]
    assert not stale, stale
    assert all(reason for _, reason in OVERSIZED.values())
