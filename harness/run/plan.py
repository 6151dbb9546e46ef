"""Planning: from registry entries and what the store holds to one :class:`ModelWork` per model.

Pure of side effects (the store is only read): a plan says, per (model, benchmark) cell, whether
it is decided already (unavailable, failed to load, skipped), reused as stored, or to be built;
and it lists the work the model is missing, as one job. No process starts here.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from vlc_harness.config import RunConfig
from vlc_harness.errors import Unavailable, model_reason_of
from vlc_harness.fingerprint import fingerprint_content, model_fingerprint
from vlc_harness.metrics.cell import bootstrap_samples, metrics_version
from vlc_harness.models import Identity, Model, build_model
from vlc_harness.reasons import Reason
from vlc_harness.registry import ModelEntry
from vlc_harness.run.jobs import Job
from vlc_harness.run.prepare import PreparedBenchmark
from vlc_harness.run.protocols import Protocol, Sink, protocol_for
from vlc_harness.status import Status
from vlc_harness.store import CellRecord, Store
from vlc_harness.types import Instance, InstanceKeys


@dataclass
class CellPlan:
    """One (model, benchmark) cell: its benchmark, the instances' image keys, and its fate.

    ``status``/``error``/``code`` (the reason code, :mod:`vlc_harness.errors`) are set for a cell
    decided while planning (``unavailable``, ``failed``, ``skipped``); ``reuse`` holds the stored
    cell when nothing it depends on changed.
    """

    prepared: PreparedBenchmark
    keys: InstanceKeys = field(default_factory=dict)
    status: Status | None = None
    error: str | None = None
    code: str | None = None
    reuse: CellRecord | None = None

    @property
    def to_build(self) -> bool:
        """True when the cell is built from stored results after the model's job."""
        return self.status is None and self.reuse is None


@dataclass
class ModelWork:
    """Everything about one model in a run: identity, its cells, the missing work, what it did."""

    entry: ModelEntry
    cls: type[Model]
    protocol: Protocol
    cells: list[CellPlan]
    live_model: Model | None = None
    identity: Identity | None = None
    content: dict[str, Any] = field(default_factory=dict)
    fingerprint: str = ""
    job: Job = field(default_factory=Job)
    model_row: int | None = None
    sink: Sink = field(default_factory=Sink)
    worker_error: str | None = None
    worker_code: str | None = None
    """The reason code of ``worker_error`` (:mod:`vlc_harness.errors`)."""
    device: str | None = None

    @property
    def label(self) -> str:
        """How progress bars and errors name the model."""
        return self.entry.id


def inputs_hash(instances: list[Instance], keys: InstanceKeys) -> str:
    """sha256 of each instance's image keys (or why it has none), in instance order.

    With the instance manifest (ids, texts, needed pairs) this names every (image, text) pair a
    cell reads, so a stored cell with the same inputs hash read the same stored scores.
    """
    h = hashlib.sha256()
    for inst in instances:
        k = keys.get(inst.id, "")
        h.update(f"{inst.id}\t{k if isinstance(k, str) else chr(31).join(k)}\n".encode())
    return h.hexdigest()


