"""``vlc-harness plan``: what a run of the selected grid would do, computing nothing.

The run path's own planning (:func:`vlc_harness.run.prepare.prepare`, then
:func:`vlc_harness.run.plan.plan_model`) decides each cell against the store, opened read-only: a
cell is ``complete`` (stored and reused as it is), ``compute`` (with the pairs, texts or
questions it lacks), ``unknown`` (the model's identity cannot be had here, so neither can its
stored cells: the work shown is an upper bound), or ``unavailable``, ``skipped``, ``failed`` as a
run would record it. API models that can estimate their requests (``estimate_usage(job)``) and
whose entry has prices get an estimated cost; others say ``unknown``. Every cell and model gets an
estimate of its GPU time (:mod:`vlc_harness.run.gpucost`), labelled measured or estimated.

Data availability is decided first: a model is identified (which may import its library and
probe the hub) only when a cell of it can run here, unless ``identify_all`` asks for every
fingerprint (``plan --diff`` does). A model whose every cell is decided without it (its
benchmarks' data is missing, or it is skipped) keeps the benchmarks' reasons and shows no
fingerprint.
"""

from __future__ import annotations

import copy
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vlc_harness.cli.planview_gpu import gpu_total, set_gpu
from vlc_harness.cli.planview_grid import UNKNOWN, LazyIdentity, ModelIdentity, benchmark_record, grid_record
from vlc_harness.config import RunConfig
from vlc_harness.errors import StoreError
from vlc_harness.models import Model, Usage
from vlc_harness.plugins import Plugins
from vlc_harness.registry import BenchmarkEntry, ModelEntry
from vlc_harness.run.gpucost import CostTable, cost_table
from vlc_harness.run.jobs import Job
from vlc_harness.run.plan import CellPlan, ModelRun, plan_model, plan_unavailable
from vlc_harness.run.prepare import prepare
from vlc_harness.store import Store, open_store

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
    """``measured``, ``estimated``, ``none`` (no GPU work) or ``unknown`` (:mod:`vlc_harness.run.gpucost`)."""
    gpu_basis: str | None = None


@dataclass
class ModelPlan:
    """One model: its fingerprint (or ``unknown``) and its whole missing work (shared pairs once)."""

    id: str
    type: str
    fingerprint: str
    unknown: str | None
    work: int | None
    unit: str
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
    """Why no fingerprint was computed (no cell of the model can run here), else ``None``."""


@dataclass
class GridPlan:
    """The plan of a grid: models, cells, and what a diff compares (:func:`grid_record`)."""

    models: list[ModelPlan] = field(default_factory=list)
    cells: list[CellRow] = field(default_factory=list)
    grid: dict[str, Any] = field(default_factory=dict)
    store_note: str | None = None
    gpu: dict[str, Any] = field(default_factory=dict)
    """The night's GPU time (:func:`~vlc_harness.cli.planview_gpu.gpu_total`)."""


