"""Upgrading stored metrics is explicit: opening a store (any command) rebuilds nothing and says what
is stale; ``vlc-harness store upgrade`` rebuilds the stale cells from their stored scores; ``render``
refuses to publish a stale cell."""

from __future__ import annotations

import gc
import hashlib
import shutil
import sqlite3
from pathlib import Path

import pytest

from vlc_harness.errors import UserError
from vlc_harness.store import open_store

SC = "sugarcrepe:version=custom"
V01_STORE = Path(__file__).resolve().parents[1] / "fixtures" / "store_v0_1" / "store.sqlite"


def _state(path: Path) -> tuple[str, list[str]]:
    """The store file's sha256 and every row of every table (the write-ahead log's included)."""
    gc.collect()  # in-process commands' connections close; SQLite folds its write-ahead log in
    conn = sqlite3.connect(path)
    try:
        rows = list(conn.iterdump())
    finally:
        conn.close()
    gc.collect()
    return hashlib.sha256(path.read_bytes()).hexdigest(), rows


@pytest.mark.slow  # the board and the site of the whole registry, built by several commands
def test_commands_that_open_a_store_rebuild_nothing_and_name_the_upgrade(vlc_cli, tmp_path, sample_root, monkeypatch):
    path = tmp_path / "v01.sqlite"
    shutil.copy(V01_STORE, path)
    url = f"sqlite:///{path}"
    from vlc_harness.plugins import get_plugins

    get_plugins()  # the migration to schema 6 reads each stored model type's class, as the command line loads them
    open_store(url).close()  # the schema migration is the one write an open makes, once
    monkeypatch.setenv("VLC_HARNESS_DATA", str(sample_root))  # the data is at hand: a rebuild could happen
    before = _state(path)
    upgrade = "vlc-harness store upgrade"
    for args, code, said in (
        (["show", "--store", url], 0, upgrade),
        (["show", "--store", url, "--format", "json"], 0, upgrade),
        (["show", "--store", url, "--format", "board"], 0, upgrade),
        (["cache", "stats", "--store", url], 0, "stale cells: 2 (`vlc-harness store upgrade` rebuilds them)"),
        (["store", "upgrade", "--store", url, "--dry-run"], 0, "stale cells: 2 of 2"),
    ):
        out = vlc_cli(*args)
        assert out.exit_code == code and said in out.output, (args, out.output)
        assert _state(path) == before, args
    with pytest.raises(UserError, match="2 cells the board would publish hold metrics computed by older") as refused:
        vlc_cli("render", "--store", url, "--include-adhoc", "--out", str(tmp_path / "site"))
    assert "vlc-harness store upgrade" in refused.value.hint
    assert _state(path) == before
    assert not (tmp_path / "site").exists()  # render refused before writing a page
    assert all(c.metrics_version is None for c in open_store(url).latest_cells())


def test_a_changed_benchmark_is_stale_until_upgraded(vlc_run, vlc_cli, tmp_path, sample_root, monkeypatch):
    from vlc_harness.metrics.cell import bootstrap_samples, metrics_version
    from vlc_harness.plugins import get_plugins
    from vlc_harness_builtins.benchmarks.sugarcrepe import SugarCrepe

    url = vlc_run.store_url
    assert vlc_run("-m", "random:seed=1", "-b", SC, data_root=sample_root).exit_code == 0
    (cell,) = open_store(url).latest_cells(with_replicates=True)
    monkeypatch.setenv("VLC_HARNESS_DATA", str(sample_root))
    assert "stale cells: 0" in vlc_cli("cache", "stats", "--store", url).output

    monkeypatch.setattr(SugarCrepe, "metrics_version", "2")  # a benchmark's metric code changed
    stats = vlc_cli("cache", "stats", "--store", url)
    assert "stale cells: 1 (`vlc-harness store upgrade` rebuilds them)" in stats.output
    assert "1 cells hold metrics computed by older metric code" in vlc_cli("show", "--store", url).output
    with pytest.raises(UserError, match="random:seed=1 x sugarcrepe"):
        vlc_cli("render", "--store", url, "--include-adhoc", "--out", str(tmp_path / "site"))
    dry = vlc_cli("store", "upgrade", "--store", url, "--dry-run")
    assert "stale cells: 1 of 1" in dry.output and "random:seed=1 x sugarcrepe" in dry.output
    assert open_store(url).latest_cells()[0].metrics_version == cell.metrics_version

    out = vlc_cli("store", "upgrade", "--store", url, "--no-progress")
    assert out.exit_code == 0, out.output
    assert "rebuilt 1 cells from their stored scores" in out.output
    (rebuilt,) = open_store(url).latest_cells(with_replicates=True)
    bench = get_plugins().benchmarks.get("sugarcrepe").cls(SugarCrepe.Params(version="custom"), sample_root)
    assert rebuilt.id == cell.id and rebuilt.metrics_version == metrics_version(bench, bootstrap_samples())
    assert rebuilt.metrics_version != cell.metrics_version
    assert rebuilt.metrics == cell.metrics  # the same scores and code: the same values and intervals
    assert "stale cells: 0" in vlc_cli("cache", "stats", "--store", url).output
    rendered = vlc_cli("render", "--store", url, "--include-adhoc", "--out", str(tmp_path / "site"))
    assert rendered.exit_code == 0, rendered.output


def test_run_rebuilds_the_stale_cells_it_touches_and_leaves_the_others(vlc_run, vlc_cli, sample_root, monkeypatch):
    from vlc_harness_builtins.benchmarks.sugarcrepe import SugarCrepe

    url = vlc_run.store_url
    for seed in (1, 2):
        assert vlc_run("-m", f"random:seed={seed}", "-b", SC, data_root=sample_root).exit_code == 0
    before = {c.model_id: c for c in open_store(url).latest_cells()}
    monkeypatch.setattr(SugarCrepe, "metrics_version", "2")
    out = vlc_run("-m", "random:seed=1", "-b", SC, data_root=sample_root)
    assert out.exit_code == 0 and "[stored]" not in out.output
    after = {c.model_id: c for c in open_store(url).latest_cells()}
    assert after["random:seed=1"].metrics_version != before["random:seed=1"].metrics_version
    assert after["random:seed=2"].metrics_version == before["random:seed=2"].metrics_version
    monkeypatch.setenv("VLC_HARNESS_DATA", str(sample_root))
    assert "stale cells: 1 (" in vlc_cli("cache", "stats", "--store", url).output
