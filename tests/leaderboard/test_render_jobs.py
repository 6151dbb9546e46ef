"""``render --jobs N`` (issue 41, item 8): each benchmark's work in a worker process of its own.

The site is the same bytes with 1, 2 or 3 jobs (from the store, a release frozen, and from the bundle); bad
input a worker meets is the one-line error it is in one process (same exit code, same words, no traceback);
a worker that dies fails the render with the published site untouched and no process left behind. The fork
hazards: a worker never uses the store's pooled connection or the bundle's open file offset of its parent.
"""

from __future__ import annotations

import contextlib
import json
import multiprocessing
import os
import signal
import zipfile
from pathlib import Path
from typing import Any

import pytest

from tests.leaderboard.bundle_store import cli, plugins_loaded, snapshot, store_args
from tests.leaderboard.test_bundle import FIRST, render_bundle, rewrite
from vlc_leaderboard.board_data import BundleError
from vlc_leaderboard.fanout import WorkerDied, fan_out

pytestmark = pytest.mark.slow  # the bundle's store, rendered several times


def published(folder: Path) -> dict[str, bytes]:
    """The site's files, and nothing a render left beside it."""
    leftovers = [p.name for p in folder.parent.iterdir() if p.name.startswith(f".{folder.name}.")]
    assert leftovers == []
    return snapshot(folder)


