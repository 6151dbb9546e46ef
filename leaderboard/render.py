"""``vlc-harness render``: build the static site from the store's cells and the registry."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from vlc_harness import hookimpl
from vlc_harness.cli import App, data_root_option, pass_app, registry_option, store_option


@click.command()
@click.option("--out", type=click.Path(file_okay=False), default="site", show_default=True, help="Output folder.")
@click.option("--release", default=None, help="Also freeze a copy as site/releases/NAME (never overwritten).")
@click.option("--templates", "templates", multiple=True, type=click.Path(file_okay=False), help="Override templates.")
@click.option(
    "--include-adhoc",
    is_flag=True,
    help="Also publish models and benchmarks run without a registry entry (inline specs); default: registry only.",
)
@store_option
@registry_option
@data_root_option
@pass_app
def render(
    app: App,
    out: str,
    release: str | None,
    templates: tuple[str, ...],
    include_adhoc: bool,
    store_url: str | None,
    registries: tuple[str, ...],
    data_root: Path,
) -> None:
    """Render index, benchmark and model pages: the registry's entries (``--include-adhoc``: also
    one-off runs); only complete cells are published. Refuses while a cell it would publish holds
    stale metrics (older metric code): ``vlc-harness store upgrade`` rebuilds them first."""
    from vlc_harness.errors import UserError
    from vlc_harness.provenance import run_provenance
    from vlc_harness.results import StoredResults
    from vlc_leaderboard.board import build_board
    from vlc_leaderboard.compare import instance_results
    from vlc_leaderboard.downloads import write_downloads
    from vlc_leaderboard.site import render_site

    registry = app.registry(registries, required=False)
    provenance = run_provenance([]) | {"registry_digest": registry.digest()}
    store = app.store(store_url)
    results = StoredResults(store)
    try:
        cells = results.cells(include_incomplete=True, with_replicates=True)
        runs = {c.run_id: results.run(c.run_id) for c in cells if c.run_id is not None}
        if not include_adhoc and not registry.models:
            raise UserError(
                "render publishes the registry's entries, and no registry names a model",
                hint="pass --registry FILE, or --include-adhoc to publish every model in the store",
            )
        board = build_board(cells, registry, app.plugins, include_adhoc=include_adhoc)
        _refuse_stale(board, app.stale_cells(store, data_root))
        instances = instance_results(board, results, data_root)
        try:
            written = render_site(
                board,
                Path(out),
                provenance,
                release,
                [Path(t) for t in templates],
                runs=_public(runs),
                downloads=lambda target: write_downloads(board, target, results, data_root),
                instances=instances,
            )
        except (FileExistsError, ValueError) as exc:
            raise UserError(str(exc)) from None
    finally:
        store.close()
    published = sum(cv.published for row in board.rows for cv in row.cells.values())
    click.echo(
        f"wrote {len(written)} pages to {out}: {len(board.rows)} models, {len(board.benchmarks)} benchmarks, "
        f"{published} published cells"
    )
    if not include_adhoc:
        adhoc = sorted({c.model_id for c in cells if c.model_id not in registry.models})
        if adhoc:
            click.echo(f"not published (no registry entry; --include-adhoc publishes them): {len(adhoc)} models")


def _refuse_stale(board: Any, stale: list[Any]) -> None:
    """A published number must come from the metric code the page describes: refuse to render
    while a cell the board would publish holds metrics older metric code computed."""
    from vlc_harness.cli import UPGRADE_COMMAND
    from vlc_harness.errors import UserError

    ids = {c.id for c in stale}
    shown = [cv.cell for row in board.rows for cv in row.cells.values() if cv.published and cv.cell.id in ids]
    if shown:
        names = ", ".join(f"{c.model_id} x {c.benchmark_id}" for c in shown[:3])
        raise UserError(
            f"{len(shown)} cells the board would publish hold metrics computed by older metric code ({names}"
            + (", ..." if len(shown) > 3 else "")
            + ")",
            hint=f"run `{UPGRADE_COMMAND}` with their data at hand, or `vlc-harness cache forget` them",
        )


def _public(runs: dict[int, dict[str, Any]]) -> dict[int, dict[str, Any]]:
    """Run provenance without what a public page should not show (host names, command lines)."""
    hidden = {"host", "argv"}
    return {k: {key: v for key, v in prov.items() if key not in hidden} for k, prov in runs.items()}


@hookimpl
def register_commands(cli: click.Group) -> None:
    """Add ``render``."""
    cli.add_command(render)
