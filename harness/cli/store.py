"""``vlc-harness store upgrade``: rebuild the cells whose metrics older metric code computed.

Opening a store never rebuilds anything (every command opens one); this command is where stale
cells (:func:`vlc_harness.metrics.rebuild.stale_cells`) are rebuilt from their stored scores,
with the benchmarks' data at hand, and where what could not be rebuilt is reported.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from vlc_harness.cli.options import App, data_root_option, pass_app, store_option
from vlc_harness.exit_codes import ExitCode


@click.group("store")
def store_group() -> None:
    """Maintain the score store."""


@store_group.command("upgrade")
@click.option("--dry-run", is_flag=True, help="List the stale cells; rebuild nothing.")
@click.option("--progress/--no-progress", default=True, help="A progress bar on stderr.")
@store_option
@data_root_option
@pass_app
def upgrade(app: App, dry_run: bool, progress: bool, store_url: str | None, data_root: Path) -> None:
    """Rebuild every cell whose metrics are stale (a v0.1 cell, or one from before a change to a
    benchmark's metrics) from its stored scores: no model runs, no score is computed.

    Each cell's benchmark data must be under the data root and be the data the cell was run on;
    a cell whose data is missing or other is kept as it is and reported (exit status 1).
    """
    from tqdm import tqdm

    from vlc_harness.metrics.rebuild import rebuild_cells, stale_cells

    store = app.store(store_url)
    try:
        stale = stale_cells(store, app.plugins, data_root)
        click.echo(f"stale cells: {len(stale)} of {len(store.latest_cells())}")
        if dry_run or not stale:
            for cell in stale:
                click.echo(f"  {cell.model_id} x {cell.benchmark_id} ({cell.metrics_version or 'v0.1'})")
            return
        with tqdm(total=len(stale), unit="cell", desc="rebuilding", disable=not progress, file=sys.stderr) as bar:
            report = rebuild_cells(store, app.plugins, data_root, stale, done=lambda _: bar.update(1))
    finally:
        store.close()
    click.echo(f"rebuilt {len(report.rebuilt)} cells from their stored scores")
    if report.skipped:
        click.echo(f"not rebuilt (kept as they are): {len(report.skipped)}")
        names = {c.id: f"{c.model_id} x {c.benchmark_id}" for c in stale}
        for cell_id, reason in report.skipped.items():
            click.echo(f"  {names[cell_id]}: {reason}")
        sys.exit(ExitCode.FAILED)
