"""``vlc-harness cache forget``: a model's cells, and with ``--scores`` its scores too."""

from __future__ import annotations

from collections import Counter

BENCH = "sugarcrepe:version=custom"


def counts(vlc_run) -> dict[str, int]:
    return vlc_run.store().stats()["tables"]


def cell_models(vlc_run) -> Counter:
    return Counter(c.model_id for c in vlc_run.store().latest_cells())


def test_forget_removes_the_cells_and_keeps_the_scores(vlc_run, sample_root):
    assert vlc_run("-m", "random:seed=1", "-m", "random:seed=2", "-b", BENCH, data_root=sample_root).exit_code == 0
    before = counts(vlc_run)
    out = vlc_run.cli("cache", "forget", "-m", "random:seed=1", "--yes")
    assert out.exit_code == 0, out.output
    assert f"model random:seed=1: 1 cells ({BENCH})" in out.output
    assert "removed 1 cells, 28 outcomes" in out.output and "scores" not in out.output.splitlines()[-1]
    assert cell_models(vlc_run) == {"random:seed=2": 1}
    after = counts(vlc_run)
    assert after["scores"] == before["scores"] and after["models"] == 2
    # the next run builds the cell again from the stored scores: nothing computed, one model row each
    rerun = vlc_run("-m", "random:seed=1", "-b", BENCH, data_root=sample_root)
    assert rerun.exit_code == 0 and counts(vlc_run)["scores"] == before["scores"]
    assert cell_models(vlc_run) == {"random:seed=1": 1, "random:seed=2": 1}


def test_forget_scores_removes_the_models_scores_and_every_cell_on_them(vlc_run, sample_root, tmp_path):
    reg = tmp_path / "registry.yaml"
    reg.write_text("models:\n  - id: rnd\n    type: random\n    params: {seed: 1}\n")
    assert vlc_run("-m", "random:seed=1", "-m", "random:seed=2", "-b", BENCH, data_root=sample_root).exit_code == 0
    assert vlc_run("-m", "rnd", "-b", BENCH, "--registry", str(reg), data_root=sample_root).exit_code == 0
    per_model = counts(vlc_run)["scores"] // 2
    out = vlc_run.cli("cache", "forget", "-m", "random:seed=1", "--scores", "--yes")
    assert out.exit_code == 0, out.output
    assert "cells of other model ids on the same scores: rnd (1)" in out.output
    assert f"removed 2 cells, 56 outcomes, 1 models, {per_model} scores" in out.output
    assert cell_models(vlc_run) == {"random:seed=2": 1}
    assert counts(vlc_run)["models"] == 1 and counts(vlc_run)["scores"] == per_model
    assert "nothing stored" in vlc_run.cli("cache", "forget", "-m", "random:seed=1", "--scores", "--yes").output


def test_forget_scores_finds_a_model_without_cells_by_its_fingerprint(vlc_run, sample_root):
    assert vlc_run("-m", "random:seed=1", "-b", BENCH, data_root=sample_root).exit_code == 0
    assert vlc_run.cli("cache", "forget", "-m", "random:seed=1", "--yes").exit_code == 0
    assert counts(vlc_run)["scores"] > 0  # as a killed run leaves them: scores, no cell
    out = vlc_run.cli("cache", "forget", "-m", "random:seed=1", "--scores", "--yes")
    assert out.exit_code == 0, out.output
    assert counts(vlc_run)["scores"] == 0 and counts(vlc_run)["models"] == 0


def test_forget_asks_first(vlc_run, vlc_cli, sample_root):
    assert vlc_run("-m", "random:seed=1", "-b", BENCH, data_root=sample_root).exit_code == 0
    args = ("cache", "forget", "-m", "random:seed=1", "--store", vlc_run.store_url)
    no = vlc_cli(*args, input="n\n")
    assert no.exit_code != 0 and "Remove them?" in no.output
    assert cell_models(vlc_run) == {"random:seed=1": 1}
    yes = vlc_cli(*args, input="y\n")
    assert yes.exit_code == 0 and "removed 1 cells" in yes.output
    assert cell_models(vlc_run) == {}


def test_forget_an_unknown_model_removes_nothing(vlc_run, sample_root):
    assert vlc_run("-m", "random:seed=1", "-b", BENCH, data_root=sample_root).exit_code == 0
    out = vlc_run.cli("cache", "forget", "-m", "no-such-model", "--scores", "--yes")
    assert out.exit_code == 0 and "nothing stored for model 'no-such-model'" in out.output
    assert cell_models(vlc_run) == {"random:seed=1": 1}
