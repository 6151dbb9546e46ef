"""``vlc-harness run``: its options read into one :class:`~vlc_harness.config.RunConfig`, the grid
executed, a line per cell with a number, one line per reason for the others, an optional JSON
summary (:mod:`vlc_harness.run.summary`), and the exit status with its reason."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from vlc_harness.cli.options import App, data_root_option, pass_app, registry_option, store_option
from vlc_harness.cli.run_deadline import deadline_options, report_remaining, stop_at, with_deadline
from vlc_harness.config import EXECUTORS


@click.command("run")
@click.option("--all", "run_all", is_flag=True, help="Run every model on every benchmark of the registry.")
@click.option("-m", "--model", "models", multiple=True, help="Registry id, or an inline spec TYPE:key=value,...")
@click.option("-b", "--benchmark", "benchmarks", multiple=True, help="Registry id or benchmark type.")
@click.option("--limit", type=click.IntRange(min=1), default=None, help="First N instances per category (partial).")
@click.option("--strict", is_flag=True, help="Also exit non-zero when a cell is unavailable.")
@click.option("--quiet", is_flag=True, help="No line per cell with a number; only the counts and the reasons.")
@click.option(
    "--summary",
    "summary_path",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    metavar="FILE",
    help="Write a JSON summary: counts per status, model and benchmark, grouped reasons, new, changed "
    "and lost cells, seconds per model, the exit code and why.",
)
@click.option("--progress/--no-progress", default=True, help="Progress bars on stderr.")
@click.option(
    "--workers",
    type=click.IntRange(min=1),
    default=None,
    help="Worker processes (default: one per visible GPU, else one). On CPU they share the cores.",
)
@click.option(
    "--executor",
    type=click.Choice(tuple(EXECUTORS)),
    default="local",
    show_default=True,
    envvar="VLC_HARNESS_EXECUTOR",
    show_envvar=True,
    help="local: worker processes here; ray: Ray actors on a cluster (pip install 'vlc-harness[ray]'); "
    "inprocess: models in this process (no interpreter per model; a model's exception fails only its cells, "
    "but a segfault or hang ends the run and run.timeout_s is not enforced).",
)
@click.option(
    "--address",
    "ray_address",
    default=None,
    envvar="RAY_ADDRESS",
    show_envvar=True,
    help="Ray cluster address, e.g. auto or ray://HOST:10001 (default: start a local Ray).",
)
@deadline_options
@click.option(
    "--max-cost",
    type=click.FloatRange(min=0),
    default=None,
    metavar="USD",
    help="Stop API models before their requests could cost more than this in total "
    "(prices: run.price_in_per_mtok / run.price_out_per_mtok of each entry).",
)
@click.option(
    "--recompute-metrics",
    is_flag=True,
    help="Rebuild every cell from its stored scores instead of reusing a stored cell (computes no score "
    "that is stored).",
)
@click.option(
    "--require-pinned",
    is_flag=True,
    help="Refuse to run (exit 6) when an installed score-changing package differs from constraints.txt "
    "(the nightly and the PR check's smoke run do).",
)
@registry_option
@store_option
@data_root_option
@pass_app
def run_command(
    app: App,
    run_all: bool,
    models: tuple[str, ...],
    benchmarks: tuple[str, ...],
    strict: bool,
    quiet: bool,
    summary_path: Path | None,
    require_pinned: bool,
    registries: tuple[str, ...],
    store_url: str | None,
    data_root: Path,
    deadline: float | None,
    deadline_at: float | None,
    **run_options: Any,
) -> None:
    """Evaluate models on benchmarks; computed once, cached in the store.

    A stored cell is reused as it is when the model, the instances, the data version and the
    metric code are unchanged (the report says "stored"); a cell whose metric code changed is
    rebuilt from its stored scores; --recompute-metrics rebuilds it anyway. Cells this run does
    not touch are left as they are (`vlc-harness store upgrade` rebuilds stale ones).

    Inline model specs need no registry entry, e.g.
    -m 'open_clip:arch=ViT-B-32,pretrained=/ckpt/model.pt' or
    -m 'open_clip:{arch: "@tiny.json", pretrained: null}' ('@FILE' reads JSON/YAML).

    Every model's fingerprint holds its scoring stack: the installed versions of the packages its
    type declares can change its scores (and a third-party type's own code), so an upgrade
    recomputes, saying why ("recomputed: transformers 5.24.0 -> 5.25.0"). A run whose installed
    versions differ from constraints.txt (./constraints.txt, else the harness checkout's) says so in
    one line and proceeds; --require-pinned refuses it.

    Exit status (the first that applies, README "Exit status"; 2, a usage error, always wins): 0 ok;
    1 a cell failed (--strict: or is unavailable); 3 nothing could be computed (no cell is ok or
    partial); 4 a cell that had a number in the store before this run is now unavailable or failed (a
    lost cell); 6 --require-pinned and an installed score-changing package differs from
    constraints.txt; 8 the --deadline came before the grid was done (what was computed is stored).
    """
    from vlc_harness.config import RunConfig
    from vlc_harness.exit_codes import ExitCode
    from vlc_harness.run import execute
    from vlc_harness.run.select import select_grid
    from vlc_harness.run.stack_report import REFUSED, check_pins, recomputed_lines
    from vlc_harness.run.summary import compare, exit_reason, group_reasons, previous_cells, run_summary
    from vlc_harness.stack import StackSource

    # --limit, --progress, --workers, --executor, --address, --max-cost, --recompute-metrics: named as its fields
    config = RunConfig(data_root=data_root, argv=tuple(sys.argv), stop_at=stop_at(deadline, deadline_at), **run_options)
    registry = app.registry(registries, store_url, required=run_all)
    chosen_models, chosen_benchmarks = select_grid(registry, app.plugins, run_all, list(models), list(benchmarks))
    stacks = StackSource.installed(registry.packages)
    _, off_pin = check_pins(app.plugins, chosen_models, stacks, require_pinned)
    if off_pin:
        click.echo(off_pin, err=True)
        if require_pinned:
            click.echo(REFUSED, err=True)
            sys.exit(ExitCode.OFF_PIN)
    store = app.store(store_url)
    previous = previous_cells(store, [m.id for m in chosen_models], [b.id for b in chosen_benchmarks])

    def on_cell(cell: Any) -> None:
        if cell.status.has_number and not quiet:
            report(cell)

    result = execute(
        app.plugins, store, chosen_models, chosen_benchmarks, config, registry=registry, on_cell=on_cell, stacks=stacks
    )
    for line in recomputed_lines(previous, result.cells):
        click.echo(line)
    for group in group_reasons(result.cells):
        click.echo(group.line())
    counts: dict[str, int] = {}
    for cell in result.cells:
        counts[cell.status] = counts.get(cell.status, 0) + 1
    click.echo("cells: " + ", ".join(f"{n} {s}" for s, n in sorted(counts.items())))
    for model_id, usage in result.usage.items():
        click.echo(usage_line(model_id, usage))
    code = result.exit_code(strict, previous)
    changes = compare(previous, result.cells)
    if summary_path is not None:
        summary = run_summary(result.cells, changes, code, strict, result.model_seconds, result.timings, result.run_id)
        report_remaining(result, summary)
        summary_path.parent.mkdir(parents=True, exist_ok=True)
        summary_path.write_text(json.dumps(summary, indent=1, sort_keys=False) + "\n", encoding="utf-8")
    else:
        report_remaining(result, None)
    if code:
        reason = exit_reason(code, result.cells, changes, strict)
        click.echo(with_deadline(reason, result.remaining) if result.remaining else reason, err=True)
        sys.exit(code)


def report(cell: Any) -> None:
    """One line per cell with a number: status, model x benchmark, headline, coverage, why, ``[stored]``."""
    line = f"{cell.status:<11} {cell.model_id} x {cell.benchmark_id}"
    headline = _headline(cell)
    if headline:
        line += f"  {headline}"
    coverage = _coverage(cell)
    if coverage:
        line += f"  {coverage}"
    if cell.error:
        line += f"  ({cell.error.splitlines()[0]})"
    if getattr(cell, "reused", False):
        line += "  [stored]"
    click.echo(line)


def usage_line(model_id: str, usage: dict[str, Any]) -> str:
    """What an API model spent in this run: requests, retries, failures, tokens, cost."""
    cost = usage.get("cost_usd")
    if cost is None and not usage.get("requests"):
        cost = 0.0
    spent = f"${cost:.4f}" if cost is not None else "cost unknown (no prices in the entry's run section)"
    return (
        f"api usage {model_id}: {usage.get('requests', 0)} requests ({usage.get('retries', 0)} retries, "
        f"{usage.get('failed', 0)} failed), {usage.get('input_tokens', 0)} tokens in, "
        f"{usage.get('output_tokens', 0)} out, {spent}"
    )


def _coverage(cell: Any) -> str:
    """``coverage=answered/asked`` of a cell whose model may abstain (API models), else ''."""
    for m in cell.metrics:
        if m.get("metric") == "coverage" and m.get("category") == "all":
            return f"coverage={m['value']:.4f}"
    return ""


def _headline(cell: Any) -> str:
    for m in cell.metrics:
        if m.get("headline"):
            return f"{m['metric']}={m['value']:.4f} (n={m['n']}, ties={m['ties']})"
    return ""
