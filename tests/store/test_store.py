from __future__ import annotations

import dataclasses
import sqlite3

import pytest
from sqlalchemy import insert, text
from sqlalchemy.exc import IntegrityError

from vlc_harness.errors import ScoreError, StoreError
from vlc_harness.store import CellRecord, open_store, schema
from vlc_harness.store import migrations as migrations_module
from vlc_harness.store.store import Outcome


def url(path) -> str:
    return f"sqlite:///{path}"


@pytest.fixture
def any_store(store_url):
    """An empty store, on SQLite and on PostgreSQL."""
    store = open_store(store_url)
    yield store
    store.close()


def test_new_store_has_schema_version_and_wal(tmp_path):
    store = open_store(url(tmp_path / "s.sqlite"))
    assert store.info()["schema_version"] == str(schema.SCHEMA_VERSION)
    assert store.info()["app"] == "vlc-harness"
    with store.engine.connect() as conn:
        assert conn.execute(text("PRAGMA journal_mode")).scalar() == "wal"


def test_scores_are_keyed_by_model_image_and_text(any_store):
    m1 = any_store.register_model("a" * 64, "random", {"x": 1})
    assert any_store.register_model("a" * 64, "random", {"x": 1}) == m1
    m2 = any_store.register_model("b" * 64, "random", {"x": 2})
    any_store.add_scores(m1, [("img", "a cat", 0.5), ("img", "a dog", 0.25), ("", "a cat", 0.1)])
    any_store.add_scores(m2, [("img", "a cat", 0.9)])
    # the first stored score wins; a repeat is ignored, not duplicated
    any_store.add_scores(m1, [("img", "a cat", 0.75)])
    assert any_store.scores_for(m1) == {("img", "a cat"): 0.5, ("img", "a dog"): 0.25, ("", "a cat"): 0.1}
    assert any_store.scores_for(m2) == {("img", "a cat"): 0.9}
    assert any_store.stored_pairs(m1) == {("img", "a cat"), ("img", "a dog"), ("", "a cat")}
    assert any_store.scores_for(m1, ["img"]) == {("img", "a cat"): 0.5, ("img", "a dog"): 0.25}


def test_unique_constraint_is_in_the_schema(any_store):
    m = any_store.register_model("c" * 64, "random", {})
    row = {"model": m, "image_key": "k", "text": "t", "score": 1.0}
    with any_store.engine.begin() as conn:
        conn.execute(insert(schema.scores), [row])
    with pytest.raises(IntegrityError):
        with any_store.engine.begin() as conn:
            conn.execute(insert(schema.scores), [row])


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), float("-inf")])
def test_non_finite_scores_are_refused_naming_the_pair(any_store, bad):
    m = any_store.register_model("d" * 64, "random", {})
    with pytest.raises(ScoreError, match="a blue cup"):
        any_store.add_scores(m, [("k1", "fine", 0.3), ("k2", "a blue cup", bad)])
    assert any_store.scores_for(m) == {}  # the batch is refused whole


def test_cells_replace_earlier_records_of_the_same_key(any_store):
    rec = CellRecord(
        model_id="m",
        benchmark_id="b",
        benchmark_type="sugarcrepe",
        status="ok",
        fingerprint="f",
        manifest_hash="h",
        metrics=[{"metric": "x", "value": 0.5}],
    )
    first = any_store.save_cell(rec, [Outcome("c/1", "c", [[0.1, 0.2]])])
    rec2 = dataclasses.replace(rec, metrics=[{"metric": "x", "value": 0.7}])
    second = any_store.save_cell(rec2, [Outcome("c/1", "c", [[0.3, 0.2]])])
    cells = any_store.latest_cells()
    assert len(cells) == 1 and cells[0].id == second != first
    assert cells[0].metrics[0]["value"] == 0.7
    assert list(any_store.outcomes(second)) == [Outcome("c/1", "c", [[0.3, 0.2]], None)]
    assert list(any_store.outcomes(first)) == []


def test_not_a_sqlite_file_is_refused_and_untouched(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("my precious notes")
    with pytest.raises(StoreError, match="is not a SQLite database"):
        open_store(url(path))
    assert path.read_text() == "my precious notes"


def test_corrupt_sqlite_file_is_refused(tmp_path):
    path = tmp_path / "corrupt.sqlite"
    path.write_bytes(b"SQLite format 3\x00" + b"\xff" * 4000)
    before = path.read_bytes()
    with pytest.raises(StoreError, match="unreadable or corrupt"):
        open_store(url(path))
    assert path.read_bytes() == before


def test_foreign_database_is_refused(tmp_path):
    path = tmp_path / "other.sqlite"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE invoices (id INTEGER)")
    conn.commit()
    conn.close()
    with pytest.raises(StoreError, match="not a vlc-harness store"):
        open_store(url(path))
    conn = sqlite3.connect(path)
    assert [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")] == ["invoices"]


def test_newer_schema_is_refused(tmp_path):
    store = open_store(url(tmp_path / "s.sqlite"))
    with store.engine.begin() as conn:
        conn.execute(text("UPDATE schema_info SET value='99' WHERE key='schema_version'"))
    store.close()
    with pytest.raises(StoreError, match="schema version 99, newer than"):
        open_store(url(tmp_path / "s.sqlite"))


def test_older_store_is_migrated(tmp_path, monkeypatch):
    """A store at the current version opened by a harness one version ahead runs that step once."""
    store = open_store(url(tmp_path / "s.sqlite"))
    m = store.register_model("e" * 64, "random", {})
    store.add_scores(m, [("k", "t", 0.5)])
    store.close()
    calls = []

    def add_note_column(conn):
        calls.append(1)
        conn.execute(text("ALTER TABLE models ADD COLUMN note TEXT"))

    current = schema.SCHEMA_VERSION
    monkeypatch.setattr(schema, "SCHEMA_VERSION", current + 1)
    monkeypatch.setitem(migrations_module.MIGRATIONS, current, add_note_column)
    store = open_store(url(tmp_path / "s.sqlite"))
    assert calls == [1]
    assert store.info()["schema_version"] == str(current + 1)
    assert store.scores_for(m) == {("k", "t"): 0.5}
    with store.engine.connect() as conn:
        assert "note" in [r[1] for r in conn.execute(text("PRAGMA table_info(models)"))]
    store.close()
    open_store(url(tmp_path / "s.sqlite"))
    assert calls == [1]


def test_missing_migration_step_is_an_error(tmp_path, monkeypatch):
    open_store(url(tmp_path / "s.sqlite")).close()
    current = schema.SCHEMA_VERSION
    monkeypatch.setattr(schema, "SCHEMA_VERSION", current + 2)
    with pytest.raises(StoreError, match=f"no migration from store schema version {current}"):
        open_store(url(tmp_path / "s.sqlite"))


def test_stats(any_store):
    m = any_store.register_model("f" * 64, "random", {})
    any_store.add_scores(m, [("k", "t", 0.5), ("k", "u", 0.6)])
    stats = any_store.stats()
    assert stats["tables"]["scores"] == 2
    assert stats["models"] == [{"fingerprint": "f" * 12, "type": "random", "scores": 2}]
