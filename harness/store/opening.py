"""Creating, finishing and migrating a store so that races and kills cannot break it.

Opening reads the store's state first, without a lock: a store at the current schema is used as it
is (the common case, and the only one a read-only store allows). Anything else happens under a
lock held for one transaction: SQLite's ``BEGIN EXCLUSIVE``, PostgreSQL's transaction-level
advisory lock (``pg_advisory_xact_lock``). Inside it the state is read again, because another
process may have done the work meanwhile; then one step runs and commits with the version it
reaches: creating the tables with their ``schema_info``, or one migration step with its version.
A process killed inside a step leaves the store as the step found it (the transaction rolls back),
and the next open runs the step again. A store that an older harness left half-created (its tables
created, ``schema_info`` not yet written, every table empty) is finished, never refused forever.
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Iterator
from dataclasses import dataclass, field

from sqlalchemy import Connection, Engine, insert, inspect, literal, select, text, update

from vlc_harness.errors import StoreError
from vlc_harness.faults import fault_point
from vlc_harness.store import migrations, schema
from vlc_harness.store.base import now

LOCK_KEY = int.from_bytes(hashlib.sha256(b"vlc-harness store schema").digest()[:8], "big", signed=True)
"""The PostgreSQL advisory lock every harness takes to create or migrate a store."""
NEW_STORE = (
    "point --store at a new file or database",
    "move the file aside and point --store at a new one",
)


@dataclass
class State:
    """What a store holds before it is used: its tables, its ``schema_info`` and whether any of its
    tables holds a row."""

    tables: set[str] = field(default_factory=set)
    info: dict[str, str] = field(default_factory=dict)
    rows: bool = False

    @property
    def version(self) -> int | None:
        """The schema version of a vlc-harness store; ``None`` when it has none yet."""
        if self.info.get("app") != schema.APP_NAME:
            return None
        return int(self.info.get("schema_version", "0"))


def read_state(conn: Connection) -> State:
    """The state of the store ``conn`` is connected to."""
    tables = set(inspect(conn).get_table_names())
    info: dict[str, str] = {}
    if "schema_info" in tables:
        info = {k: v for k, v in conn.execute(select(schema.schema_info.c.key, schema.schema_info.c.value))}
    rows = False
    if info.get("app") is None:  # only a store without its schema_info is asked whether it holds rows
        ours = [schema.metadata.tables[t] for t in sorted(tables) if t in schema.metadata.tables]
        rows = any(conn.execute(select(literal(1)).select_from(t).limit(1)).first() for t in ours)
    return State(tables, info, rows)


def check(state: State, where: str) -> None:
    """Refuse, in one sentence, a store this harness must not touch."""
    app = state.info.get("app")
    if app is not None and app != schema.APP_NAME:
        raise StoreError(f"store {where} belongs to {app!r}, not {schema.APP_NAME}", hint=NEW_STORE[0])
    foreign = sorted(state.tables - set(schema.metadata.tables))
    if state.version is None and foreign:
        raise StoreError(
            f"store {where} holds tables ({', '.join(foreign[:5])}) but is not a vlc-harness store; "
            "refusing to touch it",
            hint=NEW_STORE[0],
        )
    if state.version is None and state.rows:
        raise StoreError(
            f"store {where} holds vlc-harness tables with rows but no schema_info, so its schema version is "
            "unknown; refusing to touch it",
            hint=NEW_STORE[1],
        )
    version = state.version
    if version is not None and version > schema.SCHEMA_VERSION:
        raise StoreError(
            f"store {where} has schema version {version}, newer than this harness understands "
            f"({schema.SCHEMA_VERSION})",
            hint="upgrade vlc-harness, or use another --store",
        )


def prepare(engine: Engine, where: str) -> None:
    """Bring the store to the current schema: create it, finish a half-created one, or migrate it
    a step at a time, each under the lock (the module's docstring says how)."""
    with engine.connect() as conn:
        state = read_state(conn)
    check(state, where)
    while state.version != schema.SCHEMA_VERSION:
        with locked(engine) as conn:
            state = read_state(conn)  # another process may have done it while this one waited
            check(state, where)
            if state.version is None:
                _create(conn, state)
            elif state.version < schema.SCHEMA_VERSION:
                _migrate_one(conn, state.version)
            state = read_state(conn)


def _create(conn: Connection, state: State) -> None:
    """Create the tables (only those missing: a half-created store is finished) and ``schema_info``."""
    schema.metadata.create_all(conn, checkfirst=True)
    fault_point("store.created")
    conn.execute(schema.schema_info.delete())  # a half-created store's partial rows, if any
    conn.execute(
        insert(schema.schema_info),
        [
            {"key": "app", "value": schema.APP_NAME},
            {"key": "schema_version", "value": str(schema.SCHEMA_VERSION)},
            {"key": "created_at", "value": now()},
        ],
    )


def _migrate_one(conn: Connection, version: int) -> None:
    """Run the step from ``version`` and record ``version + 1``, in the caller's transaction."""
    if version not in migrations.MIGRATIONS:
        raise StoreError(f"no migration from store schema version {version} to {version + 1}")
    migrations.MIGRATIONS[version](conn)
    fault_point("store.migrating")
    conn.execute(
        update(schema.schema_info).where(schema.schema_info.c.key == "schema_version").values(value=str(version + 1))
    )


@contextlib.contextmanager
def locked(engine: Engine) -> Iterator[Connection]:
    """A connection in a transaction that holds the store's schema lock; committed at the end of the
    block, rolled back if it raises."""
    dialect = engine.dialect.name
    if dialect == "sqlite":
        # the driver's own transaction handling off, so that BEGIN EXCLUSIVE is the transaction
        with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
            conn.exec_driver_sql("BEGIN EXCLUSIVE")
            try:
                yield conn
            except BaseException:
                conn.exec_driver_sql("ROLLBACK")
                raise
            conn.exec_driver_sql("COMMIT")
        return
    with engine.begin() as conn:
        if dialect == "postgresql":
            conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": LOCK_KEY})
        yield conn
