"""Opening a store is safe under races and kills (issue 38, item 4): creation and each migration
step run under a lock, re-check the version inside it and leave the old or the new schema; a
half-created store is finished; every failure is one ``StoreError`` sentence.

Several processes open a NEW store at once (today's concurrency test in
tests/store/test_store_backends.py creates the schema first, so it never saw this), and a process
is killed at a deterministic point through the test-only fault hook (``VLC_HARNESS_FAULT``,
:mod:`vlc_harness.faults`)."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa

from vlc_harness.errors import StoreError
from vlc_harness.store import open_store, schema

REPO = Path(__file__).resolve().parents[2]
FAULT_ENV = "VLC_HARNESS_FAULT"
FAULT_EXIT = 86

OPEN = textwrap.dedent(
    """
    import sys
    from vlc_harness.errors import StoreError
    from vlc_harness.store import open_store
    print("ready", flush=True)  # imported: what is left is the open itself
    for line in sys.stdin:  # one store's URL a line, given to every process at the same moment
        try:
            store = open_store(line.strip())
        except StoreError as exc:
            print(f"StoreError: {exc}", flush=True)
            continue
        print("opened", store.info()["schema_version"], flush=True)
        store.close()
    """
)


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.subprocess)])
def new_url(request, tmp_path):
    """A factory of new, empty stores' URLs on one backend."""
    counter = iter(range(1000))
    if request.param == "sqlite":
        return lambda: f"sqlite:///{tmp_path / f'store-{next(counter)}.sqlite'}"
    from vlc_harness.testing.postgres import fresh_database

    server = request.getfixturevalue("postgres_server")
    return lambda: fresh_database(server)


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != FAULT_ENV}
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    return env | extra


