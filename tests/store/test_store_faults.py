"""A store that cannot be written (full disk, read-only) gives one clear error and loses nothing."""

from __future__ import annotations

import sqlite3

import pytest

from vlc_harness.errors import StoreError
from vlc_harness.store import open_store
from vlc_harness.store import store as store_module


def _run(vlc_run, url, root, model):
    return vlc_run("-m", model, "-b", "sugarcrepe:version=custom", data_root=root, store_url=url)


def test_a_full_disk_is_one_clear_error_and_keeps_what_was_stored(vlc_run, tmp_path, sample_root, monkeypatch):
    path = tmp_path / "s.sqlite"
    url = f"sqlite:///{path}"
    assert _run(vlc_run, url, sample_root, "random:seed=1").exit_code == 0
    size = path.stat().st_size
    original = store_module._sqlite_pragmas

    def full_disk(dbapi_conn, record):  # SQLite's own "database or disk is full", at the current size
        original(dbapi_conn, record)
        pages = dbapi_conn.execute("PRAGMA page_count").fetchone()[0]
        dbapi_conn.execute(f"PRAGMA max_page_count={pages}")

    monkeypatch.setattr(store_module, "_sqlite_pragmas", full_disk)
    with pytest.raises(StoreError, match="cannot write to the store .*disk is full"):
        _run(vlc_run, url, sample_root, "random:seed=2")
    monkeypatch.undo()
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert conn.execute("SELECT count(*) FROM scores").fetchone()[0] >= 56
    conn.close()
    assert path.stat().st_size >= size
    # with room again, the rerun completes
    assert _run(vlc_run, url, sample_root, "random:seed=2").exit_code == 0


def test_a_read_only_store_is_one_clear_error(vlc_run, tmp_path, sample_root):
    path = tmp_path / "s.sqlite"
    assert _run(vlc_run, f"sqlite:///{path}", sample_root, "random:seed=1").exit_code == 0
    read_only = f"sqlite:///file:{path}?mode=ro&uri=true"
    with pytest.raises(StoreError, match="readonly|read-only"):
        _run(vlc_run, read_only, sample_root, "random:seed=2")
    store = open_store(f"sqlite:///{path}")
    try:
        assert store.stats()["tables"]["scores"] == 56
    finally:
        store.close()
