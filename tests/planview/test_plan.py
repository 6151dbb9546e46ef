"""``vlc-harness plan``: a dry run that reads the store and computes nothing."""

from __future__ import annotations

import gc
import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

SC = "sugarcrepe:version=custom"
V01_STORE = Path(__file__).resolve().parents[1] / "fixtures" / "store_v0_1" / "store.sqlite"


def _plan(vlc_run, *args: str, data_root: Path) -> dict:
    out = vlc_run.cli("plan", *args, "--data-root", str(data_root), "--format", "json")
    assert out.exit_code == 0, out.output
    return json.loads(out.stdout)


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_plan_creates_no_store_and_counts_what_run_then_computes(vlc_run, sample_root):
    plan = _plan(vlc_run, "-m", "random", "-b", SC, data_root=sample_root)
    assert not vlc_run.store_path.exists()
    assert "no store" in plan["store_note"]
    (cell,) = plan["cells"]
    assert (cell["status"], cell["unit"], cell["cost"]) == ("compute", "pairs", "-")
    (model,) = plan["models"]
    assert model["work"] == cell["work"] > 0

    assert vlc_run("-m", "random", "-b", SC, data_root=sample_root).exit_code == 0
    stats = vlc_run.store().stats()
    assert stats["tables"]["scores"] == cell["work"]
    assert stats["models"][0]["fingerprint"] == model["fingerprint"][:12]  # what run then registered


def test_stored_cells_are_complete_and_the_store_is_left_untouched(vlc_run, sample_root):
    assert vlc_run("-m", "random", "-b", SC, "--limit", "1", data_root=sample_root).exit_code == 0
    gc.collect()  # the in-process run's connections close, and SQLite folds its write-ahead log in
    before = _digest(vlc_run.store_path)
    files = sorted(p.name for p in vlc_run.store_path.parent.iterdir())

    limited = _plan(vlc_run, "-m", "random", "-b", SC, "--limit", "1", data_root=sample_root)
    assert [(c["status"], c["work"], c["stored_status"]) for c in limited["cells"]] == [("complete", 0, "partial")]
    full = _plan(vlc_run, "-m", "random", "-b", SC, "-m", "random:seed=3", data_root=sample_root)
    stored, fresh = full["cells"]
    assert stored["status"] == fresh["status"] == "compute"
    assert 0 < stored["work"] < fresh["work"]  # the pairs the limited run stored are not counted again

    gc.collect()
    assert _digest(vlc_run.store_path) == before
    assert sorted(p.name for p in vlc_run.store_path.parent.iterdir()) == files  # no -wal/-shm left behind


def test_table_output_and_exit_code(vlc_run, sample_root):
    out = vlc_run.cli("plan", "-m", "random", "-b", SC, "-b", "aro_vg_relation", "--data-root", str(sample_root))
    assert out.exit_code == 0, out.output
    lines = out.stdout.splitlines()
    assert lines[0].split() == ["model", "fingerprint", "benchmark", "status", "work", "cost", "gpu"]
    assert "compute" in lines[1] and "pairs" in lines[1]
    assert "unavailable" in lines[2]
    assert any(line.startswith("  unavailable random x aro") for line in lines), out.output
    assert "cells: 1 compute, 1 unavailable" in out.output


def test_an_identity_that_needs_the_network_is_unknown(vlc_run, sample_root):
    spec = "precomputed:url=https://example.org/scores.jsonl,sha256=" + "ab" * 32
    plan = _plan(vlc_run, "-m", spec, "-b", SC, data_root=sample_root)
    (model,), (cell,) = plan["models"], plan["cells"]
    assert model["fingerprint"] == "unknown" and "HF_HUB_OFFLINE" in model["unknown"]
    assert cell["status"] == "unknown" and cell["work"] > 0  # an upper bound: nothing stored can be found
    out = vlc_run.cli("plan", "-m", spec, "-b", SC, "--data-root", str(sample_root))
    assert "<= " in out.output and "identity unknown here" in out.output


def test_api_models_get_an_estimated_cost_where_prices_are_known(vlc_run, sample_root):
    priced = "openai_choice:model=gpt-x,run.price_in_per_mtok=2.5,run.price_out_per_mtok=10"
    plan = _plan(vlc_run, "-m", priced, "-m", "openai_logprob:model=gpt-x", "-b", SC, data_root=sample_root)
    choice, logprob = plan["cells"]
    assert choice["unit"] == "questions" and choice["requests"] == choice["work"] > 0
    assert choice["output_tokens"] == 32 * choice["requests"]  # max_tokens per request, as the budget reserves
    assert choice["input_tokens"] > 20 * choice["requests"]  # the prompt, the captions and an image each
    expected = (choice["input_tokens"] * 2.5 + choice["output_tokens"] * 10) / 1e6
    assert abs(choice["cost_usd"] - expected) < 1e-12 and choice["cost"] == f"${expected:.4f}"
    assert plan["models"][0]["cost_usd"] == choice["cost_usd"]
    assert logprob["requests"] == logprob["work"] and logprob["cost_usd"] is None
    assert logprob["cost"].startswith("unknown (no prices")


def test_an_older_store_is_planned_as_empty_without_migrating_it(vlc_run, sample_root, tmp_path):
    store = tmp_path / "old.sqlite"
    shutil.copy(V01_STORE, store)
    before = _digest(store)
    out = vlc_run.cli("plan", "-m", "random", "-b", SC, "--data-root", str(sample_root), store_url=f"sqlite:///{store}")
    assert out.exit_code == 0, out.output
    assert "a run migrates it" in out.output
    assert _digest(store) == before


@pytest.mark.subprocess
def test_a_foreign_file_is_refused_and_left_as_it_is(sample_root, tmp_path):
    foreign = tmp_path / "notes.sqlite"
    foreign.write_text("not a database")
    argv = ["plan", "-m", "random", "-b", SC, "--data-root", str(sample_root), "--store", f"sqlite:///{foreign}"]
    out = subprocess.run([sys.executable, "-m", "vlc_harness", *argv], capture_output=True, text=True, timeout=120)
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert "cannot read store" in out.stderr
    assert foreign.read_text() == "not a database"


def test_the_json_document_carries_its_schema_and_what_a_diff_compares(vlc_run, sample_root):
    from vlc_harness.planview.document import BENCHMARK_FIELDS, MODEL_FIELDS, PLAN_SCHEMA, base_problem

    plan = _plan(vlc_run, "-m", "random", "-b", SC, data_root=sample_root)
    assert plan["schema"] == PLAN_SCHEMA and base_problem(plan, "main") is None
    (model,), (bench,) = plan["models"], plan["benchmarks"]
    assert set(MODEL_FIELDS) <= set(model) and set(BENCHMARK_FIELDS) <= set(bench)
    assert len(model["declared"]) == len(bench["declared"]) == 64 and bench["manifest"] and bench["data_version"]

    older = {k: v for k, v in plan.items() if k != "schema"}
    predates = f"main's plan --format json has no schema: it predates plan schema {PLAN_SCHEMA}"
    assert base_problem(older, "main") == predates
    assert "newer than this checkout's" in base_problem({**plan, "schema": PLAN_SCHEMA + 1}, "main")
    del model["declared"]
    assert base_problem(plan, "main").endswith(f"has no models[].declared, which plan schema {PLAN_SCHEMA} requires")
