"""Opening, migrating, reading and writing the score store."""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy import Engine, create_engine, delete, event, func, insert, inspect, select, update
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DatabaseError, IntegrityError, OperationalError, SQLAlchemyError
from sqlalchemy.pool import StaticPool

from harness.choices import question_key
from harness.errors import ScoreError, StoreError
from harness.store import migrations, replicates, schema

SQLITE_MAGIC = b"SQLite format 3\x00"
ABSTAINED_KIND = "yes_no"
"""Question kind under which a pair-scoring model's abstentions are stored in ``answers``."""
_CHUNK = 500


def now() -> str:
    """The current UTC time in ISO 8601 (how every timestamp is stored)."""
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


@dataclass
class CellRecord:
    """The record of one (model, benchmark) evaluation.

    ``status`` is one of ``ok``, ``partial`` (``--limit`` or interrupted), ``failed``,
    ``unavailable`` (data or weights cannot be had here) and ``skipped``.
    """

    model_id: str
    benchmark_id: str
    benchmark_type: str
    status: str
    fingerprint: str = ""
    data_version: str = ""
    manifest_hash: str = ""
    n_instances: int = 0
    n_scored: int = 0
    n_failed: int = 0
    instance_limit: int | None = None
    complete: bool = False
    error: str | None = None
    metrics: list[dict[str, Any]] = field(default_factory=list)
    provenance: dict[str, Any] = field(default_factory=dict)
    run_id: int | None = None
    created_at: str = ""
    id: int | None = None
    metrics_version: str | None = None
    """What the metrics were computed under (:func:`harness.metrics.cell.metrics_version`);
    ``None`` for a v0.1 cell, which is rebuilt from its stored scores."""
    inputs_hash: str | None = None
    """sha256 of the sorted (image key, text) pairs (or question keys) the cell read."""
    replicates: dict[tuple[str, str], Any] | None = None
    """Every value's bootstrap replicates, by (metric, category); loaded only on request."""
    reused: bool = False
    """Set on a stored cell that a run reused as it was (not stored: a property of the run)."""


@dataclass(frozen=True)
class Outcome:
    """One instance of a cell: its score matrix (or its answers), or the error that kept it out."""

    instance_id: str
    category: str
    scores: list[list[float | None]] | None
    error: str | None = None
    answers: list[dict[str, Any]] | None = None


def open_store(url: str) -> Store:
    """Open (creating or migrating as needed) the store at a SQLAlchemy URL."""
    try:
        parsed = make_url(url)
    except Exception:
        raise StoreError(f"{url!r} is not a SQLAlchemy URL", hint="e.g. sqlite:////path/store.sqlite") from None
    if parsed.get_backend_name() == "sqlite" and parsed.database not in (None, "", ":memory:"):
        path = Path(parsed.database)
        if path.exists() and path.stat().st_size > 0:
            with open(path, "rb") as f:
                if f.read(16) != SQLITE_MAGIC:
                    raise StoreError(
                        f"{path} is not a SQLite database; refusing to use or overwrite it",
                        hint="point --store at another file",
                    )
        path.parent.mkdir(parents=True, exist_ok=True)
    try:
        if parsed.get_backend_name() == "sqlite" and parsed.database in (None, "", ":memory:"):
            # one shared connection, or each thread would see its own empty in-memory database
            engine = create_engine(url, poolclass=StaticPool, connect_args={"check_same_thread": False})
        else:
            engine = create_engine(url)
    except Exception as exc:
        raise StoreError(f"cannot open store {url!r}: {exc}") from None
    if engine.dialect.name == "sqlite":
        event.listen(engine, "connect", _sqlite_pragmas)
    store = Store(engine)
    store._prepare(url)
    return store


def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
    cur = dbapi_conn.cursor()
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA foreign_keys=ON")
    cur.execute("PRAGMA busy_timeout=30000")
    cur.close()


T = TypeVar("T")


