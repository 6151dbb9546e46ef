"""Options and shared state of the command line, for every plugin that adds commands.

A plugin's ``register_commands`` hook adds click commands to the ``vlc-harness`` group; they take
the same ``--registry``, ``--store`` and ``--data-root`` options as the core verbs (click reads
``$VLC_HARNESS_REGISTRY``, ``$VLC_HARNESS_STORE`` and ``$VLC_HARNESS_DATA`` into them), and the
:class:`App` (plugins, registry, store) through :data:`pass_app`. This module is the public
surface for that, also importable as ``from vlc_harness.cli import App, pass_app, ...``.
``--data-root`` arrives resolved: a :class:`~pathlib.Path`, the default data root when not given
(:func:`vlc_harness.config.resolve_data_root`). Commands that read a store's contents take their
registry from :meth:`App.store_registry` (``--registry`` of :func:`store_registry_option`): by
default the registry the store was filled from (:mod:`vlc_harness.cli.defaults`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from vlc_harness.errors import UserError
from vlc_harness.paths import ENV_DATA, ENV_REGISTRY, ENV_STORE

if TYPE_CHECKING:
    from vlc_harness.cli.defaults import RegistryChoice
    from vlc_harness.plugins import Plugins
    from vlc_harness.registry import Registry
    from vlc_harness.store import CellRecord, Store

F = TypeVar("F", bound=Callable[..., Any])
UPGRADE_COMMAND = "vlc-harness store upgrade"
"""The command that rebuilds stale cells (named by every command that reads them)."""


class App:
    """Lazily loaded shared state of one command: plugins, registry, store, data root."""

    def __init__(self) -> None:
        self._plugins: Plugins | None = None

    @property
    def plugins(self) -> Plugins:
        """The loaded plugins (entry points, allow/block lists applied)."""
        if self._plugins is None:
            from vlc_harness.plugins import get_plugins

            self._plugins = get_plugins()
        return self._plugins

    def registry(self, paths: tuple[str, ...], store_url: str | None = None, *, required: bool = False) -> Registry:
        """The registry a command reads, by the one rule every command follows
        (:func:`vlc_harness.cli.defaults.choose_registry`): the files given (``--registry``, else
        ``$VLC_HARNESS_REGISTRY``), else the files the store's latest run read (the store at
        ``store_url``, opened only to read that and never created), else ./registry.yaml, else none
        (the built-in types). Whatever was not given is named on stderr, in one line. ``required``:
        no file at all is a usage error (``run --all``, ``plan --all``)."""
        from vlc_harness.cli.defaults import given_registry_files

        store = None if given_registry_files(paths) else self.existing_store(store_url)
        try:
            return self.store_registry(paths, store, required=required)[0]
        finally:
            if store is not None:
                store.close()

    def store_registry(
        self, paths: tuple[str, ...], store: Store | None, *, required: bool = False
    ) -> tuple[Registry, RegistryChoice]:
        """:meth:`registry` for a command that has ``store`` open already (``None``: no store yet; ``plan``
        hands its read-only one); the registry and how it was chosen (a
        :class:`~vlc_harness.cli.defaults.RegistryChoice`)."""
        from vlc_harness.cli.defaults import BUILT_IN, choose_registry
        from vlc_harness.registry import Registry, load_registry

        choice = choose_registry(paths, store)
        if required and choice.source == BUILT_IN:
            raise UserError("no registry file", hint="pass --registry PATH (e.g. examples/quickstart.yaml)")
        if choice.note:
            click.echo(f"note: {choice.note}", err=True)
        registry = load_registry(list(choice.files), self.plugins) if choice.files else Registry()
        return registry, choice

    def existing_store(self, url: str | None) -> Store | None:
        """The store at ``url`` (``--store`` or ``$VLC_HARNESS_STORE``; none: the user cache dir's) when there is
        one, else ``None`` (a missing SQLite file is not created); one that cannot be read is said
        on stderr and read as none, for commands that only take their defaults from it."""
        from vlc_harness.cli.defaults import existing_store
        from vlc_harness.errors import StoreError
        from vlc_harness.paths import default_store_url

        try:
            return existing_store(url or default_store_url())
        except StoreError as exc:
            click.echo(f"note: the store is not read for defaults: {exc}", err=True)
            return None

    def store(self, url: str | None) -> Store:
        """Open the store at ``url`` (``--store`` or ``$VLC_HARNESS_STORE``; none: the user cache dir's).

        Opening migrates an older schema (:mod:`vlc_harness.store.migrations`) and never rebuilds
        a metric: cells whose metrics are stale stay as stored until ``vlc-harness store upgrade``
        (or a ``run`` that touches them) rebuilds them; see :meth:`stale_cells`.
        """
        from vlc_harness.paths import default_store_url
        from vlc_harness.store import open_store

        return open_store(url or default_store_url())

    def stale_cells(self, store: Store, data_root: Path | None = None) -> list[CellRecord]:
        """The latest cells of ``store`` whose metrics older metric code computed
        (:func:`vlc_harness.metrics.rebuild.stale_cells`), their benchmarks read under ``data_root``
        (default: the default data root)."""
        from vlc_harness.config import resolve_data_root
        from vlc_harness.metrics.rebuild import stale_cells

        return stale_cells(store, self.plugins, resolve_data_root(data_root))

    def note_stale(self, store: Store, how: str = "shown as stored") -> list[CellRecord]:
        """Say on stderr how many of the cells a command reads are stale and what rebuilds them;
        return those cells."""
        stale = self.stale_cells(store)
        if stale:
            click.echo(
                f"note: {len(stale)} cells hold metrics computed by older metric code ({how}); "
                f"`{UPGRADE_COMMAND}` rebuilds them from their stored scores",
                err=True,
            )
        return stale


class RegistryFiles(click.Path):
    """Registry files: one per ``--registry``, or several in ``$VLC_HARNESS_REGISTRY`` separated by
    :data:`os.pathsep` (a path may hold spaces; empty items are skipped)."""

    envvar_list_splitter = os.pathsep

    def __init__(self) -> None:
        super().__init__(dir_okay=False)

    def split_envvar_value(self, rv: str) -> Sequence[str]:
        return [p for p in super().split_envvar_value(rv) if p]


_OVERLAY = f"Registry YAML; repeat to overlay (in the variable: separated by {os.pathsep!r})"


def registry_option(f: F) -> F:
    """``--registry PATH`` (repeatable; later files add or override entries), else
    ``$VLC_HARNESS_REGISTRY``."""
    return click.option(
        "--registry",
        "registries",
        multiple=True,
        type=RegistryFiles(),
        envvar=ENV_REGISTRY,
        show_envvar=True,
        help=f"{_OVERLAY}. Default: ./registry.yaml.",
    )(f)


def store_registry_option(f: F) -> F:
    """``--registry PATH`` of the commands that default to the registry their store was filled
    from (:meth:`App.store_registry`: ``show``, ``list``, ``data``), else ``$VLC_HARNESS_REGISTRY``."""
    return click.option(
        "--registry",
        "registries",
        multiple=True,
        type=RegistryFiles(),
        envvar=ENV_REGISTRY,
        show_envvar=True,
        help=f"{_OVERLAY}. Default: the registry the store's latest run read, else ./registry.yaml, "
        "else the built-in types.",
    )(f)


def store_option(f: F) -> F:
    """``--store URL`` (any SQLAlchemy URL), else ``$VLC_HARNESS_STORE``."""
    return click.option(
        "--store",
        "store_url",
        default=None,
        envvar=ENV_STORE,
        show_envvar=True,
        help="SQLAlchemy URL of the score store. Default: store.sqlite in the cache dir ($VLC_HARNESS_CACHE_DIR, "
        "else the user cache dir).",
    )(f)


def data_root_option(f: F) -> F:
    """``--data-root DIR``, else ``$VLC_HARNESS_DATA``, passed on as a resolved :class:`~pathlib.Path`
    (neither: the default data root, :func:`vlc_harness.config.resolve_data_root`)."""
    return click.option(
        "--data-root",
        type=click.Path(file_okay=False),
        default=None,
        envvar=ENV_DATA,
        show_envvar=True,
        callback=_resolved_data_root,
        help="Folder holding benchmark data. Default: data/ in the user data dir.",
    )(f)


def _resolved_data_root(ctx: click.Context, param: click.Parameter, value: str | None) -> Path:
    from vlc_harness.config import resolve_data_root

    return resolve_data_root(value)


pass_app = click.make_pass_decorator(App, ensure=True)
