"""The house stays easy to see: every core and board module named in the docs, no import cycles,
modules small, and the core never imports a plugin, the board, or (outside kit and testing) the kit.

Each rule is a function of a root folder (a checkout: ``harness/``, ``plugins/``, ``leaderboard/``,
``docs/architecture.md``) returning what breaks it, so ``test_architecture_guard.py`` can plant
violations in a copy and see every rule fail.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PACKAGES = {"harness": "vlc_harness", "plugins": "vlc_harness_builtins", "leaderboard": "vlc_leaderboard"}
"""Folder -> import name (setuptools ``package-dir``)."""
CORE = "vlc_harness"
NOT_FOR_THE_CORE = ("vlc_harness_builtins", "vlc_leaderboard")
KIT = "vlc_harness.kit"
KIT_USERS = ("vlc_harness.kit", "vlc_harness.testing")
"""The only core modules that may import the kit (the shipped pytest plugin runs plugins)."""
DOCUMENTED = ("vlc_harness", "vlc_leaderboard")
"""Packages whose every module ``docs/architecture.md`` names."""
UNNAMED = ("vlc_harness", "vlc_harness.__main__", "vlc_leaderboard")
MAX_LINES = 300
OVERSIZED: dict[str, tuple[int, str]] = {}
"""Plugin modules over :data:`MAX_LINES` today, each with its count as a ceiling and why it may
wait. The list only shrinks: a listed file that grows past its ceiling fails, and so does one that
drops to :data:`MAX_LINES` or below (take it off) or no longer exists."""


def modules(root: Path) -> dict[str, Path]:
    """Every module under ``root``'s three package folders, by import name (``vlc_harness.run.plan``)."""
    out = {}
    for folder, package in PACKAGES.items():
        for path in sorted((root / folder).rglob("*.py")):
            parts = (package, *path.relative_to(root / folder).with_suffix("").parts)
            out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


def _typing_only(tree: ast.AST) -> set[int]:
    """Nodes under ``if TYPE_CHECKING:`` (by id): never run, so no edge of the import graph."""
    return {
        id(n)
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
        for n in ast.walk(node)
    }


def _package_of(name: str, path: Path) -> list[str]:
    """The package a module's relative imports start from, as parts."""
    parts = name.split(".")
    return parts if path.name == "__init__.py" else parts[:-1]


def imports(name: str, path: Path, known: dict[str, Path], typing: bool = False) -> set[str]:
    """What module ``name`` (at ``path``) imports, anywhere in the file (inside functions too), relative
    imports resolved, ``importlib.import_module("...")`` and ``__import__("...")`` with a literal name
    included; each as the deepest name in ``known`` it reaches, else as written. ``typing=True`` also
    counts imports under ``if TYPE_CHECKING:``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = set() if typing else _typing_only(tree)
    written: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Import):
            written.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                package = _package_of(name, path)
                base = ".".join([*package[: len(package) - node.level + 1], *([node.module] if node.module else [])])
            for a in node.names:
                full = f"{base}.{a.name}"
                written.add(full if full in known else base)
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            func = ast.unparse(node.func)
            if func.endswith("import_module") or func == "__import__":
                written.add(str(node.args[0].value))
    out = set()
    for module in written:
        parts = module.split(".")
        reached = next((".".join(parts[:k]) for k in range(len(parts), 0, -1) if ".".join(parts[:k]) in known), None)
        out.add(reached or module)
    return out


def undocumented(root: Path) -> list[str]:
    """Modules of the core and the board that ``docs/architecture.md`` does not name."""
    doc = (root / "docs" / "architecture.md").read_text(encoding="utf-8")
    return [
        name
        for name in modules(root)
        if name.split(".")[0] in DOCUMENTED and name not in UNNAMED and f"`{name}`" not in doc
    ]


def core_imports_outside(root: Path) -> list[str]:
    """``module imports name`` for every core module importing a plugin or the board (type checking too)."""
    known = modules(root)
    return [
        f"{name} imports {module}"
        for name, path in known.items()
        if name.split(".")[0] == CORE
        for module in sorted(imports(name, path, known, typing=True))
        if module.split(".")[0] in NOT_FOR_THE_CORE
    ]


def kit_imports(root: Path) -> list[str]:
    """``module imports name`` for every core module outside kit and testing importing the kit."""
    known = modules(root)
    return [
        f"{name} imports {module}"
        for name, path in known.items()
        if name.split(".")[0] == CORE and not name.startswith(KIT_USERS)
        for module in sorted(imports(name, path, known, typing=True))
        if module == KIT or module.startswith(KIT + ".")
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


def import_graph(root: Path) -> dict[str, list[str]]:
    """Module -> the modules of the three packages it imports (inside functions too; not under
    ``if TYPE_CHECKING:``)."""
    known = modules(root)
    return {
        name: sorted({m for m in imports(name, path, known) if m in known} - {name}) for name, path in known.items()
    }


def import_cycle(root: Path) -> list[str]:
    """The first import cycle among the three packages' modules (``[a, b, a]``), ``[]`` when none.

    Every import counts, inside functions too, except those under ``if TYPE_CHECKING:``."""
    graph = import_graph(root)
    state: dict[str, int] = {}  # 1: on the current path, 2: done

    def visit(node: str, path: list[str]) -> list[str]:
        state[node] = 1
        for nxt in graph[node]:
            if state.get(nxt) == 1:
                return path[path.index(nxt) :] + [nxt]
            if nxt not in state:
                found = visit(nxt, [*path, nxt])
                if found:
                    return found
        state[node] = 2
        return []

    for name in graph:
        if name not in state:
            found = visit(name, [name])
            if found:
                return found
    return []


MODULES = modules(REPO)


def test_every_core_and_board_module_is_named_in_the_architecture_doc():
    missing = undocumented(REPO)
    assert not missing, f"docs/architecture.md does not name: {', '.join(missing)}"


def test_there_is_no_import_cycle():
    cycle = import_cycle(REPO)
    assert not cycle, "import cycle: " + " -> ".join(cycle)


@pytest.mark.parametrize("name", sorted(MODULES))
def test_every_module_is_small(name):
    problem = size_problem(REPO, MODULES[name], OVERSIZED)
    assert not problem, problem


def test_the_oversized_allowlist_only_shrinks():
    stale = [p for p in oversized(REPO) if "allowlist" in p]
    assert not stale, stale
    assert all(reason for _, reason in OVERSIZED.values())


def test_the_core_imports_no_plugin_and_no_leaderboard():
    found = core_imports_outside(REPO)
    assert not found, found


def test_only_kit_and_testing_import_the_kit():
    found = kit_imports(REPO)
    assert not found, found