def _writes(method: Callable[..., T]) -> Callable[..., T]:
    """Turn a database that cannot be written (disk full, read-only file or server, lost
    connection) into one clear :class:`StoreError`; the transaction is rolled back, so what was
    stored before stays intact."""

    @functools.wraps(method)
    def wrapper(self: Store, *args: Any, **kwargs: Any) -> T:
        try:
            return method(self, *args, **kwargs)
        except OperationalError as exc:
            reason = str(exc.orig) if exc.orig is not None else str(exc)
            where = self.engine.url.render_as_string(hide_password=True)
            raise StoreError(
                f"cannot write to the store {where}: {reason}",
                hint="free disk space or make the store writable, then rerun: stored scores are kept",
            ) from None

    return wrapper


class Store:
    """Reads and writes scores, answers, cells and runs. Use :func:`open_store` to get one."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    # -- opening -----------------------------------------------------------------------
    def _prepare(self, url: str) -> None:
        try:
            tables = set(inspect(self.engine).get_table_names())
        except DatabaseError as exc:
            raise StoreError(f"store {url!r} is unreadable or corrupt: {exc.orig}") from None
        except SQLAlchemyError as exc:
            raise StoreError(f"cannot open store {url!r}: {exc}") from None
        if not tables:
            schema.metadata.create_all(self.engine)
            with self.engine.begin() as conn:
                conn.execute(
                    insert(schema.schema_info),
                    [
                        {"key": "app", "value": schema.APP_NAME},
                        {"key": "schema_version", "value": str(schema.SCHEMA_VERSION)},
                        {"key": "created_at", "value": now()},
                    ],
                )
            return
        if "schema_info" not in tables:
            raise StoreError(
                f"store {url!r} holds tables ({', '.join(sorted(tables)[:5])}) but is not a vlc-harness "
                "store; refusing to touch it",
                hint="point --store at a new file",
            )
        info = self.info()
        if info.get("app") != schema.APP_NAME:
            raise StoreError(f"store {url!r} belongs to {info.get('app')!r}, not {schema.APP_NAME}")
        version = int(info.get("schema_version", "0"))
        if version > schema.SCHEMA_VERSION:
            raise StoreError(
                f"store {url!r} has schema version {version}, newer than this harness understands "
                f"({schema.SCHEMA_VERSION})",
                hint="upgrade vlc-harness, or use another --store",
            )
        if version < schema.SCHEMA_VERSION:
            self._migrate(version)

    def _migrate(self, version: int) -> None:
        with self.engine.begin() as conn:
            for v in range(version, schema.SCHEMA_VERSION):
                if v not in migrations.MIGRATIONS:
                    raise StoreError(f"no migration from store schema version {v} to {v + 1}")
                migrations.MIGRATIONS[v](conn)
            conn.execute(
                update(schema.schema_info)
                .where(schema.schema_info.c.key == "schema_version")
                .values(value=str(schema.SCHEMA_VERSION))
            )

    def info(self) -> dict[str, str]:
        """The ``schema_info`` key/value pairs (app name, schema version, creation date)."""
        with self.engine.connect() as conn:
            return {k: v for k, v in conn.execute(select(schema.schema_info.c.key, schema.schema_info.c.value))}

    def close(self) -> None:
        """Release database connections."""
        self.engine.dispose()

    # -- models and scores ---------------------------------------------------------------
    @_writes
    def register_model(self, fingerprint: str, model_type: str, identity: dict[str, Any]) -> int:
        """The row id of a model fingerprint, inserting it on first sight (two processes that
        register the same fingerprint at once get the same row)."""
        find = select(schema.models.c.id).where(schema.models.c.fingerprint == fingerprint)
        try:
            with self.engine.begin() as conn:
                row = conn.execute(find).first()
                if row:
                    return int(row[0])
                result = conn.execute(
                    insert(schema.models).values(
                        fingerprint=fingerprint,
                        model_type=model_type,
                        identity=json.dumps(identity, sort_keys=True),
                        created_at=now(),
                    )
                )
                return int(result.inserted_primary_key[0])
        except IntegrityError:  # the other process inserted it first
            with self.engine.connect() as conn:
                return int(conn.execute(find).scalar_one())

    def stored_pairs(self, model: int) -> set[tuple[str, str]]:
        """Every (image key, text) already scored for a model."""
        q = select(schema.scores.c.image_key, schema.scores.c.text).where(schema.scores.c.model == model)
        with self.engine.connect() as conn:
            return {(k, t) for k, t in conn.execute(q)}

    @_writes
    def add_scores(self, model: int, rows: Iterable[tuple[str, str, float]]) -> int:
        """Store a batch of scores in one transaction; a non-finite score is refused.

        Pairs already present are left as they are (the first computed score wins).
        """
        values = []
        for image_key, text, score in rows:
            score = float(score)
            if not math.isfinite(score):
                raise ScoreError(
                    f"refusing to store score {score} for image {image_key or '(blind)'} and text {text!r}"
                )
            values.append({"model": model, "image_key": image_key, "text": text, "score": score})
        if not values:
            return 0
        with self.engine.begin() as conn:
            for start in range(0, len(values), _CHUNK):
                conn.execute(self._insert_ignore(schema.scores), values[start : start + _CHUNK])
        return len(values)

    def _insert_ignore(self, table: Any) -> Any:
        name = self.engine.dialect.name
        if name == "sqlite":
            from sqlalchemy.dialects.sqlite import insert as dialect_insert
        elif name == "postgresql":
            from sqlalchemy.dialects.postgresql import insert as dialect_insert
        else:
            return insert(table).prefix_with("IGNORE") if name == "mysql" else insert(table)
        return dialect_insert(table).on_conflict_do_nothing()

    def scores_for(self, model: int, image_keys: Iterable[str] | None = None) -> dict[tuple[str, str], float]:
        """Stored scores of a model (optionally only for some image keys)."""
        q = select(schema.scores.c.image_key, schema.scores.c.text, schema.scores.c.score).where(
            schema.scores.c.model == model
        )
        out: dict[tuple[str, str], float] = {}
        with self.engine.connect() as conn:
            if image_keys is None:
                for k, t, s in conn.execute(q):
                    out[(k, t)] = s
                return out
            keys = sorted(set(image_keys))
            for start in range(0, len(keys), _CHUNK):
                chunk = keys[start : start + _CHUNK]
                for k, t, s in conn.execute(q.where(schema.scores.c.image_key.in_(chunk))):
                    out[(k, t)] = s
        return out

    # -- multiple-choice answers -------------------------------------------------------------
    def stored_answers(self, model: int) -> dict[str, int | None]:
        """Every stored answer of a model: question key -> choice (``None``: abstained)."""
        a = schema.answers.c
        with self.engine.connect() as conn:
            return {k: c for k, c in conn.execute(select(a.question_key, a.answer).where(a.model == model))}

    @_writes
    def add_answers(self, model: int, rows: Iterable[tuple[str, dict[str, Any], int | None, str]]) -> int:
        """Store answers ``(question key, question, choice or None, raw reply)`` in one transaction."""
        values = [
            {
                "model": model,
                "question_key": key,
                "question": json.dumps(question, sort_keys=True),
                "answer": choice,
                "raw": raw,
                "created_at": now(),
            }
            for key, question, choice, raw in rows
        ]
        if values:
            with self.engine.begin() as conn:
                conn.execute(self._insert_ignore(schema.answers), values)
        return len(values)

    # -- abstentions of pair-scoring models ---------------------------------------------------
    @_writes
    def add_abstentions(self, model: int, rows: Iterable[tuple[str, str, str]]) -> int:
        """Store pairs the model declined to score ``(image key, text, raw reply)``.

        They live in the ``answers`` table as yes/no questions answered with no choice (never as
        a score), keyed like any question, so a rerun does not ask them again.
        """
        return self.add_answers(
            model,
            [
                (
                    question_key(ABSTAINED_KIND, [key], [text]),
                    {"kind": ABSTAINED_KIND, "images": [key], "texts": [text]},
                    None,
                    raw,
                )
                for key, text, raw in rows
            ],
        )

    def abstained_pairs(self, model: int) -> dict[tuple[str, str], str]:
        """Pairs a model declined to score: (image key, text) -> raw reply."""
        a = schema.answers.c
        q = select(a.question, a.raw).where((a.model == model) & a.answer.is_(None))
        out: dict[tuple[str, str], str] = {}
        with self.engine.connect() as conn:
            for question, raw in conn.execute(q):
                content = json.loads(question)
                if content.get("kind") == ABSTAINED_KIND:
                    out[(content["images"][0], content["texts"][0])] = raw or ""
        return out

    # -- runs and cells --------------------------------------------------------------------
    @_writes
    def start_run(self, provenance: dict[str, Any]) -> int:
        """Record the start of a run and return its id."""
        with self.engine.begin() as conn:
            result = conn.execute(
                insert(schema.runs).values(
                    started_at=now(), status="running", provenance=json.dumps(provenance, sort_keys=True)
                )
            )
            return int(result.inserted_primary_key[0])

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
                    metrics=json.dumps(record.metrics),
                    provenance=json.dumps(record.provenance, sort_keys=True, default=str),
                    created_at=record.created_at,
                    metrics_version=record.metrics_version,
                    inputs_hash=record.inputs_hash,
                    replicates=replicates.encode(record.replicates or {}),
                )
            )
            cell_id = int(result.inserted_primary_key[0])
            rows = [
                {
                    "cell": cell_id,
                    "instance_id": o.instance_id,
                    "category": o.category,
                    "scores": json.dumps(o.scores) if o.scores is not None else None,
                    "answers": json.dumps(o.answers) if o.answers is not None else None,
                    "error": o.error,
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

    def cells_without_metrics_version(self) -> list[CellRecord]:
        """Cells whose metrics were computed by v0.1 (no metrics version): to be rebuilt."""
        c = schema.cells.c
        columns = [col for col in schema.cells.c if col.name != "replicates"]
        with self.engine.connect() as conn:
            rows = conn.execute(select(*columns).where(c.metrics_version.is_(None)).order_by(c.id)).mappings()
            return [_record(row) for row in rows]

    def outcomes(self, cell_id: int) -> Iterator[Outcome]:
        """The per-instance outcomes of a cell, in instance-id order."""
        o = schema.outcomes.c
        q = (
            select(o.instance_id, o.category, o.scores, o.error, o.answers)
            .where(o.cell == cell_id)
            .order_by(o.instance_id)
        )
        with self.engine.connect() as conn:
            for iid, cat, scores, err, answers in conn.execute(q):
                yield Outcome(
                    iid, cat, json.loads(scores) if scores else None, err, json.loads(answers) if answers else None
                )

    def stats(self) -> dict[str, Any]:
        """Row counts per table and per model (for ``vlc-harness cache stats``)."""
        m, s = schema.models.c, schema.scores.c
        with self.engine.connect() as conn:
            counts = {
                t.name: conn.execute(select(func.count()).select_from(t)).scalar_one()
                for t in (schema.models, schema.scores, schema.answers, schema.runs, schema.cells, schema.outcomes)
            }
            per_model = [
                {"fingerprint": fp[:12], "type": typ, "scores": n}
                for fp, typ, n in conn.execute(
                    select(m.fingerprint, m.model_type, func.count(s.model))
                    .select_from(schema.models.outerjoin(schema.scores, s.model == m.id))
                    .group_by(m.id)
                    .order_by(m.id)
                )
            ]
        return {"tables": counts, "models": per_model, "schema": self.info()}


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
        metrics=json.loads(row["metrics"]),
        provenance=json.loads(row["provenance"]),
        created_at=row["created_at"],
        metrics_version=row["metrics_version"],
        inputs_hash=row["inputs_hash"],
    )
