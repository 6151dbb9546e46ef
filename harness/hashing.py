"""sha256 of files, hashed in parallel and cached per machine by (real path, size, mtime_ns, inode).

Image references and local checkpoints are identified by the sha256 of their bytes. Hashing
1,560 COCO images takes about a second; the cache (a small SQLite file in the user cache dir,
machine-local on purpose: paths mean nothing on another machine, so it is never in a store that
several machines share) makes it free afterwards. A file replaced in place gets a new inode or
mtime and is hashed again.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import threading
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from vlc_harness.paths import cache_dir

_CHUNK = 1 << 20
_lock = threading.Lock()
_conn: sqlite3.Connection | None = None
_conn_path: Path | None = None


def _digest(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(_CHUNK):
            h.update(chunk)
    return h.hexdigest()


def _db() -> sqlite3.Connection | None:
    global _conn, _conn_path
    path = cache_dir() / "file_hashes.sqlite"
    if _conn is not None and _conn_path == path:
        return _conn
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(path, check_same_thread=False, timeout=30)
        conn.execute(
            "CREATE TABLE IF NOT EXISTS file_hashes_v2 (path TEXT PRIMARY KEY, size INTEGER, "
            "mtime_ns INTEGER, inode INTEGER, sha256 TEXT)"
        )
    except sqlite3.Error:
        return None  # an unwritable cache only costs speed
    _conn, _conn_path = conn, path
    return conn


def sha256_file(path: Path) -> str:
    """sha256 hex digest of a file's bytes (cached by real path, size, mtime and inode)."""
    return sha256_files([path])[Path(path)]


def sha256_files(paths: Iterable[Path], threads: int | None = None) -> dict[Path, str]:
    """sha256 of many files; cached entries are reused, the rest hashed in parallel (a thread per
    core, up to 32: hashlib releases the GIL).

    Missing files raise :class:`FileNotFoundError` naming the first missing path.
    """
    paths = [Path(p) for p in paths]
    stats = {p: os.stat(p) for p in paths}
    result: dict[Path, str] = {}
    todo: list[Path] = []
    with _lock:
        db = _db()
        for p in paths:
            st = stats[p]
            row = None
            if db is not None:
                row = db.execute(
                    "SELECT sha256 FROM file_hashes_v2 WHERE path=? AND size=? AND mtime_ns=? AND inode=?",
                    (str(p.resolve()), st.st_size, st.st_mtime_ns, st.st_ino),
                ).fetchone()
            if row:
                result[p] = row[0]
            else:
                todo.append(p)
    if todo:
        with ThreadPoolExecutor(max_workers=threads or min(32, os.cpu_count() or 4)) as pool:
            digests = list(pool.map(_digest, todo))
        with _lock:
            db = _db()
            for p, d in zip(todo, digests):
                result[p] = d
            if db is not None:
                db.executemany(
                    "INSERT OR REPLACE INTO file_hashes_v2 VALUES (?, ?, ?, ?, ?)",
                    [
                        (str(p.resolve()), stats[p].st_size, stats[p].st_mtime_ns, stats[p].st_ino, d)
                        for p, d in zip(todo, digests)
                    ],
                )
                db.commit()
    return result


def sha256_tree(folder: Path) -> str:
    """sha256 over the relative names and sha256 of every file under ``folder`` (recursive), so a
    checkpoint folder is identified by its content wherever it lies."""
    root = Path(folder)
    files = sorted(p for p in root.rglob("*") if p.is_file())
    digests = sha256_files(files)
    parts = [f"{p.relative_to(root).as_posix()}=sha256:{digests[p]}" for p in files]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()