def read_only_store(url: str) -> tuple[Store, str | None]:
    """The store at ``url`` for reading only, and a note when it is planned as empty.

    A SQLite file is opened with ``mode=ro``; a missing file is not created (an empty in-memory
    store stands in); a server store is read in read-only transactions. A store of an older
    schema would need migrating, which only a run does: it is planned as empty, with a note.
    """
    from sqlalchemy import create_engine, inspect
    from sqlalchemy.engine import make_url

    from vlc_harness.store.location import sqlite_file
    from vlc_harness.store.schema import APP_NAME, SCHEMA_VERSION

    try:
        parsed = make_url(url)
    except Exception:
        raise StoreError(f"{url!r} is not a SQLAlchemy URL", hint="e.g. sqlite:////path/store.sqlite") from None
    location = sqlite_file(parsed)
    if location is not None:
        path = location.path  # a ``file:`` URI read as SQLite reads it
        if path is None or not path.is_file() or not path.stat().st_size:
            return _empty(), f"no store at {url}: every cell is planned from scratch"
        # no -wal file: nothing is being written, and immutable=1 leaves no -shm/-wal files behind
        # (a read-only connection to a WAL database otherwise creates them)
        live = Path(f"{path}-wal").exists()
        uri = path.resolve().as_uri() + ("?mode=ro" if live else "?immutable=1")
        engine = create_engine("sqlite://", creator=lambda: sqlite3.connect(uri, uri=True, check_same_thread=False))
    else:
        read_only = {"options": "-c default_transaction_read_only=on"}
        engine = create_engine(url, connect_args=read_only if parsed.get_backend_name() == "postgresql" else {})
    where = parsed.render_as_string(hide_password=True)
    try:
        tables = set(inspect(engine).get_table_names())
    except Exception as exc:
        raise StoreError(f"cannot read store {where}: {exc}") from None
    if not tables:
        engine.dispose()
        return _empty(), f"the store {where} is empty: every cell is planned from scratch"
    store = Store(engine)
    info = store.info() if "schema_info" in tables else {}
    if info.get("app") != APP_NAME:
        raise StoreError(f"store {where} is not a vlc-harness store", hint="point --store at a vlc-harness store")
    version = int(info.get("schema_version", "0"))
    if version > SCHEMA_VERSION:
        raise StoreError(f"store {where} has schema version {version}, newer than this harness ({SCHEMA_VERSION})")
    if version < SCHEMA_VERSION:
        store.close()
        note = f"the store {where} has schema {version} (a run migrates it to {SCHEMA_VERSION}): planned as empty"
        return _empty(), note
    return store, None


def _empty() -> Store:
    return open_store("sqlite://")


class _Memo:
    """The store with each model's stored keys read once, however many cells ask."""

    CACHED = ("stored_pairs", "abstained_pairs", "stored_answers")

    def __init__(self, store: Store) -> None:
        self._store = store
        self._memo: dict[tuple[str, Any], Any] = {}

    def __getattr__(self, name: str) -> Any:
        method = getattr(self._store, name)
        if name not in self.CACHED:
            return method

        def cached(model_row: Any) -> Any:
            key = (name, model_row)
            if key not in self._memo:
                self._memo[key] = method(model_row)
            return copy.copy(self._memo[key])  # callers may add to what they get

        return cached


def plan_grid(
    plugins: Plugins,
    store: Store,
    models: list[ModelEntry],
    benchmarks: list[BenchmarkEntry],
    config: RunConfig,
    identify_all: bool = False,
    costs: CostTable | None = None,
) -> GridPlan:
    """Plan every (model, benchmark) cell as a run with ``config`` would (its data root and limit;
    each model built with it), without computing or storing anything.

    Benchmarks are prepared first; a model is identified only when one of its cells can run, or
    for every model with ``identify_all``. GPU time is estimated from ``costs`` (the cost table
    beside :mod:`vlc_harness.run.gpucost` by default).
    """
    prepared = {b.id: prepare(b, plugins.benchmarks, config.data_root, config.limit) for b in benchmarks}
    chosen = [prepared[b.id] for b in benchmarks]
    memo: Any = _Memo(store)
    table = costs or cost_table()
    plan = GridPlan()
    identities = []
    for entry in models:
        if entry.unavailable:  # its type's package is listed but not installed
            identities.append(_plan_missing_package(plan, entry, chosen))
            continue
        cls = plugins.models.get(entry.type).cls
        ident = LazyIdentity(entry, cls, config)
        if identify_all:
            try:
                ident.identify()
            except Exception:  # kept in ident.found: plan_model decides the cells from it
                pass
        run = plan_model(entry, cls, chosen, memo, config, ident)  # type: ignore[arg-type]
        found, model = ident.found, ident.model
        identities.append(found)
        unit = UNITS.get(run.protocol.name, "pairs")
        fingerprint = found.fingerprint or ("-" if found.not_identified else UNKNOWN)
        model_plan = ModelPlan(entry.id, entry.type, fingerprint, found.unknown, None, unit)
        model_plan.not_identified = found.not_identified
        model_row = memo.model_row(run.fingerprint) if run.fingerprint else None
        unknown = [c for c in run.cells if _identity_unknown(c, found)]
        for cell in run.cells:
            plan.cells.append(_cell_row(run, cell, found, model, memo, model_row, table))
        job = run.protocol.missing(unknown, memo, None, 0) if unknown else run.job
        if found.fingerprint or unknown or found.not_identified:
            model_plan.work = job.n_pairs
            _price(model_plan, cls, model, job)
            set_gpu(model_plan, table.estimate(entry, cls, run.protocol.name, job), bool(unknown))
        plan.models.append(model_plan)
    records = [benchmark_record(b, prepared[b.id]) for b in benchmarks]
    plan.grid = grid_record(identities, records)
    plan.gpu = gpu_total(plan.models)
    return plan


