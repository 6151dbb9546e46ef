"""Which registry a command reads when not told: one rule for every command (``run``, ``plan``,
``show``, ``list``, ``instances``, ``data``, ``verify``, ``render``, ``cache``).

The registry files given (``--registry``, else ``$VLC_HARNESS_REGISTRY``); else the files the store's
newest run with cells recorded (:mod:`vlc_harness.store.registries`), while they are still there;
else ``./registry.yaml``; else none (every built-in type with its default params; ``run --all`` and
``plan --all`` refuse that). Whatever was not given is named on stderr, in one line. So after the
quickstart (``run --all --registry examples/quickstart.yaml``) every command reads the quickstart
grid, ``run --all --limit 20`` included, not the published one in the working directory.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from vlc_harness.errors import StoreError

if TYPE_CHECKING:
    from vlc_harness.registry import Registry
    from vlc_harness.store import Store

GIVEN = "given"
"""The files came from ``--registry`` or ``$VLC_HARNESS_REGISTRY``."""
RECORDED = "recorded"
"""The files the store's newest run with cells recorded."""
WORKING_DIR = "working directory"
"""``./registry.yaml``."""
BUILT_IN = "built-in"
"""No registry file: every built-in type with its default params."""


@dataclass(frozen=True)
class RegistryChoice:
    """The registry files a command reads, why (``source``: :data:`GIVEN`, :data:`RECORDED`,
    :data:`WORKING_DIR` or :data:`BUILT_IN`), and a one-line note for stderr where the choice
    needs saying."""

    files: tuple[Path, ...]
    source: str
    note: str | None = None


def given_registry_files(paths: tuple[str, ...]) -> list[Path]:
    """The files of ``--registry``, else of ``$VLC_HARNESS_REGISTRY`` (click reads the variable into
    the option: :class:`vlc_harness.cli.options.RegistryFiles`)."""
    return [Path(p) for p in paths]


def choose_registry(paths: tuple[str, ...], store: Store | None) -> RegistryChoice:
    """The registry files a command reading ``store`` (``None``: there is no store yet) uses."""
    given = given_registry_files(paths)
    if given:
        return RegistryChoice(tuple(given), GIVEN)
    uses = store.registries_used() if store is not None else []
    latest = uses[0] if uses else None
    if latest is not None and latest.present():
        files = tuple(Path(f.path) for f in latest.files)
        note = f"registry: {latest.label()} (what the store's latest run read; --registry overrides)"
        return RegistryChoice(files, RECORDED, note)
    gone = f"the store's latest run read {latest.label()}, which is not here; " if latest else ""
    if Path("registry.yaml").is_file():
        note = f"{gone}registry: ./registry.yaml (the working directory's; --registry overrides)"
        return RegistryChoice((Path("registry.yaml"),), WORKING_DIR, note)
    return RegistryChoice((), BUILT_IN, f"{gone}registry: none (the built-in types; --registry names one)")


def existing_store(url: str) -> Store | None:
    """The store at ``url`` when there is one to read, else ``None``: a SQLite file that does not
    exist yet is not created. A store that cannot be opened raises :class:`StoreError`."""
    from sqlalchemy.engine import make_url

    from vlc_harness.store import open_store
    from vlc_harness.store.location import sqlite_file

    try:
        parsed = make_url(url)
    except Exception:
        raise StoreError(f"{url!r} is not a SQLAlchemy URL", hint="e.g. sqlite:////path/store.sqlite") from None
    target = sqlite_file(parsed)
    if target is not None and (target.path is None or not target.path.is_file() or not target.path.stat().st_size):
        return None
    return open_store(url)


def other_registry_note(choice: RegistryChoice, registry: Registry, store: Store) -> str | None:
    """One line when ``store`` holds cells but none of them from the registry ``choice`` names:
    no run that recorded its registry read any of its files (by path or content), and no cell of a
    run that recorded none (inline specs, older runs) is one of its (model, benchmark) entries."""
    from vlc_harness.store.registries import registry_files

    if not choice.files:
        return None
    uses = store.registries_used()
    files = registry_files(choice.files)
    if any(use.shares_a_file(files) for use in uses):
        return None
    entries = store.unrecorded_cell_entries()
    if any(m in registry.models and b in registry.benchmarks for m, b in entries):
        return None
    if not uses and not entries:
        return None
    shown = " + ".join(str(p) for p in choice.files)
    where = store.engine.url.render_as_string(hide_password=True)
    if uses:
        return f"the store {where} holds no cells of {shown}: it was filled from {uses[0].label()} ({uses[0].option()})"
    return (
        f"the store {where} holds no cells of {shown}'s entries (its cells come from inline specs or another registry)"
    )
