"""Where a SQLite store URL puts its database file, read as SQLite itself reads it.

A plain ``sqlite:///path`` names a file (relative to the working directory). With ``uri=true`` in
the query, SQLAlchemy hands SQLite a URI filename (``file:/abs/x.sqlite?mode=ro``): SQLite then
drops the ``file:`` scheme and an empty or ``localhost`` authority, decodes ``%XX`` escapes, and
reads ``mode`` (``ro``, ``rw``, ``rwc``, ``memory``) and ``immutable`` from the query
(https://www.sqlite.org/uri.html). Only a database SQLite may create (``rwc``, the default) gets
its folder made for it; ``mode=ro``, ``rw`` and ``immutable=1`` open an existing file or fail.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote

from sqlalchemy.engine import URL

from vlc_harness.errors import StoreError

MEMORY = ":memory:"
_TRUE = {"1", "true", "yes", "on"}


@dataclass(frozen=True)
class SqliteFile:
    """The database file a SQLite URL opens: its path (``None``: an in-memory database) and whether
    opening may create it."""

    path: Path | None
    creates: bool


def sqlite_file(url: URL) -> SqliteFile | None:
    """The database file of a SQLite ``url`` (``None`` for another backend)."""
    if url.get_backend_name() != "sqlite":
        return None
    database = url.database or ""
    if database in ("", MEMORY):
        return SqliteFile(None, creates=True)
    if not _flag(url, "uri") or not database.startswith("file:"):
        return SqliteFile(Path(database), creates=True)
    mode = str(url.query.get("mode", "rwc"))
    if mode == "memory":
        return SqliteFile(None, creates=True)
    path = _uri_path(database)
    if path == MEMORY:
        return SqliteFile(None, creates=True)
    return SqliteFile(Path(path), creates=mode == "rwc" and not _flag(url, "immutable"))


def _flag(url: URL, key: str) -> bool:
    value = url.query.get(key)
    if isinstance(value, tuple):
        value = value[-1]
    return str(value).lower() in _TRUE if value is not None else False


def _uri_path(database: str) -> str:
    """The file path of a SQLite URI filename (the query is already split off by SQLAlchemy)."""
    rest = database[len("file:") :].split("#", 1)[0]
    if rest.startswith("//"):
        authority, slash, path = rest[2:].partition("/")
        if authority not in ("", "localhost"):
            raise StoreError(
                f"SQLite URI {database!r} names the host {authority!r}; SQLite opens local files only",
                hint="e.g. sqlite:///file:/abs/path/store.sqlite?mode=ro&uri=true",
            )
        rest = slash + path
    return unquote(rest)
