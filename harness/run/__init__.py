"""Running the grid: prepare benchmarks, plan each model, schedule the work, finish the cells.

Data flows one way through four stages: :mod:`.plan` (what each model still needs, from the
registry entries and the store), :mod:`.protocols` (one object per scoring protocol: missing
work, running it, collecting outcome arrays), :mod:`.executor` (worker processes here or Ray
actors, chosen once) and :mod:`.schedule` (slots, threads, events into the store); then
:mod:`.finish` records one cell per (model, benchmark).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from vlc_harness.config import RunConfig
from vlc_harness.exit_codes import ExitCode, worst
from vlc_harness.models import Model
from vlc_harness.plugins import Plugins
from vlc_harness.provenance import run_provenance
from vlc_harness.registry import BenchmarkEntry, ModelEntry, Registry
from vlc_harness.run.budget import RunBudget
from vlc_harness.run.executor import Executor
from vlc_harness.run.finish import finish, resurface, usage_record
from vlc_harness.run.plan import ModelWork, plan_model, plan_unavailable
from vlc_harness.run.prepare import PreparedBenchmark, prepare
from vlc_harness.run.schedule import Schedule
from vlc_harness.status import Status
from vlc_harness.store import CellRecord, Store
from vlc_harness.store.registries import registry_record


@dataclass
class RunReport:
    """Every cell a run recorded, plus the run id and what API models spent (per model id)."""

    run_id: int | None
    cells: list[CellRecord] = field(default_factory=list)
    usage: dict[str, dict[str, Any]] = field(default_factory=dict)
    timings: dict[str, float] = field(default_factory=dict)
    """Wall seconds per phase: load benchmarks, plan (image hashing, identify), compute and cells,
    and the workers' own phases (``worker_load_s``, ``worker_model_*_s``, ``worker_decode_wait_s``)."""
    model_seconds: dict[str, float] = field(default_factory=dict)
    """Per model id: the seconds its workers spent (loading, scoring, waiting for decoded images),
    summed over its workers; 0 for a model whose every cell was stored or decided without work."""

    def exit_code(self, strict: bool = False, previous: Mapping[tuple[str, str], CellRecord] | None = None) -> ExitCode:
        """The run's exit status (:mod:`vlc_harness.exit_codes`; when several apply, :func:`worst`).

        ``OK``: every cell is ok, partial, unavailable or skipped, and at least one has a number.
        ``FAILED``: a cell failed (with ``strict``, also: a cell is unavailable).
        ``NOTHING_COMPUTED``: no cell is ok or partial (computed now or stored before).
        ``LOST_CELL``: ``previous`` (the store's state before the run,
        :func:`~vlc_harness.run.summary.previous_cells`) had a number for a (model, benchmark)
        that this run recorded as unavailable or failed.
        """
        from vlc_harness.run.summary import lost_cells

        bad = {Status.FAILED, Status.UNAVAILABLE} if strict else {Status.FAILED}
        codes = [ExitCode.OK]
        if any(c.status in bad for c in self.cells):
            codes.append(ExitCode.FAILED)
        if not any(c.status.has_number for c in self.cells):
            codes.append(ExitCode.NOTHING_COMPUTED)
        if previous and lost_cells(previous, self.cells):
            codes.append(ExitCode.LOST_CELL)
        return worst(codes)


