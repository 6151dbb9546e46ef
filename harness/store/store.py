"""Opening, migrating and pruning the score store; the :class:`Store` joins its parts.

Score rows are in :mod:`vlc_harness.store.scores`, runs and cells in :mod:`vlc_harness.store.cells`, the
registries runs recorded in :mod:`vlc_harness.store.registries`; where a SQLite URL's file lies is
:mod:`vlc_harness.store.location`; creating and migrating under a lock, :mod:`vlc_harness.store.opening`.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Collection
from typing import Any

from sqlalchemy import Engine, create_engine, delete, event, func, select
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DatabaseError, OperationalError, SQLAlchemyError
from sqlalchemy.pool import StaticPool

from vlc_harness.errors import StoreError
from vlc_harness.store import opening, schema
from vlc_harness.store.base import _writes, now
from vlc_harness.store.cells import CellRecord, CellRows, Outcome
from vlc_harness.store.location import read_only_hint, read_only_reason, sqlite_file
from vlc_harness.store.registries import RegistryRows
from vlc_harness.store.scores import ABSTAINED_KIND, ScoreRows

__all__ = ["ABSTAINED_KIND", "CellRecord", "Outcome", "Store", "now", "open_store"]

SQLITE_MAGIC = b"SQLite format 3\x00"
_CHUNK = 500


def open_store(url: str) -> Store:
    """Open (creating or migrating as needed) the store at a SQLAlchemy URL."""
    try:
        parsed = make_url(url)
    except Exception:
        raise StoreError(f"{url!r} is not a SQLAlchemy URL", hint="e.g. sqlite:////path/store.sqlite") from None
    target = sqlite_file(parsed)
    if target is not None and target.path is not None:
        path = target.path
        if path.exists() and path.stat().st_size > 0:
            with open(path, "rb") as f:
                if f.read(16) != SQLITE_MAGIC:
                    raise StoreError(
                        f"{path} is not a SQLite database; refusing to use or overwrite it",
                        hint="point --store at another file",
                    )
        if target.creates:  # a read-only or must-exist database gets no folder made for it
            path.parent.mkdir(parents=True, exist_ok=True)
    try:
        if target is not None and target.path is None:
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


BUSY_TIMEOUT_S = 30.0


def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
    cur = dbapi_conn.cursor()
    cur.execute(f"PRAGMA busy_timeout={int(BUSY_TIMEOUT_S * 1000)}")
    _wal(cur)
    cur.execute("PRAGMA foreign_keys=ON")
    cur.close()


def _wal(cur: Any) -> None:
    """Switch to write-ahead logging. SQLite answers "database is locked" at once, without waiting
    for its busy timeout, while another process switches the same new file: so wait here, as long."""
    deadline = time.monotonic() + BUSY_TIMEOUT_S
    while True:
        try:
            cur.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            busy = getattr(exc, "sqlite_errorcode", sqlite3.SQLITE_BUSY) & 0xFF == sqlite3.SQLITE_BUSY
            if not busy or time.monotonic() > deadline:
                raise
            time.sleep(0.02)


class Store(ScoreRows, CellRows, RegistryRows):
    """Reads and writes scores, answers, cells and runs. Use :func:`open_store` to get one."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    # -- opening -----------------------------------------------------------------------
    def _prepare(self, url: str) -> None:
        """Create, finish or migrate the store (:mod:`vlc_harness.store.opening`); every failure is one
        :class:`StoreError` sentence."""
        where = repr(url)
        try:
            opening.prepare(self.engine, where)
        except StoreError:
            raise
        except DatabaseError as exc:
            reason = str(exc.orig).splitlines()[0] if exc.orig is not None else type(exc).__name__
            read_only = read_only_reason(self.engine.url)
            if read_only is not None:
                raise StoreError(
                    f"store {where} is read-only: {read_only} ({reason})", hint=read_only_hint(self.engine.url)
                ) from None
            if isinstance(exc, OperationalError) or self.engine.dialect.name != "sqlite":
                raise StoreError(f"cannot open store {where}: {reason}") from None
            raise StoreError(f"store {where} is unreadable or corrupt: {reason}") from None
        except SQLAlchemyError as exc:
            raise StoreError(f"cannot open store {where}: {str(exc).splitlines()[0]}") from None

    def info(self) -> dict[str, str]:
        """The ``schema_info`` key/value pairs (app name, schema version, creation date)."""
        with self.engine.connect() as conn:
            return {k: v for k, v in conn.execute(select(schema.schema_info.c.key, schema.schema_info.c.value))}

    def close(self) -> None:
        """Release database connections."""
        self.engine.dispose()

    def after_fork(self) -> None:
        """Make this store safe to read in a process forked from the one that opened it: the pooled connections
        the child inherited are dropped without being closed (they are the parent's: closing them in the child
        would end the parent's sessions), so the child opens its own (SQLAlchemy's "Using Connection Pools with
        Multiprocessing or os.fork()"). An in-memory SQLite store keeps its one connection: the database lives in
        the process's memory, of which the child has its own copy, and a new connection would find it empty."""
        if not isinstance(self.engine.pool, StaticPool):
            self.engine.dispose(close=False)

    @_writes
    def forget(
        self, cells: Collection[int], fingerprints: Collection[str] = (), dry_run: bool = False
    ) -> dict[str, int]:
        """Delete cells (by id) with their outcomes and, for each model fingerprint, its model row
        with its scores, text-text scores and answers, in one transaction; the rows per table
        (counted, not deleted, with ``dry_run``). Runs stay: they are the history of what ran."""
        c, o, m = schema.cells.c, schema.outcomes.c, schema.models.c
        ids = sorted(cells)
        chunks = [ids[i : i + _CHUNK] for i in range(0, len(ids), _CHUNK)]
        counts = dict.fromkeys(("cells", "outcomes", "models", "scores", "text_scores", "answers"), 0)
        owned = (schema.scores, schema.text_scores, schema.answers)
        with self.engine.begin() as conn:
            rows = [r[0] for r in conn.execute(select(m.id).where(m.fingerprint.in_(sorted(fingerprints))))]
            for chunk in chunks:
                counts["cells"] += conn.execute(select(func.count()).where(c.id.in_(chunk))).scalar_one()
                counts["outcomes"] += conn.execute(select(func.count()).where(o.cell.in_(chunk))).scalar_one()
            counts["models"] = len(rows)
            for table in owned:
                n = conn.execute(select(func.count()).where(table.c.model.in_(rows))).scalar_one() if rows else 0
                counts[table.name] = n
            if dry_run:
                return counts
            for chunk in chunks:
                conn.execute(delete(schema.outcomes).where(o.cell.in_(chunk)))
                conn.execute(delete(schema.cells).where(c.id.in_(chunk)))
            if rows:
                for table in owned:
                    conn.execute(delete(table).where(table.c.model.in_(rows)))
                conn.execute(delete(schema.models).where(m.id.in_(rows)))
        return counts

    def stats(self) -> dict[str, Any]:
        """Row counts per table and per model (for ``vlc-harness cache stats``)."""
        m, s = schema.models.c, schema.scores.c
        with self.engine.connect() as conn:
            counts = {
                t.name: conn.execute(select(func.count()).select_from(t)).scalar_one()
                for t in (
                    schema.models,
                    schema.scores,
                    schema.text_scores,
                    schema.answers,
                    schema.runs,
                    schema.cells,
                    schema.outcomes,
                )
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
