"""Options and shared state of the command line, for every plugin that adds commands.

A plugin's ``register_commands`` hook adds click commands to the ``vlc-harness`` group; they take
the same ``--registry``, ``--store`` and ``--data-root`` options as the core verbs, and the
:class:`App` (plugins, registry, store) through :data:`pass_app`. This module is the public
surface for that, also importable as ``from vlc_harness.cli import App, pass_app, ...``.
``--data-root`` arrives resolved: a :class:`~pathlib.Path`, the default data root when not given
(:func:`vlc_harness.config.resolve_data_root`).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from vlc_harness.errors import UserError

F = TypeVar("F", bound=Callable[..., Any])
UPGRADE_COMMAND = "vlc-harness store upgrade"
"""The command that rebuilds stale cells (named by every command that reads them)."""


class App:
    """Lazily loaded shared state of one command: plugins, registry, store, data root."""

    def __init__(self) -> None:
        self._plugins: Any = None

    @property
    def plugins(self) -> Any:
        """The loaded plugins (entry points, allow/block lists applied)."""
        if self._plugins is None:
            from vlc_harness.plugins import get_plugins

            self._plugins = get_plugins()
        return self._plugins

    def registry(self, paths: tuple[str, ...], required: bool = True) -> Any:
        """Load the registry files given, else $VLC_HARNESS_REGISTRY, else ./registry.yaml."""
        from vlc_harness.paths import ENV_REGISTRY
        from vlc_harness.registry import Registry, load_registry

        files = [Path(p) for p in paths]
        if not files and os.environ.get(ENV_REGISTRY):
            files = [Path(p) for p in os.environ[ENV_REGISTRY].split(os.pathsep) if p]
        if not files and Path("registry.yaml").is_file():
            files = [Path("registry.yaml")]
        if not files:
            if required:
                raise UserError("no registry file", hint="pass --registry PATH (e.g. examples/quickstart.yaml)")
            return Registry()
        return load_registry(files, self.plugins)

    def store(self, url: str | None) -> Any:
        """Open the store at ``url`` (default: $VLC_HARNESS_STORE or the user cache dir).

        Opening migrates an older schema (:mod:`vlc_harness.store.migrations`) and never rebuilds
        a metric: cells whose metrics are stale stay as stored until ``vlc-harness store upgrade``
        (or a ``run`` that touches them) rebuilds them; see :meth:`stale_cells`.
        """
        from vlc_harness.paths import default_store_url
        from vlc_harness.store import open_store

        return open_store(url or default_store_url())

    def stale_cells(self, store: Any, data_root: Path | None = None) -> list[Any]:
        """The latest cells of ``store`` whose metrics older metric code computed
        (:func:`vlc_harness.metrics.rebuild.stale_cells`), their benchmarks read under ``data_root``
        (default: the default data root)."""
        from vlc_harness.config import resolve_data_root
        from vlc_harness.metrics.rebuild import stale_cells

        return stale_cells(store, self.plugins, resolve_data_root(data_root))

    def note_stale(self, store: Any, how: str = "shown as stored") -> list[Any]:
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


def registry_option(f: F) -> F:
    """``--registry PATH`` (repeatable; later files add or override entries)."""
    return click.option(
        "--registry",
        "registries",
        multiple=True,
        type=click.Path(dir_okay=False),
        help="Registry YAML; repeat to overlay (default: $VLC_HARNESS_REGISTRY or ./registry.yaml).",
    )(f)


def store_option(f: F) -> F:
    """``--store URL`` (any SQLAlchemy URL)."""
    return click.option(
        "--store", "store_url", default=None, help="SQLAlchemy URL of the score store (default: $VLC_HARNESS_STORE)."
    )(f)


def data_root_option(f: F) -> F:
    """``--data-root DIR``, passed on as a resolved :class:`~pathlib.Path` (not given: the default
    data root, :func:`vlc_harness.config.resolve_data_root`)."""
    return click.option(
        "--data-root",
        type=click.Path(file_okay=False),
        default=None,
        callback=_resolved_data_root,
        help="Folder holding benchmark data (default: $VLC_HARNESS_DATA).",
    )(f)


def _resolved_data_root(ctx: click.Context, param: click.Parameter, value: str | None) -> Path:
    from vlc_harness.config import resolve_data_root

    return resolve_data_root(value)


pass_app = click.make_pass_decorator(App, ensure=True)
