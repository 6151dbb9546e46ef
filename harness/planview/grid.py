"""What a run of the selected grid would do, computing nothing: the plan behind ``vlc-harness plan``.

The run path's own planning (:func:`vlc_harness.run.prepare.prepare`, then
:func:`vlc_harness.run.plan.plan_model`) decides each cell against the store, opened read-only: a
cell is ``complete`` (stored and reused as it is), ``compute`` (with the pairs, texts or
questions it lacks), ``unknown`` (the model's identity cannot be had here, so neither can its
stored cells: the work shown is an upper bound), or ``unavailable``, ``skipped``, ``failed`` as a
run would record it. API models that can estimate their requests (``estimate_usage(job)``) and
whose entry has prices get an estimated cost; others say ``unknown``. Every cell and model gets an
estimate of its GPU time (:mod:`vlc_harness.gpucost`), labelled measured or estimated.

Data availability is decided first: a model is identified (which may import its library and
probe the hub) only when a cell of it can run here, unless ``identify_all`` asks for every
fingerprint (``plan --diff`` does). A model whose every cell is decided without it (its
benchmarks' data is missing, or it is skipped) keeps the benchmarks' reasons and shows no
fingerprint.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from vlc_harness.config import RunConfig
from vlc_harness.gpucost import CostTable, cost_table
from vlc_harness.models import Model, Usage
from vlc_harness.planview.gpu import gpu_total, set_gpu
from vlc_harness.planview.identity import NO_FINGERPRINT, UNKNOWN, LazyIdentity, ModelFingerprint, benchmark_record
from vlc_harness.planview.store import MemoStore
from vlc_harness.plugins import Plugins
from vlc_harness.registry import BenchmarkEntry, ModelEntry
from vlc_harness.run.jobs import Job
from vlc_harness.run.plan import CellPlan, ModelWork, plan_model, plan_unavailable
from vlc_harness.run.prepare import prepare
from vlc_harness.stack import StackSource, grid_off_pin
from vlc_harness.status import Status
from vlc_harness.store import Store

UNITS = {"embed": "pairs", "score_pairs": "pairs", "score_texts": "texts", "choose": "questions"}
"""What a protocol's work is counted in."""


@dataclass
class CellRow:
    """One (model, benchmark) cell of the plan."""

    model: str
    benchmark: str
    status: str
    """``complete``, ``compute``, ``unknown``, ``unavailable``, ``skipped`` or ``failed``."""
    work: int | None = None
    """Pairs, texts or questions to compute (for ``unknown``: at most this many); ``None``: not known."""
    unit: str = "pairs"
    requests: int | None = None
    """Paid models: requests to send (estimated by the model)."""
    input_tokens: int | None = None
    output_tokens: int | None = None
    cost_usd: float | None = None
    cost: str = "-"
    """``-`` (no paid requests), ``$x.xxxx`` (estimated), or ``unknown``."""
    reason: str | None = None
    stored_status: str | None = None
    gpu_seconds: float | None = None
    """Estimated GPU seconds (``0`` for a stored cell; ``None``: not run, or no number can be given)."""
    gpu: str = "-"
    gpu_kind: str | None = None
    """``measured``, ``estimated``, ``none`` (no GPU work) or ``unknown`` (:mod:`vlc_harness.gpucost`)."""
    gpu_basis: str | None = None


