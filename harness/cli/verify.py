"""``vlc-harness verify -m ID``: run a registry model and compare it with its paper's numbers."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from vlc_harness.cli.options import App, data_root_option, pass_app, registry_option, store_option
from vlc_harness.config import EXECUTORS
from vlc_harness.errors import UserError
from vlc_harness.exit_codes import ExitCode
from vlc_harness.status import Status
from vlc_harness.verify import DEFAULT_TOLERANCE, compare_cell


@click.command("verify")
@click.option("-m", "--model", "model_id", required=True, help="Registry model id (meta.paper_match names its rows).")
@click.option("-b", "--benchmark", "ids", multiple=True, help="Registry benchmark ids (default: every one).")
@click.option("--tolerance", type=float, default=DEFAULT_TOLERANCE, show_default=True, help="Allowed |ours - paper|.")
@click.option("--progress/--no-progress", default=True)
@click.option(
    "--executor",
    type=click.Choice(tuple(EXECUTORS)),
    default="local",
    show_default=True,
    help="Where the model runs, as for `run`: local worker processes, ray, or inprocess (this process).",
)
@registry_option
@store_option
@data_root_option
@pass_app
def verify_command(
    app: App,
    model_id: str,
    ids: tuple[str, ...],
    tolerance: float,
    progress: bool,
    executor: str,
    registries: tuple[str, ...],
    store_url: str | None,
    data_root: Path,
) -> None:
    """Compute (or reuse) the model's cells and print each metric next to the paper's number.

    Where the paper loaded the model with other params (`meta.paper_params`), the entry is run
    with those, as `<id>@paper`, and that is what the paper's numbers are compared with.

    Exit 0 when every comparable number is within the tolerance, 1 when one is not or a cell
    could not be computed (weights or data missing), 2 for bad input.
    """
    from vlc_harness.config import RunConfig
    from vlc_harness.run import execute
    from vlc_harness.run.select import select_benchmarks, select_models
    from vlc_harness.verify import paper_entry

    registry = app.registry(registries, store_url)
    (entry,) = select_models(registry, app.plugins, [model_id])
    paper_match = entry.meta.get("paper_match")
    if not paper_match:
        raise UserError(f"model {model_id} has no meta.paper_match", hint="name the paper rows it reproduces")
    entry = paper_entry(entry)  # its paper_params were checked when the registry was loaded
    precision = str(getattr(entry.params, "precision", "fp32"))
    if entry.id != model_id:
        click.echo(f"{model_id}: the paper loaded it with {entry.meta['paper_params']}; comparing {entry.id}")
    benchmarks = select_benchmarks(registry, app.plugins, list(ids) or list(registry.benchmarks))
    config = RunConfig(data_root=data_root, progress=progress, executor=executor)
    store = app.store(store_url)
    try:
        report = execute(app.plugins, store, [entry], benchmarks, config, registry=registry)
    finally:
        store.close()
    bad = 0
    compared = 0
    for cell in report.cells:
        if cell.status != Status.OK:
            bad += 1
            click.echo(f"{cell.benchmark_id}: {cell.status}: {cell.error or 'not computed'}")
            continue
        bench = next(b for b in benchmarks if b.id == cell.benchmark_id)
        rows = app.plugins.benchmarks.get(bench.type).cls(bench.params, data_root).reference_rows()
        comparisons = compare_cell(cell, rows, paper_match, precision)
        other = sorted({r.precision or "fp32" for r in rows if r.matches == paper_match} - {precision})
        if other:
            click.echo(
                f"{cell.benchmark_id}: paper rows of {paper_match} computed in {', '.join(other)} are not "
                f"compared with {entry.id}, which runs {precision}"
            )
        if not comparisons:
            click.echo(f"{cell.benchmark_id}: no paper rows for {paper_match} on {cell.data_version} in {precision}")
        for c in comparisons:
            compared += 1
            mark = "ok" if c.within(tolerance) else "DIFFERS"
            bad += mark != "ok"
            click.echo(
                f"{c.benchmark_id:<14} {c.metric:<24} {c.category:<14} ours {100 * c.ours:6.2f}  "
                f"paper {100 * c.paper:6.2f}  diff {100 * c.difference:+6.2f} pts  {mark}  ({c.table})"
            )
    click.echo(f"{compared} numbers compared, {bad} problem(s), tolerance {100 * tolerance:.2f} pts")
    if bad:
        sys.exit(ExitCode.FAILED)
