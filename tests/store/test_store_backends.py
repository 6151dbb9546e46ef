"""The same runs on SQLite and PostgreSQL, and two runs on one store at once."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from vlc_harness.store import open_store


def _run(store_url: str, root, *models: str) -> subprocess.Popen:
    args = [
        sys.executable,
        "-m",
        "harness",
        "run",
        "-b",
        "sugarcrepe:version=custom",
        "--data-root",
        str(root),
        "--store",
        store_url,
        "--no-progress",
    ]
    for m in models:
        args += ["-m", m]
    return subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=os.environ.copy())


def test_a_run_and_its_rerun_on_each_backend(vlc_run, vlc_cli, store_url, sample_root, tiny_spec):
    args = ["-m", tiny_spec, "-m", "random", "-b", "sugarcrepe:version=custom"]
    first = vlc_run(*args, data_root=sample_root, store_url=store_url)
    assert first.exit_code == 0, first.output
    store = open_store(store_url)
    try:
        n_scores = store.stats()["tables"]["scores"]
        assert n_scores == 2 * 56
        metrics = {c.model_id: c.metrics for c in store.latest_cells()}
        ids = {c.id for c in store.latest_cells()}
    finally:
        store.close()
    again = vlc_run(*args, data_root=sample_root, store_url=store_url)
    assert again.exit_code == 0
    store = open_store(store_url)
    try:
        assert store.stats()["tables"]["scores"] == n_scores
        cells = store.latest_cells()
        assert again.output.count("[stored]") == 2 and {c.id for c in cells} == ids  # nothing recomputed
        assert {c.model_id: c.metrics for c in cells} == metrics
    finally:
        store.close()
    shown = vlc_cli("show", "--store", store_url, "--format", "csv")
    assert shown.exit_code == 0 and "i2t_accuracy_macro" in shown.output


@pytest.mark.subprocess
def test_two_runs_at_once_lose_and_duplicate_nothing(store_url, sample_root, tiny_spec):
    open_store(store_url).close()  # create the schema once, as a first run would
    # the same model in both processes (they race on the same pairs) plus one model each
    a = _run(store_url, sample_root, tiny_spec, "random:seed=1")
    b = _run(store_url, sample_root, tiny_spec, "random:seed=2")
    out_a, out_b = a.communicate(timeout=600), b.communicate(timeout=600)
    assert a.returncode == 0, out_a[0]
    assert b.returncode == 0, out_b[0]
    assert "locked" not in out_a[0] + out_b[0]
    store = open_store(store_url)
    try:
        stats = store.stats()
        assert stats["tables"]["scores"] == 3 * 56  # 3 distinct models x 56 pairs, none twice
        cells = store.latest_cells()
        assert {c.model_id for c in cells} == {tiny_spec, "random:seed=1", "random:seed=2"}
        assert all(c.status == "ok" and c.n_scored == 28 for c in cells)
    finally:
        store.close()