@dataclass
class ModelPlan:
    """One model: its identity (what ``plan --diff`` compares) and its whole missing work (shared pairs once)."""

    id: str
    type: str
    fingerprint: str
    """The model's fingerprint; ``unknown`` (identity not to be had here, or identify() failed) or ``-``
    (not identified)."""
    unknown: str | None
    """Why the identity cannot be had here (identify() raised ``Unavailable``), else ``None``."""
    work: int | None
    unit: str
    declared: str | None = None
    """sha256 of what the entry and the plugin declare (:func:`~vlc_harness.planview.identity.declared_identity`);
    ``None`` when the type's package is not installed."""
    weights: Any = None
    """The weights' identity identify() gave, else ``None``."""
    failed: str | None = None
    """What identify() raised when it is not ``Unavailable`` (a plugin's bug), else ``None``."""
    requests: int | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    cost_usd: float | None = None
    cost: str = "-"
    gpu_seconds: float | None = None
    """Estimated GPU seconds of the whole missing work (shared inputs once)."""
    gpu: str = "-"
    gpu_kind: str | None = None
    gpu_basis: str | None = None
    not_identified: str | None = None
    """Why no fingerprint was computed (no cell of the model can run here, or its package is not
    installed), else ``None``."""
    stack: dict[str, Any] | None = None
    """The scoring stack it is fingerprinted with, from the revision's pins (``plan --diff`` names what
    changed in it); ``None`` when the type's package is not installed."""
    unpinned: list[str] | None = None
    """Its scoring distributions that ``constraints.txt`` does not pin (their installed versions are used)."""

    @classmethod
    def of(cls, found: ModelFingerprint, unit: str) -> ModelPlan:
        """A model's plan, its work not yet counted, from its identity."""
        fingerprint = found.fingerprint or (NO_FINGERPRINT if found.not_identified else UNKNOWN)
        return cls(
            found.id,
            found.type,
            fingerprint,
            found.unknown,
            None,
            unit,
            declared=found.declared,
            weights=found.weights,
            failed=found.failed,
            not_identified=found.not_identified,
            stack=found.stack,
            unpinned=found.unpinned,
        )


@dataclass
class GridPlan:
    """The plan of a grid: models, cells, benchmarks (what their cells depend on) and the GPU total."""

    models: list[ModelPlan] = field(default_factory=list)
    cells: list[CellRow] = field(default_factory=list)
    benchmarks: list[dict[str, Any]] = field(default_factory=list)
    """Per benchmark, :func:`~vlc_harness.planview.identity.benchmark_record`."""
    store_note: str | None = None
    gpu: dict[str, Any] = field(default_factory=dict)
    """The night's GPU time (:func:`~vlc_harness.planview.gpu.gpu_total`)."""
    constraints: str | None = None
    """The ``constraints.txt`` whose pins the stacks come from (``None``: none found, installed versions)."""
    off_pin: list[dict[str, Any]] = field(default_factory=list)
    """Scoring distributions installed here at other versions than pinned (a run here would
    fingerprint those models differently)."""


def plan_grid(
    plugins: Plugins,
    store: Store,
    models: list[ModelEntry],
    benchmarks: list[BenchmarkEntry],
    config: RunConfig,
    identify_all: bool = False,
    costs: CostTable | None = None,
    stacks: StackSource | None = None,
) -> GridPlan:
    """Plan every (model, benchmark) cell as a run with ``config`` would (its data root and limit;
    each model built with it), without computing or storing anything.

    Benchmarks are prepared first; a model is identified only when one of its cells can run, or
    for every model with ``identify_all``. GPU time is estimated from ``costs`` (the cost table
    beside :mod:`vlc_harness.gpucost` by default). Each model's scoring stack comes from ``stacks``
    (default: the pins of :func:`~vlc_harness.stack.constraints_file`, not the installed versions: what
    the nightly installs).
    """
    stacks = stacks or StackSource.pinned()
    prepared = {b.id: prepare(b, plugins.benchmarks, config.data_root, config.limit) for b in benchmarks}
    chosen = [prepared[b.id] for b in benchmarks]
    memo: Any = MemoStore(store)
    table = costs or cost_table()
    plan = GridPlan()
    for entry in models:
        if entry.unavailable:  # its type's package is listed but not installed
            _plan_missing_package(plan, entry, chosen)
            continue
        cls = plugins.models.get(entry.type).cls
        ident = LazyIdentity(entry, cls, config, stacks)
        if identify_all:
            try:
                ident.identify()
            except Exception:  # kept in ident.found: plan_model decides the cells from it
                pass
        work = plan_model(entry, cls, chosen, memo, config, identify=ident.identify, stacks=stacks)
        found, model = ident.found, ident.model
        model_plan = ModelPlan.of(found, UNITS.get(work.protocol.name, "pairs"))
        model_row = memo.model_row(work.fingerprint) if work.fingerprint else None
        unknown = [c for c in work.cells if _identity_unknown(c, found)]
        for cell in work.cells:
            plan.cells.append(_cell_row(work, cell, found, model, memo, model_row, table))
        job = work.protocol.missing(unknown, memo, None, 0) if unknown else work.job
        if found.fingerprint or unknown or found.not_identified:
            model_plan.work = job.n_pairs
            _price(model_plan, cls, model, job)
            set_gpu(model_plan, table.estimate(entry, cls, work.protocol.name, job), bool(unknown))
        plan.models.append(model_plan)
    plan.benchmarks = [benchmark_record(b, prepared[b.id]) for b in benchmarks]
    plan.gpu = gpu_total(plan.models)
    plan.constraints = str(stacks.constraints) if stacks.constraints else None
    classes = [plugins.models.get(e.type).cls for e in models if not e.unavailable]
    plan.off_pin = [d.record() for d in grid_off_pin(classes, stacks)]
    return plan