def plan_model(
    entry: ModelEntry,
    cls: type[Model],
    prepared: list[PreparedBenchmark],
    store: Store,
    config: RunConfig,
    live_model: Model | None = None,
    identify: Callable[[], Identity] | None = None,
) -> ModelWork:
    """One model's plan over the prepared benchmarks (see the module docstring).

    The model is built for ``config`` (:func:`~vlc_harness.models.build_model`) to be identified,
    unless ``live_model`` stands in for it, or ``identify`` gives its identity (a plan without a run:
    nothing is built); ``config.recompute_metrics`` reuses no stored cell.
    """
    protocol = protocol_for(cls)
    work = ModelWork(entry, cls, protocol, [CellPlan(p) for p in prepared], live_model)
    for cell in work.cells:
        p = cell.prepared
        if not _benchmark_decides(cell):
            skip = protocol.skip_reason(entry.id, p.entry.id, p.benchmark, p.instances)
            if skip:
                cell.status, cell.error, cell.code = Status.SKIPPED, skip, Reason.NOT_APPLICABLE
            else:
                _resolve_keys(cell, protocol.image_blind)
    if not any(c.status is None for c in work.cells):
        return work
    try:  # in this process, without loading the model (see Model.identify)
        if identify is None:
            model = live_model if live_model is not None else build_model(cls, entry.params, entry.run, config)
            identify = model.identify
        work.identity = identify()
    except Unavailable as exc:
        return _decide(work, Status.UNAVAILABLE, str(exc), model_reason_of(exc))
    except Exception as exc:  # a plugin's bug fails its cells, never the run
        why = f"identify failed: {type(exc).__name__}: {exc}"
        return _decide(work, Status.FAILED, why, model_reason_of(exc, Reason.MODEL_ERROR))
    work.content = fingerprint_content(entry.type, entry.params_dict(), work.identity, cls.scoring_version)
    work.fingerprint = model_fingerprint(work.content)
    for cell in work.cells:
        if cell.status is None and not config.recompute_metrics:
            cell.reuse = reusable(entry, work.fingerprint, cell, store)
    todo = [c for c in work.cells if c.to_build]
    if todo:
        model_row = store.model_row(work.fingerprint)
        work.job = protocol.missing(todo, store, model_row, int(getattr(entry.run, "batch_size", 0)))
    return work


def plan_unavailable(entry: ModelEntry, prepared: list[PreparedBenchmark]) -> ModelWork:
    """The plan of an entry whose type's package is not installed (``entry.unavailable``): a cell
    whose benchmark cannot run says so, every other cell is ``unavailable`` with the install line."""
    work = ModelWork(entry, Model, Protocol(Model), [CellPlan(p) for p in prepared])
    for cell in work.cells:
        _benchmark_decides(cell)
    return _decide(work, Status.UNAVAILABLE, entry.unavailable, Reason.PACKAGE_MISSING)


def _benchmark_decides(cell: CellPlan) -> bool:
    """Settle a cell whose benchmark cannot run (``unavailable``, or ``failed`` to load), whatever the
    model; ``False`` when the benchmark is ready and the model decides."""
    p = cell.prepared
    if p.unavailable:
        cell.status, cell.error, cell.code = Status.UNAVAILABLE, p.unavailable, p.unavailable_code
    elif p.load_error:
        cell.status, cell.error, cell.code = Status.FAILED, p.load_error, p.load_code or Reason.BENCHMARK_ERROR
    else:
        return False
    return True


def _resolve_keys(cell: CellPlan, blind: bool) -> None:
    p = cell.prepared
    if not blind:
        reason = p.resolve_images()
        if reason:
            cell.status, cell.error, cell.code = Status.UNAVAILABLE, reason, Reason.DATA_MISSING
            return
    cell.keys = {inst.id: p.instance_keys(inst, blind) for inst in p.instances}


def _decide(work: ModelWork, status: Status, error: str, code: str) -> ModelWork:
    for cell in work.cells:
        if cell.status is None:
            cell.status, cell.error, cell.code = status, error, code
    return work


def reusable(entry: ModelEntry, fingerprint: str, cell: CellPlan, store: Store) -> CellRecord | None:
    """The stored cell of this model and benchmark when nothing it depends on changed.

    Same model fingerprint, instance manifest, data version, image keys (so every score it read
    is still stored: scores are never deleted) and metrics version; a cell that failed, or is
    partial for another reason than ``--limit``, is built again.
    """
    p = cell.prepared
    assert p.benchmark is not None
    stored = store.stored_cell(entry.id, fingerprint, p.entry.id, p.manifest_hash)
    if stored is None or not stored.status.has_number or stored.error or stored.n_failed:
        return None
    if stored.instance_limit != p.limit or stored.data_version != p.data_version:
        return None
    if stored.metrics_version != metrics_version(p.benchmark, bootstrap_samples()):
        return None
    return stored if stored.inputs_hash == inputs_hash(p.instances, cell.keys) else None
