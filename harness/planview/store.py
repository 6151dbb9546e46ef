"""The store ``vlc-harness plan`` reads: opened read-only, never created, never migrated; each
model's stored keys read once."""

from __future__ import annotations

import copy
import sqlite3
from pathlib import Path
from typing import Any

from vlc_harness.errors import StoreError
from vlc_harness.store import Store, open_store


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


class MemoStore:
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


__all__ = ["MemoStore", "read_only_store"]
