"""kill -9 in the middle of a run, rerun: only the missing pairs are computed, results are equal."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import time
from pathlib import Path

from drills.kill_drill import start_cli

from vlc_harness.store import open_store

LOCAL_PLUGINS = Path(__file__).resolve().parents[1] / "local_plugins"


def stored(path: Path) -> int:
    try:
        conn = sqlite3.connect(path, timeout=1)
        try:
            return conn.execute("SELECT count(*) FROM scores").fetchone()[0]
        finally:
            conn.close()
    except sqlite3.Error:
        return 0


def logged(path: Path) -> list[tuple[str, str]]:
    if not path.exists():
        return []
    return [tuple(json.loads(line)[:2]) for line in path.read_text().splitlines()]


def test_resume_after_kill_computes_only_missing_pairs(tmp_path, sample_root):
    env = dict(os.environ, VLC_HARNESS_PLUGINS_DIR=str(LOCAL_PLUGINS), TEST_SLOW_SLEEP="0.3")
    args = [
        "run",
        "-m",
        "test_slow:run.batch_size=4",
        "-b",
        "sugarcrepe:version=custom",
        "--data-root",
        str(sample_root),
        "--no-progress",
    ]

    killed_db = tmp_path / "killed.sqlite"
    env1 = dict(env, TEST_SLOW_LOG=str(tmp_path / "log1"))
    proc = start_cli([*args, "--store", f"sqlite:///{killed_db}"], env1)
    deadline = time.monotonic() + 60
    while stored(killed_db) < 8:
        assert proc.poll() is None, proc.communicate()[0]
        assert time.monotonic() < deadline, "no scores were stored in time"
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    time.sleep(0.5)  # let the orphaned worker notice and exit
    before = stored(killed_db)
    assert 8 <= before < 56, before
    survived = open_store(f"sqlite:///{killed_db}").stored_pairs(1)
    assert survived <= set(logged(tmp_path / "log1"))  # what was stored was computed by the first run

    env2 = dict(env, TEST_SLOW_LOG=str(tmp_path / "log2"), TEST_SLOW_SLEEP="0")
    rerun = start_cli([*args, "--store", f"sqlite:///{killed_db}", "--executor", "inprocess"], env2)  # no worker
    output = rerun.communicate(timeout=120)[0]
    assert rerun.returncode == 0, output
    second = logged(tmp_path / "log2")
    store = open_store(f"sqlite:///{killed_db}")
    (cell,) = store.latest_cells()
    assert cell.status == "ok"
    # exactly the missing pairs were computed, each once
    assert len(second) == len(set(second)) == 56 - before
    assert set(second).isdisjoint(survived)
    assert set(second) | survived == store.stored_pairs(1)

    clean_db = tmp_path / "clean.sqlite"
    clean_run = [*args, "--store", f"sqlite:///{clean_db}", "--executor", "inprocess"]  # the reference: no kill
    clean = start_cli(clean_run, dict(env, TEST_SLOW_SLEEP="0"))
    assert clean.wait(timeout=120) == 0
    reference = open_store(f"sqlite:///{clean_db}")
    (ref_cell,) = reference.latest_cells()
    assert cell.metrics == ref_cell.metrics
    resumed, uninterrupted = store.scores_for(1), reference.scores_for(1)
    assert resumed.keys() == uninterrupted.keys()
    assert max(abs(resumed[k] - uninterrupted[k]) for k in resumed) <= 1e-6


def test_kill_leaves_a_readable_store(tmp_path, sample_root):
    env = dict(os.environ, VLC_HARNESS_PLUGINS_DIR=str(LOCAL_PLUGINS), TEST_SLOW_SLEEP="0.3")
    db = tmp_path / "s.sqlite"
    proc = start_cli(
        [
            "run",
            "-m",
            "test_slow:run.batch_size=2",
            "-b",
            "sugarcrepe:version=custom",
            "--data-root",
            str(sample_root),
            "--no-progress",
            "--store",
            f"sqlite:///{db}",
        ],
        env,
    )
    deadline = time.monotonic() + 60
    while stored(db) < 2:
        assert time.monotonic() < deadline
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    store = open_store(f"sqlite:///{db}")
    assert store.stats()["tables"]["scores"] >= 2
    assert store.stats()["tables"]["runs"] == 1  # the run row says it never finished
    with store.engine.connect() as conn:
        from sqlalchemy import text

        assert conn.execute(text("SELECT status FROM runs")).scalar() == "running"
