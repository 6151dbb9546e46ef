"""Selecting entries and running them: the code the CLI and the Python API share."""

from __future__ import annotations

import difflib
from collections.abc import Callable
from pathlib import Path

from harness.devices import worker_slots
from harness.errors import RegistryError, UserError
from harness.models import Model
from harness.plugins import Plugins
from harness.provenance import run_provenance
from harness.registry import BenchmarkEntry, ModelEntry, Registry, parse_inline_benchmark, parse_inline_model
from harness.scheduler import RunReport, Scheduler
from harness.store import CellRecord, Store


def select_models(registry: Registry, plugins: Plugins, specs: list[str]) -> list[ModelEntry]:
    """Registry ids, else inline specs: ``TYPE:key=value,...`` or a bare model type (default params)."""
    out = []
    for spec in specs:
        if spec in registry.models:
            out.append(registry.models[spec])
        elif ":" in spec or spec in plugins.models.entries:
            out.append(parse_inline_model(spec, plugins))
        else:
            out.append(registry.model(spec))  # raises, listing the known ids
    return out


def select_benchmarks(registry: Registry, plugins: Plugins, specs: list[str]) -> list[BenchmarkEntry]:
    """Registry ids, registered benchmark types (default params), or inline ``TYPE:key=value,...``."""
    out = []
    for spec in specs:
        if spec in registry.benchmarks:
            out.append(registry.benchmarks[spec])
        elif spec in plugins.benchmarks.entries or ":" in spec:
            out.append(parse_inline_benchmark(spec, plugins))
        else:
            known = sorted(set(registry.benchmarks) | set(plugins.benchmarks.entries))
            close = difflib.get_close_matches(spec, known, n=1)
            guess = f" (did you mean {close[0]}?)" if close else ""
            raise RegistryError(f"unknown benchmark {spec!r}{guess}; known: {', '.join(known) or '(none)'}")
    return out


def plan(
    registry: Registry, plugins: Plugins, run_all: bool, models: list[str], benchmarks: list[str]
) -> tuple[list[ModelEntry], list[BenchmarkEntry]]:
    """The models and benchmarks a ``run`` invocation selects.

    ``--all``: the whole grid. ``-m`` alone: those models on every benchmark. ``-b`` alone:
    every model on those benchmarks. Both: their product.
    """
    if not run_all and not models and not benchmarks:
        raise UserError("nothing selected", hint="use --all, or -m MODEL and/or -b BENCHMARK")
    chosen_models = select_models(registry, plugins, models) if models else list(registry.models.values())
    chosen_benchmarks = (
        select_benchmarks(registry, plugins, benchmarks) if benchmarks else list(registry.benchmarks.values())
    )
    if not chosen_models:
        raise UserError("the registry has no models", hint="add entries under 'models:' or pass -m TYPE:...")
    if not chosen_benchmarks:
        raise UserError("the registry has no benchmarks", hint="add entries under 'benchmarks:' or pass -b TYPE")
    return chosen_models, chosen_benchmarks


def execute(
    plugins: Plugins,
    store: Store,
    models: list[ModelEntry],
    benchmarks: list[BenchmarkEntry],
    data_root: Path,
    limit: int | None = None,
    progress: bool = True,
    registry: Registry | None = None,
    argv: list[str] | None = None,
    live_model: Model | None = None,
    on_cell: Callable[[CellRecord], None] | None = None,
    workers: int | None = None,
    max_cost: float | None = None,
    executor: str = "local",
    ray_address: str | None = None,
    recompute_metrics: bool = False,
) -> RunReport:
    """Run the selected grid, recording a run with its provenance and a cell per pair.

    ``max_cost`` (USD) caps what API models may spend in this run: each stops before a request
    could exceed it (prices come from each entry's ``run`` section). What they spent is recorded
    with the run's provenance when it ends. ``executor`` is ``local`` (worker processes here) or
    ``ray`` (Ray actors on the cluster at ``ray_address``; a local Ray instance when ``None``).
    ``recompute_metrics`` rebuilds stored cells from their stored scores instead of reusing them.
    """
    provenance = run_provenance(argv)
    provenance.update(
        data_root=str(data_root),
        limit=limit,
        registry_files=registry.files if registry else [],
        registry_digest=registry.digest() if registry else None,
        max_cost_usd=max_cost,
    )
    run_id = store.start_run(provenance)
    if executor == "ray":
        from harness.ray_worker import connect

        slots = connect(ray_address, workers)
    else:
        slots = worker_slots(workers)
    provenance["worker_slots"] = slots
    provenance["executor"] = executor
    scheduler = Scheduler(
        store,
        plugins,
        data_root,
        limit=limit,
        progress=progress,
        run_id=run_id,
        slots=slots,
        max_cost=max_cost,
        executor=executor,
        recompute_metrics=recompute_metrics,
    )
    report = RunReport(run_id)
    status = "interrupted"
    try:
        report.cells = scheduler.run_models(models, benchmarks, on_cell=on_cell, live_model=live_model)
        status = "finished"
    finally:
        report.usage = dict(scheduler.usage)
        store.finish_run(run_id, status, {"usage": report.usage} if report.usage else None)
    return report