def _plan_missing_package(plan: GridPlan, entry: ModelEntry, chosen: list[Any]) -> ModelIdentity:
    """Plan an entry whose package is not installed: every cell ``unavailable`` with the install line."""
    run = plan_unavailable(entry, chosen)
    found = ModelIdentity(entry.id, entry.type, "", not_identified=entry.unavailable)
    for cell in run.cells:
        plan.cells.append(CellRow(entry.id, cell.prepared.entry.id, cell.status or "unavailable", reason=cell.error))
    model_plan = ModelPlan(entry.id, entry.type, "-", None, None, "pairs")
    model_plan.not_identified = entry.unavailable
    plan.models.append(model_plan)
    return found


def _identity_unknown(cell: CellPlan, found: ModelIdentity) -> bool:
    """A cell that only the unknown identity kept from being planned (its data is here)."""
    return bool(found.unknown) and cell.status == "unavailable" and cell.error == found.unknown


def _cell_row(
    run: ModelRun,
    cell: CellPlan,
    found: ModelIdentity,
    model: Model | None,
    store: Any,
    model_row: int | None,
    table: CostTable,
) -> CellRow:
    row = CellRow(run.entry.id, cell.prepared.entry.id, "compute", unit=UNITS.get(run.protocol.name, "pairs"))
    job: Job | None = None
    if _identity_unknown(cell, found):
        # the identity (so the fingerprint, so what is stored) is unknown: at most every needed pair
        row.status, row.reason = UNKNOWN, f"identity unknown here: {found.unknown}"
        job = run.protocol.missing([cell], store, None, 0)
        row.work = job.n_pairs
        _price(row, run.cls, model, job)
    elif cell.status is not None:
        row.status, row.reason = cell.status, cell.error
    elif cell.reuse is not None:
        row.status, row.work, row.stored_status = "complete", 0, cell.reuse.status
        job = Job()  # stored: nothing to compute
        if run.cls.paid_requests:
            row.cost, row.cost_usd = "$0.0000", 0.0
    else:
        job = run.protocol.missing([cell], store, model_row, 0)
        row.work = job.n_pairs
        if not job.n_pairs:
            row.reason = "every score is stored: only the cell is built"
        _price(row, run.cls, model, job)
    if job is not None:
        set_gpu(row, table.estimate(run.entry, run.cls, run.protocol.name, job), row.status == UNKNOWN)
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


def plan_json(plan: GridPlan) -> dict[str, Any]:
    """The plan as JSON (``vlc-harness plan --format json``)."""
    from dataclasses import asdict

    return {
        "store_note": plan.store_note,
        "models": [asdict(m) for m in plan.models],
        "cells": [asdict(c) for c in plan.cells],
        "gpu": plan.gpu,
        "grid": plan.grid,
    }


def work_text(work: int | None, unit: str, status: str) -> str:
    """``1,234 pairs``, ``<= 1,234 pairs`` for an unknown identity, or ``-``."""
    if work is None:
        return "-"
    return f"{'<= ' if status == UNKNOWN else ''}{work:,} {unit}"


__all__ = ["CellRow", "GridPlan", "ModelPlan", "plan_grid", "plan_json", "read_only_store", "work_text"]
