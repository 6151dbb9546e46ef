"""A throwaway PostgreSQL server for tests: ``initdb`` into a temp folder, ``pg_ctl start`` on a
free port on 127.0.0.1, stopped and deleted at the end.

``initdb`` refuses to run as root, so as root the server runs as the ``postgres`` user (through
``runuser``). Needs Debian's ``postgresql`` package (``/usr/lib/postgresql/<v>/bin``) and the
``psycopg`` driver.
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path


def postgres_bin() -> Path | None:
    """The newest installed PostgreSQL server binaries folder, if any."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"), key=lambda p: int(Path(p).parts[-3]))
    if found:
        return Path(found[-1]).parent
    on_path = shutil.which("pg_ctl")
    return Path(on_path).parent if on_path else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def running_postgres() -> Iterator[str]:
    """Start a server and yield its SQLAlchemy URL (``postgresql+psycopg://...``)."""
    binaries = postgres_bin()
    if binaries is None:
        raise RuntimeError("PostgreSQL is not installed (apt-get install postgresql)")
    folder = Path(tempfile.mkdtemp(prefix="vlc-pg-"))
    data = folder / "data"
    port = _free_port()
    as_postgres: list[str] = []
    if os.geteuid() == 0:
        shutil.chown(folder, "postgres", "postgres")
        as_postgres = ["runuser", "-u", "postgres", "--"]

    def run(*args: str) -> None:
        subprocess.run([*as_postgres, *args], check=True, capture_output=True, text=True)

    run(str(binaries / "initdb"), "-D", str(data), "-U", "vlc", "--auth=trust", "-E", "UTF8", "--no-sync")
    options = f"-c listen_addresses=127.0.0.1 -c port={port} -c unix_socket_directories={folder} -c fsync=off"
    run(str(binaries / "pg_ctl"), "-D", str(data), "-o", options, "-l", str(folder / "log"), "-w", "start")
    try:
        run(str(binaries / "createdb"), "-h", "127.0.0.1", "-p", str(port), "-U", "vlc", "vlc")
        yield f"postgresql+psycopg://vlc@127.0.0.1:{port}/vlc"
    finally:
        with contextlib.suppress(subprocess.CalledProcessError):
            run(str(binaries / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "stop")
        shutil.rmtree(folder, ignore_errors=True)


def fresh_database(server_url: str) -> str:
    """Create an empty database on the server and return its URL (one per test)."""
    import uuid

    import sqlalchemy as sa

    name = f"t_{uuid.uuid4().hex[:12]}"
    engine = sa.create_engine(server_url, isolation_level="AUTOCOMMIT")
    try:
        with engine.connect() as conn:
            conn.execute(sa.text(f'CREATE DATABASE "{name}"'))
    finally:
        engine.dispose()
    return server_url.rsplit("/", 1)[0] + "/" + name
