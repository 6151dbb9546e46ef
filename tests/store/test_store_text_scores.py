"""Text-text scores in the store (schema 4): keyed by (model, text, text) once per unordered pair,
refused when not finite, forgotten with their model; and the schema-3 -> 4 migration, on a store
written by the schema-3 code and on both backends, keeping every row and every image-to-text value."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest
from sqlalchemy import text

from tests.engine_wording import reworded_back
from vlc_harness.errors import ScoreError
from vlc_harness.store import CellRecord, open_store, schema
from vlc_harness.store.scores import text_pair_key
from vlc_harness.store.store import Outcome
from vlc_harness_builtins.benchmarks.sugarcrepe_pp import SUBSETS
from vlc_harness_builtins.testing.data_sugarcrepe_pp import write_example

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
V3_STORE = FIXTURES / "store_v3" / "store.sqlite"
OLD_TABLES = ("schema_info", "models", "scores", "answers", "runs", "cells", "outcomes")


@pytest.fixture
def any_store(store_url):
    """An empty store, on SQLite and on PostgreSQL."""
    store = open_store(store_url)
    yield store
    store.close()


def test_text_scores_are_keyed_by_model_and_the_unordered_pair(any_store):
    m1 = any_store.register_model("a" * 64, "open_clip", {})
    m2 = any_store.register_model("b" * 64, "open_clip", {})
    assert text_pair_key("b dog", "a cat") == ("a cat", "b dog") == text_pair_key("a cat", "b dog")
    assert any_store.add_text_scores(m1, [("b dog", "a cat", 0.5), ("a cat", "b dog", 0.5), ("x", "x", 1.0)]) == 2
    any_store.add_text_scores(m1, [("a cat", "b dog", 0.75)])  # the first stored score wins
    any_store.add_text_scores(m2, [("a cat", "b dog", 0.25)])
    assert any_store.text_scores_for(m1) == {("a cat", "b dog"): 0.5, ("x", "x"): 1.0}
    assert any_store.stored_text_pairs(m2) == {("a cat", "b dog")}
    assert any_store.scores_for(m1) == {}  # image-text scores are another table
    with any_store.engine.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM text_scores")).scalar() == 3


@pytest.mark.parametrize("bad", [float("nan"), float("inf")])
def test_non_finite_text_scores_are_refused_and_nothing_of_the_batch_is_stored(any_store, bad):
    m = any_store.register_model("c" * 64, "open_clip", {})
    with pytest.raises(ScoreError, match="'a' and 'b'"):
        any_store.add_text_scores(m, [("a", "c", 0.1), ("a", "b", bad)])
    assert any_store.text_scores_for(m) == {}


def test_forget_and_stats_count_text_scores(any_store):
    m = any_store.register_model("d" * 64, "open_clip", {})
    any_store.add_text_scores(m, [("a", "b", 0.1), ("a", "c", 0.2)])
    assert any_store.stats()["tables"]["text_scores"] == 2
    counts = any_store.forget([], ["d" * 64], dry_run=True)
    assert counts["text_scores"] == 2 and counts["models"] == 1
    any_store.forget([], ["d" * 64])
    assert any_store.stats()["tables"]["text_scores"] == 0


def _rows(path: Path) -> dict[str, list[tuple]]:
    """Every row of the schema-3 tables (their schema-3 columns), read with sqlite3 directly."""
    conn = sqlite3.connect(path)
    try:
        out = {}
        for table in OLD_TABLES:
            later = ("text_scores", "reason_code")  # columns added by schema 4 and 5
            cols = [c[1] for c in conn.execute(f"PRAGMA table_info({table})") if c[1] not in later]
            out[table] = sorted(conn.execute(f"SELECT {', '.join(cols)} FROM {table}"), key=repr)
        return out
    finally:
        conn.close()


def test_the_schema_3_fixture_is_migrated_keeping_every_row(tmp_path):
    path = tmp_path / "store.sqlite"
    shutil.copy(V3_STORE, path)
    before = _rows(path)
    assert dict(before["schema_info"])["schema_version"] == "3" and len(before["scores"]) == 56
    store = open_store(f"sqlite:///{path}")
    assert store.info()["schema_version"] == str(schema.SCHEMA_VERSION) == "5"  # on through 4 -> 5
    store.close()
    after = _rows(path)
    assert {t: r for t, r in after.items() if t != "schema_info"} == {
        t: r for t, r in before.items() if t != "schema_info"
    }
    conn = sqlite3.connect(path)
    assert conn.execute("SELECT count(*) FROM text_scores").fetchone() == (0,)
    assert conn.execute("SELECT count(*) FROM outcomes WHERE text_scores IS NOT NULL").fetchone() == (0,)
    conn.close()
    open_store(f"sqlite:///{path}").close()  # a second open is a no-op
    assert _rows(path) == after


def test_the_schema_3_to_4_step_on_each_backend(store_url):
    store = open_store(store_url)
    m = store.register_model("e" * 64, "open_clip", {})
    store.add_scores(m, [("k", "a cat", 0.5)])
    record = CellRecord("m", "b", "sugarcrepe_pp", "ok", fingerprint="e" * 64, manifest_hash="h", metrics=[])
    store.save_cell(record, [Outcome("x/1", "x", [[0.5]])])
    with store.engine.begin() as conn:  # back to what a schema-3 harness created
        conn.execute(text("DROP TABLE text_scores"))
        conn.execute(text("ALTER TABLE outcomes DROP COLUMN text_scores"))
        conn.execute(text("UPDATE schema_info SET value='3' WHERE key='schema_version'"))
    store.close()
    store = open_store(store_url)
    try:
        assert store.info()["schema_version"] == str(schema.SCHEMA_VERSION)
        assert store.scores_for(m) == {("k", "a cat"): 0.5}
        assert [o.scores for o in store.outcomes(record.id)] == [[[0.5]]]
        store.add_text_scores(m, [("b", "a", 0.25)])
        assert store.text_scores_for(m) == {("a", "b"): 0.25}
    finally:
        store.close()


def test_a_rerun_on_the_migrated_store_computes_only_text_pairs_and_keeps_itt(vlc_run, tmp_path, monkeypatch):
    root = tmp_path / "data"
    written = write_example(root)  # the fixture's data: the sample files and the same stand-in images
    for subset in SUBSETS:
        fixture = json.loads((FIXTURES / "sugarcrepe_pp_sample" / "sugarcrepe_pp" / f"{subset}.json").read_text())
        assert fixture == written[subset]
    path = tmp_path / "store.sqlite"
    shutil.copy(V3_STORE, path)
    before = {r[0]: json.loads(r[1]) for r in sqlite3.connect(path).execute("SELECT model_id, metrics FROM cells")}
    monkeypatch.setenv("VLC_HARNESS_BOOTSTRAP", "20")  # as the fixture's cells were made
    url = f"sqlite:///{path}"
    out = vlc_run(
        "-m", "shapes_clip", "-m", "random:seed=1", "-b", "sugarcrepe_pp:version=custom", data_root=root, store_url=url
    )
    assert out.exit_code == 0, out.output
    assert "[stored]" not in out.output  # the metrics changed (a new family): both cells are rebuilt
    store = open_store(url)
    tables = store.stats()["tables"]
    assert tables["scores"] == 56  # not one image-text pair computed again
    assert tables["text_scores"] == 21  # shapes_clip's text pairs only; the random baseline has none
    for cell in store.latest_cells():
        itt = [m for m in cell.metrics if not m["metric"].startswith("tot_")]
        # byte-identical, intervals included, once engine 3's rewording of the texts is undone
        assert reworded_back(itt) == before[cell.model_id], cell.model_id
        has_tot = any(m["metric"] == "tot_accuracy" for m in cell.metrics)
        assert has_tot == (cell.model_id == "shapes_clip")
    store.close()
