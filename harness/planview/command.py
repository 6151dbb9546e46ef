"""``vlc-harness plan``: a dry run of ``run`` (which cells are complete, what the others need, the
estimated cost), and with ``--diff REF`` which cells another git revision's grid lacks or
fingerprints differently. Nothing is computed and the store is only read.

The one command-line module of :mod:`vlc_harness.planview`; the rest of the package is plain functions.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from vlc_harness.cli.options import App, data_root_option, pass_app, registry_option, store_option
from vlc_harness.planview.revision import AS_BASE_ENV


@click.command("plan")
@click.option("--all", "run_all", is_flag=True, help="Every model on every benchmark of the registry.")
@click.option("-m", "--model", "models", multiple=True, help="Registry id, or an inline spec TYPE:key=value,...")
@click.option("-b", "--benchmark", "benchmarks", multiple=True, help="Registry id or benchmark type.")
@click.option("--limit", type=click.IntRange(min=1), default=None, help="As run --limit: first N per category.")
@click.option(
    "--diff",
    "ref",
    default=None,
    metavar="REF",
    help="Also compare with the plan of git revision REF (a branch, tag or commit), printed by REF's own code: "
    "added cells and cells whose fingerprint changed.",
)
@click.option(
    "--identify-all",
    is_flag=True,
    help="Identify every model, even one none of whose cells can run here (slower: its library's imports and "
    "hub probes); --diff implies it.",
)
@click.option(
    "--as-diff-base",
    is_flag=True,
    hidden=True,
    envvar=AS_BASE_ENV,
    help="How --diff runs the other revision's plan: only the --registry files given are read, no -m or -b (--all "
    "or not) is the whole registry, a model or benchmark this revision does not know is left out; implies "
    "--identify-all.",
)
@click.option("--format", "fmt", type=click.Choice(["table", "json"]), default="table", show_default=True)
@registry_option
@store_option
@data_root_option
@pass_app
def plan_command(
    app: App,
    run_all: bool,
    models: tuple[str, ...],
    benchmarks: tuple[str, ...],
    limit: int | None,
    ref: str | None,
    identify_all: bool,
    as_diff_base: bool,
    fmt: str,
    registries: tuple[str, ...],
    store_url: str | None,
    data_root: Path,
) -> None:
    """Show what `run` would do with the same selection, computing nothing.

    Each model is fingerprinted with the scoring stack that constraints.txt pins (./constraints.txt,
    else the harness checkout's; $VLC_HARNESS_CONSTRAINTS), not the installed versions, so a branch
    that bumps a pin shows the cells the bump recomputes. Per cell: complete (stored, reused as it
    is) or compute, with the pairs, texts or questions it lacks; unknown where the model's identity
    cannot be had here (weights neither cached nor reachable: the work shown is an upper bound);
    unavailable, skipped or failed as a run would record it. API models with prices in their run
    section get an estimated cost; every model an estimate of its GPU time, measured or scaled from
    its parameter count, with the night's total.
    Benchmark data is checked first: a model none of whose cells can run is not identified. The
    store is opened read-only (a missing store file is not created). Exits 0.
    """
    from vlc_harness.config import RunConfig
    from vlc_harness.paths import default_store_url
    from vlc_harness.planview.document import plan_json
    from vlc_harness.planview.grid import plan_grid
    from vlc_harness.planview.store import read_only_store
    from vlc_harness.planview.table import table_lines
    from vlc_harness.stack import StackSource

    config = RunConfig(data_root=data_root, limit=limit)
    store, note = read_only_store(store_url or default_store_url())  # also what the registry defaults to
    try:
        if as_diff_base:
            from vlc_harness.planview.revision import known_selection
            from vlc_harness.registry import Registry, load_registry

            registry = load_registry([Path(f) for f in registries], app.plugins) if registries else Registry()
            chosen_models, chosen_benchmarks = known_selection(registry, app.plugins, list(models), list(benchmarks))
        else:
            from vlc_harness.run.select import select_grid

            registry = app.store_registry(registries, store, required=run_all)[0]
            chosen = select_grid(registry, app.plugins, run_all, list(models), list(benchmarks))
            chosen_models, chosen_benchmarks = chosen
        everyone = identify_all or as_diff_base or ref is not None  # a diff compares fingerprints
        stacks = StackSource.pinned(registry.packages)  # the revision's pins, not the installed versions
        result = plan_grid(app.plugins, store, chosen_models, chosen_benchmarks, config, everyone, stacks=stacks)
    finally:
        store.close()
    result.store_note = note
    out: dict[str, Any] = plan_json(result)
    if ref is not None:
        from vlc_harness.planview.diff import diff_plans
        from vlc_harness.planview.revision import base_plan

        specs = {"models": list(models), "benchmarks": list(benchmarks)}
        commit, base, error = base_plan(ref, [Path(f) for f in registry.files], specs, data_root, limit)
        out["diff"] = diff_plans(out, base, ref, commit, error)
    if fmt == "json":
        click.echo(json.dumps(out, indent=2, ensure_ascii=False))
        return
    for line in table_lines(out):
        click.echo(line)


__all__ = ["plan_command"]
