"""The repository's generated files, and the one command that writes or checks them.

Each file is rebuilt from the code and the registry of the checkout, never edited by hand:
``vlc-harness dev generate`` rewrites them, ``--check`` (a test and CI's lint step run it) fails naming
each one that is stale. The built-in plugins are loaded alone (:func:`vlc_harness.plugins.load_plugins`
with ``only``): no environment variable, plugins folder or third-party package changes the output,
and a type whose package is missing still describes its params (``Registrar.unavailable`` with its
class), so what is generated does not depend on which optional packages are installed.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from vlc_harness.plugins import Plugins, load_plugins

COMMAND = "vlc-harness dev generate"
BUILTIN = ("builtin", "leaderboard")
"""The plugins (entry-point names) whose types the generated files describe: the repository's own."""


@dataclass(frozen=True)
class Generated:
    """One generated file: where it is in the checkout, what it holds, how its text is built."""

    path: str
    """Relative to the checkout, with ``/``."""
    what: str
    build: Callable[[Path, Plugins], str]
    """The file's whole text from the checkout (its current text, for a file only partly generated)."""


def _schema(root: Path, plugins: Plugins) -> str:
    from vlc_harness.registry_schema import schema_json

    return schema_json(plugins)


def _models_doc(root: Path, plugins: Plugins) -> str:
    from vlc_harness.models_table import model_entries, table, with_table

    doc = (root / "docs" / "models.md").read_text(encoding="utf-8")
    return with_table(doc, table(model_entries(root / "registry.yaml")))


def _render_lock(root: Path, plugins: Plugins) -> str:
    from vlc_harness.lockfile import core_lock

    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10 (tomli is a dependency there)
        import tomli as tomllib

    pyproject = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    return core_lock((root / "lock" / "nightly.txt").read_text(encoding="utf-8"), pyproject)


FILES = (
    Generated("registry.schema.json", "the registry's JSON Schema for the built-in types", _schema),
    Generated("docs/models.md", "the table of what each registry model entry reproduces", _models_doc),
    Generated(
        "lock/render.txt",
        "the nightly's render and deploy jobs' lock: lock/nightly.txt's pins the harness needs",
        _render_lock,
    ),
)
"""Every generated file of the repository."""


def checkout(root: Path) -> Path:
    """``root`` if it is a vlc-harness checkout (its ``pyproject.toml`` names the project and every
    generated file's folder is there); else ``ValueError`` saying what is missing."""
    pyproject = root / "pyproject.toml"
    if not pyproject.is_file() or 'name = "vlc-harness"' not in pyproject.read_text(encoding="utf-8"):
        raise ValueError(f"{root.resolve()} is not a vlc-harness checkout (no pyproject.toml naming vlc-harness)")
    for path in ("registry.yaml", *(f.path for f in FILES)):
        if not (root / path).is_file():
            raise ValueError(f"{root.resolve()}: {path} is missing")
    return root


def generate(root: Path, check: bool = False, plugins: Plugins | None = None) -> list[Generated]:
    """The generated files whose text differs from what the checkout builds: rewritten, or with ``check``
    only listed. ``plugins``: the built-in plugins alone unless given (tests)."""
    root = checkout(root)
    plugins = plugins if plugins is not None else load_plugins(only=BUILTIN)
    stale = []
    for item in FILES:
        path = root / item.path
        text = item.build(root, plugins)
        if path.read_text(encoding="utf-8") != text:
            stale.append(item)
            if not check:
                path.write_text(text, encoding="utf-8")
    return stale