def _plan_missing_package(plan: GridPlan, entry: ModelEntry, chosen: list[Any]) -> None:
    """Plan an entry whose package is not installed: every cell ``unavailable`` with the install line."""
    work = plan_unavailable(entry, chosen)
    for cell in work.cells:
        plan.cells.append(
            CellRow(entry.id, cell.prepared.entry.id, cell.status or Status.UNAVAILABLE, reason=cell.error)
        )
    found = ModelFingerprint(entry.id, entry.type, None, not_identified=entry.unavailable)
    plan.models.append(ModelPlan.of(found, "pairs"))


def _identity_unknown(cell: CellPlan, found: ModelFingerprint) -> bool:
    """A cell that only the unknown identity kept from being planned (its benchmark loaded: a cell
    that its benchmark decided is not one, even where the two reasons read the same)."""
    if not found.unknown or not cell.prepared.ready:
        return False
    return cell.status == Status.UNAVAILABLE and cell.error == found.unknown


def _cell_row(
    work: ModelWork,
    cell: CellPlan,
    found: ModelFingerprint,
    model: Model | None,
    store: Any,
    model_row: int | None,
    table: CostTable,
) -> CellRow:
    row = CellRow(work.entry.id, cell.prepared.entry.id, "compute", unit=UNITS.get(work.protocol.name, "pairs"))
    job: Job | None = None
    if _identity_unknown(cell, found):
        # the identity (so the fingerprint, so what is stored) is unknown: at most every needed pair
        row.status, row.reason = UNKNOWN, f"identity unknown here: {found.unknown}"
        job = work.protocol.missing([cell], store, None, 0)
        row.work = job.n_pairs
        _price(row, work.cls, model, job)
    elif cell.status is not None:
        row.status, row.reason = cell.status, cell.error
    elif cell.reuse is not None:
        row.status, row.work, row.stored_status = "complete", 0, cell.reuse.status
        job = Job()  # stored: nothing to compute
        if work.cls.paid_requests:
            row.cost, row.cost_usd = "$0.0000", 0.0
    else:
        job = work.protocol.missing([cell], store, model_row, 0)
        row.work = job.n_pairs
        if not job.n_pairs:
            row.reason = "every score is stored: only the cell is built"
        _price(row, work.cls, model, job)
    if job is not None:
        set_gpu(row, table.estimate(work.entry, work.cls, work.protocol.name, job), row.status == UNKNOWN)
    return row


def _price(row: CellRow | ModelPlan, cls: type[Model], model: Model | None, job: Job) -> None:
    """Requests and estimated cost of a job for paid models (``unknown`` where not estimable)."""
    if not cls.paid_requests:
        return
    if not job.n_pairs:
        row.requests, row.input_tokens, row.output_tokens, row.cost_usd, row.cost = 0, 0, 0, 0.0, "$0.0000"
        return
    estimate = getattr(model, "estimate_usage", None)
    usage: Usage | None = None
    if estimate is not None:
        try:
            usage = estimate(job)
        except Exception:  # an estimate is advice: a plugin that cannot give one says unknown
            usage = None
    if usage is None:
        row.cost = UNKNOWN
        return
    row.requests, row.input_tokens, row.output_tokens = usage.requests, usage.input_tokens, usage.output_tokens
    if usage.cost_usd is None:
        row.cost = f"{UNKNOWN} (no prices in the entry's run section)"
    else:
        row.cost_usd, row.cost = usage.cost_usd, f"${usage.cost_usd:.4f}"


__all__ = ["CellRow", "GridPlan", "ModelPlan", "UNITS", "plan_grid"]
