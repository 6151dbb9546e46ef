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


def read_only_reason(url: URL) -> str | None:
    """Why a SQLite store at ``url`` cannot be written (``None``: it can, or it is no SQLite file):
    its file system is mounted read-only, or its file or folder denies writing. SQLite writes beside
    a database even to read it (the write-ahead log's ``-wal`` and ``-shm`` files)."""
    import os

    target = sqlite_file(url)
    if target is None or target.path is None:
        return None
    path = target.path.absolute()
    folder = path.parent
    try:
        read_only_mount = bool(os.statvfs(folder).f_flag & os.ST_RDONLY)
    except OSError:
        return None
    if read_only_mount:
        return f"{folder} is on a read-only file system"
    if not os.access(folder, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        return f"this user may not write {path if path.exists() else folder}"
    return None


def read_only_hint(url: URL) -> str:
    """What to do about a read-only SQLite store."""
    target = sqlite_file(url)
    path = target.path.absolute() if target is not None and target.path is not None else "PATH"
    return (
        f"copy it to a writable folder, or read it as it is with --store 'sqlite:///file:{path}?immutable=1&uri=true' "
        "(nothing can be written to it then)"
    )
