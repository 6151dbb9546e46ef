"""The house stays easy to see: every module named in the docs, no import cycles, modules small,
and the core never imports the kit, the metrics' consumers or a plugin."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
HARNESS = REPO / "harness"
DOC = (REPO / "docs" / "architecture.md").read_text(encoding="utf-8")
MAX_LINES = 300


def _modules() -> dict[str, Path]:
    """Every module of the folder harness/, by import name (``vlc_harness...``)."""
    out = {}
    for path in sorted(HARNESS.rglob("*.py")):
        parts = ("vlc_harness", *path.relative_to(HARNESS).with_suffix("").parts)
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


MODULES = _modules()


def _imports(path: Path) -> set[str]:
    """Modules of ``harness`` (and other top-level packages) a file imports, outside TYPE_CHECKING."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    typing_only = {
        id(n)
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
        for n in ast.walk(node)
    }
    out = set()
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for a in node.names:
                full = f"{node.module}.{a.name}"
                out.add(full if full in MODULES else node.module)
    return out


def test_every_module_is_named_in_the_architecture_doc():
    missing = [
        name for name in MODULES if name not in ("vlc_harness", "vlc_harness.__main__") and f"`{name}`" not in DOC
    ]
    assert not missing, f"docs/architecture.md does not name: {', '.join(missing)}"


def test_there_is_no_import_cycle():
    graph = {name: {m for m in _imports(path) if m in MODULES} - {name} for name, path in MODULES.items()}
    seen: dict[str, int] = {}  # 1: on the current path, 2: done

    def visit(node: str, path: list[str]) -> None:
        seen[node] = 1
        for nxt in sorted(graph[node]):
            if seen.get(nxt) == 1:
                cycle = path[path.index(nxt) :] + [nxt]
                pytest.fail("import cycle: " + " -> ".join(cycle))
            if nxt not in seen:
                visit(nxt, [*path, nxt])
        seen[node] = 2

    for name in graph:
        if name not in seen:
            visit(name, [name])


@pytest.mark.parametrize("name", sorted(MODULES))
def test_every_module_is_small(name):
    lines = [line for line in MODULES[name].read_text(encoding="utf-8").splitlines() if line.strip()]
    assert len(lines) <= MAX_LINES, f"{name} has {len(lines)} non-blank lines (at most {MAX_LINES})"


def test_the_core_imports_no_plugin_no_leaderboard_and_no_kit():
    for name, path in MODULES.items():
        imported = _imports(path)
        assert not {m for m in imported if m.split(".")[0] in ("plugins", "leaderboard")}, name
        if not name.startswith(("vlc_harness.kit", "vlc_harness.testing")):
            assert not {m for m in imported if m.startswith("vlc_harness.kit")}, f"{name} imports the kit"