def test_one_two_and_three_jobs_render_the_same_bytes(board_bundle, tmp_path, monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", str(FIRST))
    sites = {}
    with plugins_loaded(board_bundle["plugins"]):
        for jobs in (1, 2, 3):
            site = tmp_path / f"store-{jobs}"
            out = cli("render", "--out", site, "--release", "r1", "--jobs", jobs, *store_args(board_bundle))
            assert out.exit_code == 0, out.output
            sites[f"store, {jobs} jobs"] = published(site)
    monkeypatch.setenv("VLC_HARNESS_RENDER_JOBS", "3")  # the option's environment variable
    out = cli("render", "--out", tmp_path / "bundle-3", "--release", "r1", "--bundle", board_bundle["bundle"])
    assert out.exit_code == 0, out.output
    sites["bundle, 3 jobs"] = published(tmp_path / "bundle-3")
    expected = sites["store, 1 jobs"]
    assert any(name.startswith("data/instances/shapes/img/") for name in expected)
    assert any(name.startswith("releases/r1/downloads/scores/") for name in expected)
    for name, got in sites.items():
        assert sorted(got) == sorted(expected), name
        assert [path for path in expected if got[path] != expected[path]] == [], name


@pytest.mark.subprocess
def test_bad_input_a_worker_reads_is_the_one_line_error_of_one_process(board_bundle, tmp_path):
    with zipfile.ZipFile(board_bundle["bundle"]) as zf:
        doc = json.loads(zf.read("bundle.json"))
    k = max(n for n, cell in enumerate(doc["cells"]) if cell["outcomes"])  # the last cell: after the others
    bad = rewrite(
        board_bundle["bundle"], tmp_path / "bad.zip", lambda n, d: b'{"i": 1}\n' if n == f"outcomes/{k}.jsonl" else d
    )
    done = {jobs: render_bundle(bad, tmp_path / f"site-{jobs}", FIRST, "--jobs", str(jobs)) for jobs in (1, 2)}
    for jobs, run in done.items():
        assert run.returncode == 2, run.stderr
        assert run.stderr.splitlines()[0] == f"Error: outcomes/{k}.jsonl:1: not an outcome record (keys ['i'])"
        assert "Traceback" not in run.stderr and not (tmp_path / f"site-{jobs}").exists()
    assert done[2].stderr == done[1].stderr


@pytest.mark.parametrize("where", ["export", "publish"])
def test_a_worker_that_dies_fails_the_render_and_publishes_nothing(board_bundle, tmp_path, monkeypatch, where):
    from vlc_leaderboard import export, instance_files

    site = tmp_path / "site"
    with plugins_loaded(board_bundle["plugins"]):
        out = cli("render", "--out", site, "--jobs", "2", *store_args(board_bundle))
        assert out.exit_code == 0, out.output
        before = published(site)
        parent = os.getpid()

        def dies(real: Any, bench: Any) -> Any:
            def run(*args: Any, **kwargs: Any) -> Any:
                if os.getpid() != parent and bench(args) == "bivlc":  # in a worker, never in this process
                    os.kill(os.getpid(), signal.SIGKILL)
                return real(*args, **kwargs)

            return run

        if where == "export":  # gather_column(board, col, ...)
            monkeypatch.setattr(export, "gather_column", dies(export.gather_column, lambda a: a[1].id))
        else:  # _write_benchmark(data, ...)
            monkeypatch.setattr(
                instance_files, "_write_benchmark", dies(instance_files._write_benchmark, lambda a: a[0].benchmark)
            )
        with pytest.raises(WorkerDied, match=r"died \(killed by SIGKILL\)"):
            cli("render", "--out", site, "--jobs", "2", *store_args(board_bundle))
    assert published(site) == before
    assert multiprocessing.active_children() == []


def test_a_worker_never_uses_the_stores_pooled_connection(tmp_path):
    from vlc_harness.store import open_store

    store = open_store(f"sqlite:///{tmp_path / 'store.sqlite'}")
    with store.engine.connect() as conn:  # back in the pool when the block ends: what a child would inherit
        parents = conn.connection.dbapi_connection

    def pooled(_: int) -> bool:
        with store.engine.connect() as conn:
            conn.exec_driver_sql("select count(*) from cells").scalar()
            return conn.connection.dbapi_connection is parents

    try:
        assert fan_out(pooled, [0, 1], 2, store.after_fork) == [False, False]
        assert fan_out(pooled, [0, 1], 2) == [True, True]  # without it, the children take the parent's connection
        with store.engine.connect() as conn:  # and the parent's still works
            assert conn.connection.dbapi_connection is parents
            assert conn.exec_driver_sql("select count(*) from cells").scalar() == 0
    finally:
        store.close()


def test_an_in_memory_store_is_read_in_a_worker(tmp_path):
    from vlc_harness.results import StoredResults
    from vlc_harness.store import open_store

    store = open_store("sqlite://")
    results = StoredResults(store)
    try:
        assert fan_out(lambda _: len(results.cells()), [0, 1], 2, results.after_fork) == [0, 0]
    finally:
        store.close()


def published_views(data: Any) -> list[Any]:
    """The cells the bundle holds outcome records of: the published ones."""
    from vlc_leaderboard.board import assemble_board

    board = assemble_board(data.facts)
    return [cv for row in board.rows for cv in row.cells.values() if cv.published and cv.cell is not None]


def _offset_of(path: Path) -> tuple[int, int]:
    """This process's one open file on ``path``: its descriptor and offset."""
    fds = [int(fd) for fd in os.listdir("/proc/self/fd") if _is(f"/proc/self/fd/{fd}", path)]
    assert len(fds) == 1, fds
    return fds[0], os.lseek(fds[0], 0, os.SEEK_CUR)


def _is(link: str, path: Path) -> bool:
    try:
        return os.readlink(link) == str(path.resolve())
    except OSError:
        return False


def test_a_worker_reads_the_bundle_through_a_file_of_its_own(board_bundle):
    from vlc_leaderboard.bundle import open_bundle

    bundle = Path(board_bundle["bundle"])
    with open_bundle(bundle) as data:
        fd, offset = _offset_of(bundle)
        cells = [c for c in data.facts.cells if any(c is cv.cell for cv in published_views(data))]

        def read(k: int, reopen: bool) -> int:
            if reopen:
                assert data.after_fork is not None
                data.after_fork()
            return sum(len(data.outcomes(c).records) for c in cells[k::2])  # past what the file's buffer holds

        counts = [sum(len(data.outcomes(c).records) for c in cells[k::2]) for k in (0, 1)]
        offset = os.lseek(fd, offset, os.SEEK_SET)
        assert fan_out(lambda k: read(k, True), [0, 1], 2) == counts
        assert os.lseek(fd, 0, os.SEEK_CUR) == offset  # the children's reads moved an offset of their own
        with contextlib.suppress(BundleError):  # two processes on one offset may read each other's bytes
            fan_out(lambda k: read(k, False), [0, 1], 2)
        assert os.lseek(fd, 0, os.SEEK_CUR) != offset  # without it, they move the parent's
