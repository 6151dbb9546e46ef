"""Runs, cells and their per-instance outcomes and replicates."""

from __future__ import annotations

import json
from collections.abc import Collection, Iterator, Sequence
from typing import Any

from sqlalchemy import Engine, delete, insert, select, update
from sqlalchemy.exc import IntegrityError

from vlc_harness.records import CellRecord, Outcome
from vlc_harness.store import replicates, schema
from vlc_harness.store.base import _writes, inserted_id, now

_CHUNK = 500
_DECODE = 10_000
"""Outcomes decoded together when read (their JSON texts joined into one array)."""


class CellRows:
    """The store's run and cell tables (mixed into :class:`~vlc_harness.store.store.Store`)."""

    engine: Engine

    @_writes
    def start_run(self, provenance: dict[str, Any]) -> int:
        """Record the start of a run and return its id."""
        with self.engine.begin() as conn:
            result = conn.execute(
                insert(schema.runs).values(
                    started_at=now(), status="running", provenance=json.dumps(provenance, sort_keys=True)
                )
            )
            return inserted_id(result)

    @_writes
    def finish_run(self, run_id: int, status: str, extra: dict[str, Any] | None = None) -> None:
        """Record the end of a run; ``extra`` (API usage, the cost limit) joins its provenance."""
        values: dict[str, Any] = {"finished_at": now(), "status": status}
        with self.engine.begin() as conn:
            if extra:
                row = conn.execute(select(schema.runs.c.provenance).where(schema.runs.c.id == run_id)).first()
                provenance = json.loads(row[0]) if row else {}
                provenance.update(extra)
                values["provenance"] = json.dumps(provenance, sort_keys=True, default=str)
            conn.execute(update(schema.runs).where(schema.runs.c.id == run_id).values(**values))

    def run_provenance(self, run_id: int) -> dict[str, Any]:
        """The provenance recorded for a run."""
        with self.engine.connect() as conn:
            row = conn.execute(select(schema.runs).where(schema.runs.c.id == run_id)).mappings().first()
        if row is None:
            return {}
        out = json.loads(row["provenance"])
        out.update(started_at=row["started_at"], finished_at=row["finished_at"], run_status=row["status"])
        return out

    @_writes
    def save_cell(self, record: CellRecord, outcomes: list[Outcome]) -> int:
        """Write a cell record and its per-instance outcomes, replacing an earlier record of the same key."""
        c = schema.cells.c
        key = (
            (c.model_id == record.model_id)
            & (c.fingerprint == record.fingerprint)
            & (c.benchmark_id == record.benchmark_id)
            & (c.manifest_hash == record.manifest_hash)
        )
        record.created_at = now()
        for attempt in range(5):
            try:
                return self._replace_cell(key, record, outcomes)
            except IntegrityError:
                # another process saved the same cell between our delete and insert: the last
                # writer wins, as for a sequential rerun
                if attempt == 4:
                    raise
        raise AssertionError("unreachable")

    def _replace_cell(self, key: Any, record: CellRecord, outcomes: list[Outcome]) -> int:
        c = schema.cells.c
        with self.engine.begin() as conn:
            old = [r[0] for r in conn.execute(select(c.id).where(key))]
            if old:
                conn.execute(delete(schema.outcomes).where(schema.outcomes.c.cell.in_(old)))
                conn.execute(delete(schema.cells).where(c.id.in_(old)))
            result = conn.execute(
                insert(schema.cells).values(
                    run_id=record.run_id,
                    model_id=record.model_id,
                    fingerprint=record.fingerprint,
                    benchmark_id=record.benchmark_id,
                    benchmark_type=record.benchmark_type,
                    data_version=record.data_version,
                    manifest_hash=record.manifest_hash,
                    n_instances=record.n_instances,
                    n_scored=record.n_scored,
                    n_failed=record.n_failed,
                    instance_limit=record.instance_limit,
                    complete=record.complete,
                    status=record.status,
                    error=record.error,
                    reason_code=record.reason_code,
                    metrics=json.dumps(record.metrics),
                    provenance=json.dumps(record.provenance, sort_keys=True, default=str),
                    created_at=record.created_at,
                    metrics_version=record.metrics_version,
                    inputs_hash=record.inputs_hash,
                    replicates=replicates.encode(record.replicates or {}),
                )
            )
            cell_id = inserted_id(result)
            rows = [
                {
                    "cell": cell_id,
                    "instance_id": o.instance_id,
                    "category": o.category,
                    "scores": json.dumps(o.scores) if o.scores is not None else None,
                    "answers": json.dumps(o.answers) if o.answers is not None else None,
                    "error": o.error,
                    "text_scores": json.dumps(o.text_scores) if o.text_scores is not None else None,
                }
                for o in outcomes
            ]
            for start in range(0, len(rows), _CHUNK):
                conn.execute(insert(schema.outcomes), rows[start : start + _CHUNK])
        record.id = cell_id
        return cell_id

    def latest_cells(self, include_incomplete: bool = True, with_replicates: bool = False) -> list[CellRecord]:
        """The most recent cell record of each (model id, benchmark id); ``with_replicates``
        loads every value's bootstrap replicates too."""
        c = schema.cells.c
        columns = [col for col in schema.cells.c if col.name != "replicates"]
        with self.engine.connect() as conn:
            rows = list(conn.execute(select(*columns).order_by(c.id)).mappings())
        latest: dict[tuple[str, str], CellRecord] = {}
        for row in rows:
            record = _record(row)
            latest[(record.model_id, record.benchmark_id)] = record
        cells = sorted(latest.values(), key=lambda r: (r.benchmark_id, r.model_id))
        cells = [r for r in cells if include_incomplete or r.complete]
        if with_replicates:
            for record in cells:
                assert record.id is not None
                record.replicates = self.replicates(record.id)
        return cells

    def replicates(self, cell_id: int) -> dict[tuple[str, str], Any]:
        """A cell's bootstrap replicates by (metric, category) (empty for a v0.1 cell)."""
        c = schema.cells.c
        with self.engine.connect() as conn:
            blob = conn.execute(select(c.replicates).where(c.id == cell_id)).scalar()
        return replicates.decode(blob)

    def stored_cell(self, model_id: str, fingerprint: str, benchmark_id: str, manifest_hash: str) -> CellRecord | None:
        """The stored cell of this key (without replicates), or ``None``."""
        c = schema.cells.c
        key = (
            (c.model_id == model_id)
            & (c.fingerprint == fingerprint)
            & (c.benchmark_id == benchmark_id)
            & (c.manifest_hash == manifest_hash)
        )
        columns = [col for col in schema.cells.c if col.name != "replicates"]
        with self.engine.connect() as conn:
            row = conn.execute(select(*columns).where(key).order_by(c.id.desc())).mappings().first()
        return _record(row) if row else None

    @_writes
    def update_metrics(
        self, cell_id: int, metrics: list[dict[str, Any]], reps: dict[tuple[str, str], Any], metrics_version: str
    ) -> None:
        """Replace a cell's metrics and replicates in place (a rebuild from its stored scores)."""
        c = schema.cells.c
        with self.engine.begin() as conn:
            conn.execute(
                update(schema.cells)
                .where(c.id == cell_id)
                .values(
                    metrics=json.dumps(metrics), replicates=replicates.encode(reps), metrics_version=metrics_version
                )
            )

    def model_cells(self, model_id: str, fingerprints: Collection[str] = ()) -> list[CellRecord]:
        """Every stored cell (each version, without replicates) of ``model_id`` or on one of
        ``fingerprints`` (whatever its model id), in the order they were saved."""
        c = schema.cells.c
        columns = [col for col in schema.cells.c if col.name != "replicates"]
        where = c.model_id == model_id
        if fingerprints:
            where = where | c.fingerprint.in_(sorted(fingerprints))
        with self.engine.connect() as conn:
            return [_record(row) for row in conn.execute(select(*columns).where(where).order_by(c.id)).mappings()]

    def outcomes(self, cell_id: int) -> Iterator[Outcome]:
        """The per-instance outcomes of a cell, in instance-id order."""
        o = schema.outcomes.c
        q = (
            select(o.instance_id, o.category, o.scores, o.error, o.answers, o.text_scores)
            .where(o.cell == cell_id)
            .order_by(o.instance_id)
        )
        with self.engine.connect() as conn:
            result = conn.execute(q)
            try:
                # the driver's own row tuples: a result row object per outcome cost about as much as its decoding
                rows = result.cursor.fetchall()
            finally:
                result.close()
        for start in range(0, len(rows), _DECODE):
            ids, categories, scores, errors, answers, texts = zip(*rows[start : start + _DECODE])
            yield from map(Outcome, ids, categories, _decoded(scores), errors, _decoded(answers), _decoded(texts))


