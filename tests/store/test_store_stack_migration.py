"""Schema 5 -> 6 (issue 39 item 1, issue 40 item 4): every model's fingerprint gains the scoring stack
its runs recorded, on a store written by the schema-5 code (tests/fixtures/store_v5, SOURCE.md):
every score, cell and outcome kept, the cells follow their model, a run under the recorded versions
reuses them, runs that disagree or recorded nothing give a stack that recomputes, two rows that meet on
one new fingerprint merge keeping all their work (``rekey_model``'s merge branch), and a process killed
inside the step leaves schema 5."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from vlc_harness.fingerprint import model_fingerprint
from vlc_harness.stack import public_version, scoring_names
from vlc_harness.store import open_store, schema
from vlc_harness.store.migrate_stack import V5_KEYS

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
V5_STORE = FIXTURES / "store_v5" / "store.sqlite"
REGISTRY = FIXTURES / "store_v5" / "registry.yaml"
REPO = Path(__file__).resolve().parents[2]
MODELS = "SELECT id, fingerprint, identity FROM models"
CELLS = "SELECT id, model_id, benchmark_id, fingerprint, metrics, replicates, run_id FROM cells"


def _rows(path: Path, query: str) -> list[tuple]:
    conn = sqlite3.connect(path)
    try:
        return sorted(conn.execute(query), key=repr)
    finally:
        conn.close()


def _copy(tmp_path: Path) -> Path:
    path = tmp_path / "store.sqlite"
    shutil.copy(V5_STORE, path)
    return path


def _expected_stack(cls: type, packages: list[dict[str, str]]) -> dict:
    found = {}
    for name in scoring_names(cls):
        versions = {public_version(p[name]) for p in packages}
        (found[name.lower().replace("_", "-")],) = versions
    return {"packages": found}


def test_the_v5_fixture_migrates_keeping_every_row_and_each_model_takes_its_runs_stack(tmp_path, vlc_plugins):
    path = _copy(tmp_path)
    assert _rows(path, "SELECT value FROM schema_info WHERE key='schema_version'") == [("5",)]
    scores = _rows(path, "SELECT model, image_key, text, score FROM scores")
    outcomes = _rows(path, "SELECT cell, instance_id, category, scores, answers, error FROM outcomes")
    cells = _rows(path, CELLS)
    models = {fp: (row_id, json.loads(identity)) for row_id, fp, identity in _rows(path, MODELS)}
    runs = {run_id: json.loads(p)["packages"] for run_id, p in _rows(path, "SELECT id, provenance FROM runs")}
    assert len(scores) == 636 and len(cells) == 6 and len(models) == 3 and len(runs) == 2

    open_store(f"sqlite:///{path}").close()
    assert _rows(path, "SELECT value FROM schema_info WHERE key='schema_version'") == [(str(schema.SCHEMA_VERSION),)]
    assert _rows(path, "SELECT model, image_key, text, score FROM scores") == scores  # no score lost or moved
    assert _rows(path, "SELECT cell, instance_id, category, scores, answers, error FROM outcomes") == outcomes
    after = {row[0]: row for row in _rows(path, CELLS)}
    new_models = {row_id: (fp, json.loads(identity)) for row_id, fp, identity in _rows(path, MODELS)}
    assert len(after) == len(cells) and len(new_models) == len(models)
    for old_id, model_id, bench, old_fp, metrics, replicates, run_id in cells:
        row_id, old_identity = models[old_fp]
        new_fp, identity = new_models[row_id]
        cls = vlc_plugins.models.get(old_identity["type"]).cls
        model_runs = {r for (_, m, _, fp, _, _, r) in cells if fp == old_fp}
        stack = _expected_stack(cls, [runs[r] for r in model_runs])
        assert identity == {**old_identity, "stack": stack}, model_id
        assert new_fp == model_fingerprint({k: identity[k] for k in (*V5_KEYS, "stack")}) != old_fp
        assert after[old_id][1:] == (model_id, bench, new_fp, metrics, replicates, run_id)  # the cell follows
    store = open_store(f"sqlite:///{path}")
    try:
        for cell in store.latest_cells():
            assert cell.provenance["model"]["stack"] == new_models_stack(new_models, cell.fingerprint)
            assert cell.provenance.get("fingerprint", cell.fingerprint) == cell.fingerprint
    finally:
        store.close()


def new_models_stack(models: dict, fingerprint: str) -> dict:
    (stack,) = [identity["stack"] for fp, identity in models.values() if fp == fingerprint]
    return stack


def test_a_run_under_the_recorded_versions_reuses_every_migrated_cell(tmp_path, vlc_run, vlc_plugins, monkeypatch):
    # the fixture's cells were computed by metric engine 3; under a later engine they are stale and rebuilt from
    # their stored scores (tests/metrics), which is not what this test is about
    monkeypatch.setattr("vlc_harness.metrics.cell.ENGINE_VERSION", "3")
    path = _copy(tmp_path)
    out = vlc_run("--registry", str(REGISTRY), "--all", store_url=f"sqlite:///{path}", data_root=tmp_path / "data")
    assert out.exit_code == 0, out.output
    recorded = {json.loads(p)["packages"].get("numpy") for (p,) in _rows(path, "SELECT provenance FROM runs")}
    from vlc_harness.stack import installed_version

    runs_numpy = {public_version(v) for v in recorded if v}
    if runs_numpy == {public_version(installed_version("numpy") or "")}:  # the pinned stack, as CI installs it
        assert out.output.count("[stored]") == 6 and "recomputed" not in out.output, out.output
    else:  # another numpy here: the random baselines recompute, saying why
        assert "random recomputed: numpy " in out.output, out.output


def test_runs_that_disagree_or_recorded_nothing_give_a_stack_that_recomputes(tmp_path, vlc_plugins):
    path = _copy(tmp_path)
    conn = sqlite3.connect(path)
    (provenance,) = conn.execute("SELECT provenance FROM runs WHERE id=2").fetchone()
    changed = json.loads(provenance)
    changed["packages"]["numpy"] = "1.26.4+cpu"  # the second run's random cells under another numpy
    del changed["packages"]["torch"]  # and a run that did not record torch
    conn.execute("UPDATE runs SET provenance=? WHERE id=2", (json.dumps(changed),))
    conn.execute(
        "INSERT INTO models (fingerprint, model_type, identity, created_at) "
        "SELECT ?, model_type, identity, created_at FROM models WHERE id=1",
        ("0" * 64,),
    )  # a model row without a cell: no run to take its stack from
    conn.commit()
    conn.close()
    open_store(f"sqlite:///{path}").close()
    by_type: dict[str, list[dict]] = {}
    for (identity,) in _rows(path, "SELECT identity FROM models"):
        by_type.setdefault(json.loads(identity)["type"], []).append(json.loads(identity)["stack"])
    first = json.loads(_rows(path, "SELECT provenance FROM runs WHERE id=1")[0][0])["packages"]["numpy"]
    mixed = f"mixed ({', '.join(sorted(['1.26.4', public_version(first)]))})"
    assert sorted(s["packages"]["numpy"] for s in by_type["random"]) == sorted([mixed, mixed, "unknown"])
    (clip,) = by_type["shapes_clip"]
    assert clip["packages"]["torch"] == "unknown" and clip["packages"]["numpy"] == mixed


def test_two_rows_that_meet_on_one_fingerprint_merge_into_the_older_keeping_all_their_work(tmp_path, vlc_plugins):
    """rekey_model's merge branch (merge_model, which the v2 -> v3 step shares): a second schema-5 row of
    model 1's identity, with a cell from the same run, takes the same stack, so the same new fingerprint.
    The older row (1) is kept and keeps its own scores, text-text scores and answers where both have one;
    it gains the ones only the other had; the other row and its work are gone; of the two cells for the
    same (model id, benchmark, manifest) the newer is kept, with its outcomes."""
    path = _copy(tmp_path)
    conn = sqlite3.connect(path)
    conn.execute(
        "INSERT INTO models (id, fingerprint, model_type, identity, created_at) "
        "SELECT 4, ?, model_type, identity, created_at FROM models WHERE id=1",
        ("f" * 64,),
    )
    columns = [row[1] for row in conn.execute("PRAGMA table_info(cells)") if row[1] not in ("id", "fingerprint")]
    listed = ", ".join(columns)
    conn.execute(
        f"INSERT INTO cells (id, fingerprint, {listed}) SELECT 7, ?, {listed} FROM cells WHERE id=4", ("f" * 64,)
    )
    conn.execute(
        "INSERT INTO outcomes SELECT 7, instance_id, category, scores, answers, error, text_scores "
        "FROM outcomes WHERE cell=4"
    )
    image_key, caption, score = conn.execute(
        "SELECT image_key, text, score FROM scores WHERE model=1 LIMIT 1"
    ).fetchone()
    conn.executemany(
        "INSERT INTO scores VALUES (?, ?, ?, ?)", [(4, image_key, caption, score + 100.0), (4, "only-4", "a dog", 0.25)]
    )
    conn.executemany(
        "INSERT INTO text_scores VALUES (?, ?, ?, ?)", [(1, "a", "b", 0.1), (4, "a", "b", 0.9), (4, "c", "d", 0.3)]
    )
    conn.executemany(
        "INSERT INTO answers VALUES (?, ?, ?, ?, ?, ?)",
        [(1, "q1", "which?", 0, "A", "t1"), (4, "q1", "which?", 1, "B", "t4"), (4, "q2", "why?", 1, "B", "t4")],
    )
    conn.commit()
    scores_1 = sorted(conn.execute("SELECT image_key, text, score FROM scores WHERE model=1"), key=repr)
    outcomes_7 = sorted(conn.execute("SELECT instance_id, scores FROM outcomes WHERE cell=7"), key=repr)
    conn.close()

    open_store(f"sqlite:///{path}").close()
    models = {row_id: fp for row_id, fp, _ in _rows(path, MODELS)}
    assert sorted(models) == [1, 2, 3]  # row 4 merged into row 1
    (identity,) = [json.loads(i) for row_id, _, i in _rows(path, MODELS) if row_id == 1]
    assert models[1] == model_fingerprint({k: identity[k] for k in (*V5_KEYS, "stack")})
    assert _rows(path, "SELECT count(*) FROM scores WHERE model=4") == [(0,)]
    assert _rows(path, "SELECT image_key, text, score FROM scores WHERE model=1") == sorted(
        [*scores_1, ("only-4", "a dog", 0.25)], key=repr
    )  # row 1's own score where both had one, and the one only row 4 had
    assert _rows(path, "SELECT model, text_a, text_b, score FROM text_scores") == [
        (1, "a", "b", 0.1),
        (1, "c", "d", 0.3),
    ]
    answers = _rows(path, "SELECT model, question_key, answer, raw, created_at FROM answers")
    assert answers == [(1, "q1", 0, "A", "t1"), (1, "q2", 1, "B", "t4")]
    cells = {row[0]: row for row in _rows(path, CELLS)}
    assert sorted(cells) == [1, 2, 3, 5, 6, 7] and cells[7][3] == models[1]  # the newer of the two, re-keyed
    assert _rows(path, "SELECT count(*) FROM outcomes WHERE cell=4") == [(0,)]
    assert _rows(path, "SELECT instance_id, scores FROM outcomes WHERE cell=7") == outcomes_7


def _killed_open(url: str) -> subprocess.CompletedProcess:
    code = "import sys, vlc_harness.plugins; from vlc_harness.store import open_store; open_store(sys.argv[1])"
    env = {k: v for k, v in os.environ.items() if k != "VLC_HARNESS_FAULT"}
    env.update(PYTHONPATH=str(REPO) + os.pathsep + env.get("PYTHONPATH", ""), VLC_HARNESS_FAULT="store.migrating")
    return subprocess.run([sys.executable, "-c", code, url], capture_output=True, text=True, timeout=300, env=env)


@pytest.mark.subprocess
def test_a_process_killed_inside_the_5_to_6_step_leaves_schema_5_and_the_next_open_migrates(tmp_path, vlc_plugins):
    path = _copy(tmp_path)
    before = _rows(path, MODELS)
    killed = _killed_open(f"sqlite:///{path}")
    assert killed.returncode == 86, killed.stderr
    assert _rows(path, "SELECT value FROM schema_info WHERE key='schema_version'") == [("5",)]
    assert _rows(path, MODELS) == before  # the step's rewrite was rolled back with it
    open_store(f"sqlite:///{path}").close()
    assert _rows(path, "SELECT value FROM schema_info WHERE key='schema_version'") == [("6",)]
    assert all("stack" in json.loads(identity) for _, _, identity in _rows(path, MODELS))