class Openers:
    """``n`` interpreters that import the store and wait; :meth:`open_at_once` hands each the same
    store's URL at the same moment (all of them blocked reading it, so no clock gate to wait out) and
    returns what each printed. One set of processes serves every trial of a test."""

    def __init__(self, n: int, script: Path, folder: Path) -> None:
        self.errors = [(folder / f"opener-{i}.err").open("w+") for i in range(n)]  # a file: never a full pipe
        self.procs = [
            subprocess.Popen(
                [sys.executable, str(script)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=err,
                text=True,
                env=_env(),
            )
            for err in self.errors
        ]

    def _line(self, i: int) -> str:
        return self.procs[i].stdout.readline().strip()

    def stderr(self, i: int) -> str:
        """What process ``i`` has written to its stderr so far."""
        self.errors[i].seek(0)
        return self.errors[i].read()

    def wait_ready(self) -> None:
        """Wait until every process has imported the store."""
        for i in range(len(self.procs)):
            assert self._line(i) == "ready", self.stderr(i)

    def open_at_once(self, url: str) -> list[tuple[str, str]]:
        """Each process's line (``opened VERSION`` or ``StoreError: ...``) for opening ``url``, with its stderr."""
        for p in self.procs:
            p.stdin.write(url + "\n")
        for p in self.procs:  # written first to all, then flushed: the processes wake together
            p.stdin.flush()
        return [(self._line(i), self.stderr(i)) for i in range(len(self.procs))]

    def close(self, kill: bool = False) -> list[int]:
        """End the processes (their input closed, or killed) and return their exit statuses."""
        for p in self.procs:
            if kill:
                p.kill()
            with contextlib.suppress(BrokenPipeError):
                p.stdin.close()
        codes = [p.wait(timeout=120) for p in self.procs]
        for p in self.procs:
            p.stdout.close()
        return codes


@contextlib.contextmanager
def openers(n: int, folder: Path) -> Iterator[Openers]:
    """:class:`Openers`, ready, that must exit cleanly (status 0, no traceback) at the end of the block;
    killed if the block raised."""
    script = folder / "open.py"
    script.write_text(OPEN)
    procs = Openers(n, script, folder)
    try:
        try:
            procs.wait_ready()
            yield procs
        except BaseException:
            procs.close(kill=True)
            raise
        codes = procs.close()
        errors = [procs.stderr(i) for i in range(n)]
        assert codes == [0] * n and not any("Traceback" in err for err in errors), (codes, errors)
    finally:
        for err in procs.errors:
            err.close()


def _one_schema(url: str) -> None:
    engine = sa.create_engine(url)
    try:
        tables = set(sa.inspect(engine).get_table_names())
        assert tables == set(schema.metadata.tables), tables
        with engine.connect() as conn:
            rows = conn.execute(sa.text("SELECT key, value FROM schema_info ORDER BY key")).all()
    finally:
        engine.dispose()
    assert [k for k, _ in rows] == ["app", "created_at", "schema_version"], rows
    assert dict(rows)["schema_version"] == str(schema.SCHEMA_VERSION) and dict(rows)["app"] == schema.APP_NAME


@pytest.mark.subprocess
def test_several_processes_open_a_new_store_at_once(new_url, tmp_path):
    """The issue's race: 3 of 15 SQLite trials ended in an OperationalError traceback, 3 in "belongs
    to None"; PostgreSQL gave UniqueViolation and DuplicateTable."""
    with openers(4, tmp_path) as procs:
        for _ in range(4):  # trials, each on a new store
            url = new_url()
            for line, err in procs.open_at_once(url):
                assert line == f"opened {schema.SCHEMA_VERSION}", (line, err)
                assert "Traceback" not in err, err
            _one_schema(url)


def _killed_open(url: str, point: str) -> subprocess.CompletedProcess:
    code = "import sys; from vlc_harness.store import open_store; open_store(sys.argv[1])"
    return subprocess.run(
        [sys.executable, "-c", code, url], capture_output=True, text=True, timeout=120, env=_env(**{FAULT_ENV: point})
    )


@pytest.mark.subprocess
def test_a_process_killed_right_after_creating_the_tables_leaves_a_store_the_next_open_finishes(new_url):
    url = new_url()
    killed = _killed_open(url, "store.created")
    assert killed.returncode == FAULT_EXIT, (killed.returncode, killed.stderr)
    open_store(url).close()  # today: refused forever ("belongs to None", exit 2)
    _one_schema(url)


def test_a_half_created_store_from_an_older_harness_is_finished(new_url):
    """What an older harness left when killed between ``create_all`` and writing ``schema_info``."""
    url = new_url()
    engine = sa.create_engine(url)
    schema.metadata.create_all(engine)
    engine.dispose()
    store = open_store(url)
    try:
        assert store.info()["app"] == schema.APP_NAME
    finally:
        store.close()
    _one_schema(url)


def test_tables_holding_rows_without_schema_info_are_refused_in_one_sentence(new_url):
    url = new_url()
    engine = sa.create_engine(url)
    schema.metadata.create_all(engine)
    with engine.begin() as conn:
        conn.execute(sa.insert(schema.runs).values(started_at="t", status="done", provenance="{}"))
    engine.dispose()
    with pytest.raises(StoreError) as refused:
        open_store(url)
    message = str(refused.value)
    assert "None" not in message and "\n" not in message
    assert "no schema_info" in message and "refusing to touch it" in message, message


def _as_schema_4(url: str) -> None:
    """A schema-4 store (no ``cells.reason_code``) holding one failed cell."""
    from vlc_harness.store import CellRecord

    store = open_store(url)
    record = CellRecord("m", "sugarcrepe", "sugarcrepe", "failed", fingerprint="f" * 64, manifest_hash="h")
    record.error = "some instance failed: 2 of 5"
    store.save_cell(record, [])
    with store.engine.begin() as conn:
        conn.execute(sa.text("ALTER TABLE cells DROP COLUMN reason_code"))
        conn.execute(sa.text("UPDATE schema_info SET value='4' WHERE key='schema_version'"))
    store.close()


def _version_and_columns(url: str) -> tuple[str, set[str]]:
    engine = sa.create_engine(url)
    try:
        with engine.connect() as conn:
            version = conn.execute(sa.text("SELECT value FROM schema_info WHERE key='schema_version'")).scalar_one()
        return version, {c["name"] for c in sa.inspect(engine).get_columns("cells")}
    finally:
        engine.dispose()


@pytest.mark.subprocess
def test_a_process_killed_inside_a_migration_step_leaves_the_old_schema(new_url):
    url = new_url()
    _as_schema_4(url)
    killed = _killed_open(url, "store.migrating")
    assert killed.returncode == FAULT_EXIT, (killed.returncode, killed.stderr)
    version, columns = _version_and_columns(url)
    assert version == "4" and "reason_code" not in columns  # the step's change was rolled back with it
    store = open_store(url)  # the next open runs the step again, whole
    try:
        (cell,) = store.latest_cells()
        assert cell.reason_code == "instances_failed"
    finally:
        store.close()
    assert _version_and_columns(url) == (str(schema.SCHEMA_VERSION), columns | {"reason_code"})


@pytest.mark.subprocess
def test_several_processes_migrate_one_store_at_once(new_url, tmp_path):
    """The issue: concurrent migrations printed "duplicate column name"."""
    url = new_url()
    _as_schema_4(url)
    with openers(4, tmp_path) as procs:
        for line, err in procs.open_at_once(url):
            assert line == f"opened {schema.SCHEMA_VERSION}", (line, err)
            assert "duplicate column" not in err and "Traceback" not in err, err
    store = open_store(url)
    try:
        (cell,) = store.latest_cells()
        assert cell.reason_code == "instances_failed"
    finally:
        store.close()


def _in_read_only_mount(folder: Path, command: list[str]) -> subprocess.CompletedProcess:
    """``command`` with ``folder`` bind-mounted read-only over itself, in a private mount namespace
    (``unshare``: as root, or as a user where user namespaces are allowed), else with the folder and
    its files made read-only by permissions (a user other than root)."""
    shell = f"mount --bind -o ro {folder} {folder} && exec " + " ".join(f"'{c}'" for c in command)
    probe = subprocess.run(["unshare", "-rm", "true"], capture_output=True)
    if probe.returncode == 0:
        return subprocess.run(["unshare", "-rm", "sh", "-c", shell], capture_output=True, text=True, timeout=120)
    assert os.geteuid() != 0, "neither a mount namespace nor permissions can make a folder read-only here"
    for path in [*folder.iterdir(), folder]:
        path.chmod(0o555 if path.is_dir() else 0o444)
    try:
        return subprocess.run(command, capture_output=True, text=True, timeout=120)
    finally:
        for path in [folder, *folder.iterdir()]:
            path.chmod(0o755 if path.is_dir() else 0o644)


@pytest.mark.slow  # over a second: the full suite's
def test_a_store_on_a_read_only_mount_says_it_is_read_only(tmp_path):
    folder = tmp_path / "mounted"
    folder.mkdir()
    url = f"sqlite:///{folder / 'store.sqlite'}"
    open_store(url).close()
    shutil.copy(folder / "store.sqlite", tmp_path / "before.sqlite")
    out = _in_read_only_mount(folder, [sys.executable, "-m", "vlc_harness", "show", "--store", url])
    assert out.returncode == 2, (out.stdout, out.stderr)
    assert "read-only" in out.stderr and "unreadable or corrupt" not in out.stderr, out.stderr
    assert "Traceback" not in out.stderr
    assert (folder / "store.sqlite").read_bytes() == (tmp_path / "before.sqlite").read_bytes()