def _decoded(texts: Sequence[str | None]) -> list[Any]:
    """Each stored JSON text decoded (``None`` for none), in one ``json.loads`` for all of them: a call per
    text cost more than the decoding itself on a cell of small score matrices."""
    present = [text for text in texts if text]
    if not present:
        return [None] * len(texts)
    values = json.loads("[" + ",".join(present) + "]")
    if len(values) != len(present):  # a text that is not one JSON value: decode each, which raises as it did
        values = [json.loads(text) for text in present]
    if len(present) == len(texts):
        return values
    found = iter(values)
    return [next(found) if text else None for text in texts]


def _record(row: Any) -> CellRecord:
    return CellRecord(
        id=row["id"],
        run_id=row["run_id"],
        model_id=row["model_id"],
        fingerprint=row["fingerprint"],
        benchmark_id=row["benchmark_id"],
        benchmark_type=row["benchmark_type"],
        data_version=row["data_version"],
        manifest_hash=row["manifest_hash"],
        n_instances=row["n_instances"],
        n_scored=row["n_scored"],
        n_failed=row["n_failed"],
        instance_limit=row["instance_limit"],
        complete=bool(row["complete"]),
        status=row["status"],
        error=row["error"],
        reason_code=row["reason_code"],
        metrics=json.loads(row["metrics"]),
        provenance=json.loads(row["provenance"]),
        created_at=row["created_at"],
        metrics_version=row["metrics_version"],
        inputs_hash=row["inputs_hash"],
    )
