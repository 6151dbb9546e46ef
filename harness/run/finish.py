"""A model's cells once its job is done: built from stored results, reused, or decided earlier."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from vlc_harness.fingerprint import identity_record
from vlc_harness.metrics.cell import NO_METRICS, bootstrap_samples, metrics_version
from vlc_harness.metrics.text_only import text_pair_readers
from vlc_harness.reasons import Reason
from vlc_harness.run.collect import Collected
from vlc_harness.run.plan import CellPlan, ModelWork, inputs_hash
from vlc_harness.status import Status
from vlc_harness.store import CellRecord, Store
from vlc_harness.store.store import Outcome


def finish(work: ModelWork, store: Store, run_id: int | None, stopped: str | None) -> list[tuple[CellRecord, Any]]:
    """Each cell of ``work``: ``(record, outcomes)``, outcomes ``None`` for a stored cell reused as is.

    ``stopped`` says why an API model stopped sending requests (the cost budget), if it did.
    """
    out: list[tuple[CellRecord, list[Outcome] | None]] = []
    stored: dict[str, Any] | None = None
    for cell in work.cells:
        if cell.reuse is not None:
            cell.reuse.reused = True
            out.append((cell.reuse, None))
        elif cell.status is not None:
            out.append((record(work, cell, run_id, cell.status, error=cell.error, reason_code=cell.code), []))
        else:
            if stored is None:
                stored = work.protocol.stored(store, store.model_row(work.fingerprint))
            collected = work.protocol.collect(cell, stored, work.sink, work.worker_error, work.worker_code)
            out.append((built(work, cell, run_id, collected, stopped), collected.outcomes))
    return out


def resurface(store: Store, model_id: str, reused: list[CellRecord]) -> None:
    """Save again each reused cell that a later record of its (model, benchmark) hides, so that it is the one
    ``show`` and the board read: a run in between failed or was unavailable (a malformed or missing file)
    and this one found everything it needs stored. Its values, outcomes and replicates are copied as stored."""
    if not reused:
        return
    latest: dict[str, int | None] = {}
    for stored in store.model_cells(model_id):
        latest[stored.benchmark_id] = stored.id
    for cell in reused:
        if cell.id is not None and latest.get(cell.benchmark_id) != cell.id:
            outcomes = list(store.outcomes(cell.id))
            cell.replicates = store.replicates(cell.id)
            store.save_cell(cell, outcomes)


def record(work: ModelWork, cell: CellPlan, run_id: int | None, status: Status, **kw: Any) -> CellRecord:
    """A cell record with the fields every cell has."""
    p = cell.prepared
    kw.setdefault("metrics_version", NO_METRICS)
    return CellRecord(
        model_id=work.entry.id,
        benchmark_id=p.entry.id,
        benchmark_type=p.entry.type,
        status=status,
        fingerprint=work.fingerprint,
        data_version=p.data_version,
        manifest_hash=p.manifest_hash,
        n_instances=len(p.instances),
        instance_limit=p.limit,
        run_id=run_id,
        **kw,
    )


def built(work: ModelWork, cell: CellPlan, run_id: int | None, collected: Collected, stopped: str | None) -> CellRecord:
    """The record of a cell built from the stored results."""
    p = cell.prepared
    assert p.benchmark is not None and work.identity is not None
    status, error = status_and_error(collected, work.worker_error, len(p.instances), p.limit is not None, stopped)
    if work.worker_code == Reason.INPUT_MALFORMED:  # a model's input file: its one sentence says it all
        error = work.worker_error
    code = reason_code(status, collected, work.worker_code, stopped)
    provenance = {
        "model": identity_record(work.content, work.identity),
        "fingerprint": work.fingerprint,
        "device": work.device or "none (every score was already stored)",
        "dtype": work.identity.dtype,
        "run": asdict(work.entry.run),
        "meta": work.entry.meta,
        # the board marks a model it knows only from the store (an inline spec) by this
        "image_blind": work.cls.image_blind,
        "benchmark_params": p.entry.params_dict(),
        "data_files": {f.relpath: f.sha256 for f in p.benchmark.data_files()},
    }
    if work.cls.paid_requests:
        provenance["usage"] = usage_record(work)  # this model's requests in this run, all its cells
    skipped = work.protocol.skipped_metrics(p.benchmark)
    if skipped:
        provenance["skipped_metrics"] = skipped
    elif work.protocol.text_pairs and text_pair_readers(p.benchmark.metric_families()):
        provenance["text_similarity"] = getattr(work.cls, "text_similarity", "cosine")
    return record(
        work,
        cell,
        run_id,
        status,
        n_scored=collected.n_scored,
        n_failed=len(collected.failures),
        complete=status == Status.OK,
        error=error,
        reason_code=code,
        metrics=collected.metrics,
        replicates=collected.cell.replicates,
        metrics_version=metrics_version(p.benchmark, collected.cell.samples or bootstrap_samples()),
        inputs_hash=inputs_hash(p.instances, cell.keys),
        provenance=provenance,
    )


def usage_record(work: ModelWork) -> dict[str, Any]:
    """What an API model spent in this run (``stopped`` left out: it is in the cell's error)."""
    return {k: v for k, v in asdict(work.sink.usage).items() if k != "stopped"}


def status_and_error(
    collected: Collected, worker_error: str | None, n: int, limited: bool, stopped: str | None = None
) -> tuple[Status, str | None]:
    """``failed`` when the worker failed or instances could not be scored; ``partial`` for a
    ``--limit`` or failed requests (a rerun asks them again); else ``ok``. ``stopped`` (why an API
    model stopped sending, e.g. the cost budget) leads the message."""
    lines = [stopped] if stopped else []
    if worker_error:
        lines.append(worker_error.splitlines()[0])
    if collected.failures:
        lines.append(f"{len(collected.failures)} of {n} instances failed, e.g. " + "; ".join(collected.failures[:3]))
    if collected.request_errors:
        lines.append(
            f"{len(collected.request_errors)} requests failed (counted as abstentions, not stored; a rerun asks "
            "them again), e.g. " + "; ".join(collected.request_errors[:3])
        )
    if worker_error and "\n" in worker_error:
        lines.append(worker_error)  # the full traceback, after the summary (an input error has none)
    if worker_error or collected.failures:
        status = Status.FAILED
    elif collected.request_errors or limited:
        status = Status.PARTIAL
    else:
        status = Status.OK
    return status, "\n".join(lines) or None


def reason_code(status: str, collected: Collected, worker_code: str | None, stopped: str | None) -> str | None:
    """The reason code of a built cell that is not ``ok``, in the order :func:`status_and_error`
    reports (:mod:`vlc_harness.errors`): the worker's failure, then failed instances (their one
    code, or ``Reason.INSTANCES_FAILED`` for several), then the budget, failed
    requests (likewise), and ``--limit``."""
    if status == Status.OK:
        return None
    if worker_code is not None:
        return worker_code
    if collected.failures:
        return _one(collected.failure_codes, Reason.INSTANCES_FAILED)
    if stopped:
        return Reason.BUDGET_SPENT
    if collected.request_errors:
        return _one(collected.request_codes, Reason.REQUEST_FAILED)
    return Reason.LIMITED


def _one(codes: set[str], several: str) -> str:
    return next(iter(codes)) if len(codes) == 1 else several
