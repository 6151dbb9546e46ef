"""``vlc-harness render``: build the static site from the store's cells and the registry, or from a board
bundle (``--bundle``, :mod:`vlc_leaderboard.bundle`).

From the store, render makes in memory what ``vlc-harness board export`` writes
(:mod:`vlc_leaderboard.export`) and renders it as ``--bundle`` renders a bundle's file
(:mod:`vlc_leaderboard.publish`): the two give the same site. ``python -m vlc_leaderboard.render_bundle``
renders a bundle in a process that loads no plugin at all (what the nightly's render job runs).

The site is built in a staging folder beside ``--out`` and swapped in only when its manifest keeps
every value the published one holds (:mod:`vlc_leaderboard.site_manifest`, :mod:`vlc_leaderboard.staging`):
otherwise render exits 5 (``ExitCode.RENDER_REFUSED``) with the published site untouched, unless ``--allow-shrink``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from vlc_harness import hookimpl
from vlc_harness.cli import App, data_root_option, pass_app, registry_option, store_option
from vlc_leaderboard.publish import (
    LISTED,
    Target,
    _check_manifest,
    prepare,
    publish,
    site_options,
    summary,
    wall_clock,
)

__all__ = ["LISTED", "_check_manifest", "board_source_options", "render", "store_export", "wall_clock"]

STORE_ONLY = ("registries", "store_url", "data_root", "include_adhoc")
"""Options that say what to read from the store: a bundle holds what its export read."""


def board_source_options(f: Any) -> Any:
    """The options of what a board reads from the store (:data:`STORE_ONLY`): ``render`` and ``board export``
    alike."""
    include_adhoc = click.option(
        "--include-adhoc",
        is_flag=True,
        help="Also publish models and benchmarks run without a registry entry (inline specs); default: registry only.",
    )
    return include_adhoc(store_option(registry_option(data_root_option(f))))


@click.command()
@site_options
@click.option(
    "--bundle",
    type=click.Path(dir_okay=False, exists=True),
    default=None,
    help="Render from this board bundle (vlc-harness board export) instead of the store and registry.",
)
@board_source_options
@pass_app
@click.pass_context
def render(
    ctx: click.Context,
    app: App,
    where: Target,
    bundle: str | None,
    include_adhoc: bool,
    store_url: str | None,
    registries: tuple[str, ...],
    data_root: Path,
) -> None:
    """Render index, benchmark and model pages: the registry's entries (--include-adhoc: also
    one-off runs); only complete cells are published. Refuses while a cell it would publish holds
    stale metrics (older metric code): `vlc-harness store upgrade` rebuilds them first.

    --bundle FILE renders a board bundle instead (vlc-harness board export): the same site as from the
    store it was exported from. `python -m vlc_leaderboard.render_bundle` does so with no plugin loaded.

    The site is built beside --out and replaces it whole, and only when it keeps every published
    value: a value lost, or changed while its model fingerprint, benchmark fingerprint and data version
    stayed, exits 5 and leaves --out as it was (--allow-shrink publishes it anyway)."""
    if bundle is not None:
        given = [n for n in STORE_ONLY if ctx.get_parameter_source(n) == click.core.ParameterSource.COMMANDLINE]
        if given:
            names = ", ".join(
                "--" + n.replace("_url", "").replace("registries", "registry").replace("_", "-") for n in given
            )
            raise click.UsageError(f"{names}: a bundle holds what its export read from the store and registry")
        from vlc_leaderboard.bundle import open_bundle

        recovered = prepare(where)
        with open_bundle(Path(bundle)) as data:
            board, written = publish(data, where, wall_clock(), recovered)
        summary(board, written, str(where.site))
        return
    from vlc_leaderboard.export import in_memory

    recovered = prepare(where)
    registry = app.registry(registries, store_url)
    store = app.store(store_url)
    try:
        export = store_export(app, registry, store, data_root, include_adhoc, where.jobs)
        board, written = publish(in_memory(export), where, wall_clock(), recovered)
    finally:
        store.close()
    summary(board, written, str(where.site))
    for line in export.warnings:
        click.echo(line, err=True)
    for line in export.notes:
        click.echo(line)


def store_export(app: App, registry: Any, store: Any, data_root: Path, include_adhoc: bool, jobs: int = 1) -> Any:
    """What a bundle of ``store`` under ``registry`` holds (:func:`vlc_leaderboard.export.export_board`; ``jobs``:
    its worker processes)."""
    from vlc_harness.errors import UserError
    from vlc_harness.provenance import run_provenance
    from vlc_harness.results import StoredResults
    from vlc_leaderboard.export import export_board

    if not include_adhoc and not registry.models:
        raise UserError(
            "render publishes the registry's entries, and no registry names a model",
            hint="pass --registry FILE, or --include-adhoc to publish every model in the store",
        )
    provenance = run_provenance([]) | {"registry_digest": registry.digest()}
    stale = {c.id for c in app.stale_cells(store, data_root) if c.id is not None}
    results = StoredResults(store)
    return export_board(results, registry, app.plugins, data_root, include_adhoc, stale, provenance, jobs=jobs)


@hookimpl
def register_commands(cli: click.Group) -> None:
    """Add ``render``."""
    cli.add_command(render)