def execute(
    plugins: Plugins,
    store: Store,
    models: list[ModelEntry],
    benchmarks: list[BenchmarkEntry],
    config: RunConfig,
    *,
    registry: Registry | None = None,
    live_model: Model | None = None,
    on_cell: Callable[[CellRecord], None] | None = None,
) -> RunReport:
    """Run the selected grid as ``config`` says, recording a run with its provenance and a cell per pair.

    ``config`` (:class:`~vlc_harness.config.RunConfig`) holds the data root, the limit, where
    workers run (``executor``: ``local`` processes here, ``ray`` actors on the cluster at
    ``ray_address``), the ``max_cost`` (USD) that API models may spend together (each stops
    before a request could exceed it; prices come from each entry's ``run`` section; what they
    spent is recorded with the run's provenance when it ends) and ``recompute_metrics`` (rebuild
    stored cells from their stored scores instead of reusing them); every model built for the
    run gets it as :attr:`~vlc_harness.models.Model.run_config`, ``live_model`` too. ``registry``
    is recorded in the provenance (files as given, by absolute path and sha256, and its digest);
    ``on_cell`` is called with each cell as it is saved.
    """
    provenance = run_provenance(list(config.argv) if config.argv is not None else None)
    provenance.update(
        data_root=str(config.data_root),
        limit=config.limit,
        registry_files=registry.files if registry else [],
        registry_digest=registry.digest() if registry else None,
        registry=registry_record(registry.files) if registry else [],  # see vlc_harness.store.registries
        max_cost_usd=config.max_cost,
    )
    run_id = store.start_run(provenance)
    report = RunReport(run_id)
    status = "interrupted"
    clock = Timings()
    try:
        ex = Executor(config)
        provenance["worker_slots"], provenance["executor"] = ex.slots, config.executor
        budget = RunBudget(config.max_cost)
        schedule = Schedule(store, ex, budget, config.progress)
        prepared: dict[str, PreparedBenchmark] = {}
        for b in benchmarks:
            if b.id not in prepared:  # loaded once, for every model
                prepared[b.id] = prepare(b, plugins.benchmarks, config.data_root, config.limit)
        clock.lap("load_benchmarks_s")
        if live_model is not None:
            live_model.run_config = config
        works: list[ModelWork] = []
        for entry in models:
            chosen = [prepared[b.id] for b in benchmarks]
            if entry.unavailable and live_model is None:  # its type's listed package is not installed
                works.append(plan_unavailable(entry, chosen))
                continue
            cls = type(live_model) if live_model is not None else plugins.models.get(entry.type).cls
            work = plan_model(entry, cls, chosen, store, config, live_model)
            schedule.prestart(work)  # the first model with work loads while the others are planned
            works.append(work)
        clock.lap("plan_s")
        done: dict[int, list[CellRecord]] = {}

        def finished(work: ModelWork) -> None:
            start = time.perf_counter()
            cells = finish(work, store, run_id, budget.stopped_message(work.sink.usage.stopped))
            for cell, outcomes in cells:
                if outcomes is not None:  # None: a stored cell reused as it is
                    store.save_cell(cell, outcomes)
            resurface(store, work.entry.id, [cell for cell, outcomes in cells if outcomes is None])
            for cell, _ in cells:
                if on_cell:
                    on_cell(cell)
            if work.cls.paid_requests:
                report.usage[work.entry.id] = usage_record(work)
            done[id(work)] = [c for c, _ in cells]
            report.model_seconds[work.entry.id] = round(sum(work.sink.worker_seconds.values()), 4)
            clock.add("cells_s", time.perf_counter() - start)

        schedule.run(works, finished)
        clock.lap("compute_and_cells_s")
        clock.add("hash_images_s", sum(p.hash_seconds for p in prepared.values()))
        clock.add("store_writes_s", sum(r.sink.store_seconds for r in works))
        for r in works:  # summed over models and workers
            for phase, seconds in r.sink.worker_seconds.items():
                clock.add(f"worker_{phase}", seconds)
        report.cells = [cell for work in works for cell in done.get(id(work), [])]
        report.timings = clock.seconds
        status = "finished"
    finally:
        extra: dict[str, Any] = {"timings": clock.seconds}
        if report.usage:
            extra["usage"] = report.usage
        store.finish_run(run_id, status, extra)
    return report


class Timings:
    """Wall time per phase of a run (kept in the run's provenance as ``timings``)."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}
        self._last = time.perf_counter()

    def lap(self, name: str) -> None:
        """The time since the previous lap, as ``name``."""
        now = time.perf_counter()
        self.add(name, now - self._last)
        self._last = now

    def add(self, name: str, seconds: float) -> None:
        """Add seconds to a phase."""
        self.seconds[name] = round(self.seconds.get(name, 0.0) + seconds, 4)
