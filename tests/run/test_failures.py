"""Bad input and misbehaving models: each fails only what it must, with a clear message."""

from __future__ import annotations

import shutil

import pytest


def run(vlc_run, root, *models, extra=()):
    args = ["-b", "sugarcrepe:version=custom", *extra]
    for m in models:
        args += ["-m", m]
    return vlc_run(*args, data_root=root)


def cells(vlc_run):
    return {c.model_id: c for c in vlc_run.store().latest_cells()}


@pytest.mark.parametrize(
    "model, message",
    [
        pytest.param("test_segfault", "worker died from SIGSEGV", marks=pytest.mark.vlc_worker_process),
        pytest.param("test_exit", "worker exited with code 3", marks=pytest.mark.vlc_worker_process),
        ("test_raises", "RuntimeError: the plugin's own bug"),
        ("test_wrong_shape", "ValueError: WrongShape returned 15 results for 16 inputs"),
    ],
)
def test_a_crashing_model_fails_only_its_cell(vlc_run, sample_root, faulty, model, message):
    out = run(vlc_run, sample_root, model, "random")
    assert out.exit_code == 1
    result = cells(vlc_run)
    assert result[model].status == "failed" and message in result[model].error
    assert result["random"].status == "ok"


@pytest.mark.vlc_worker_process
def test_a_hanging_model_is_killed_after_its_timeout(vlc_run, sample_root, faulty):
    out = run(vlc_run, sample_root, "test_hang:run.timeout_s=2", "random")
    assert out.exit_code == 1
    result = cells(vlc_run)
    assert "no progress for 2 s" in result["test_hang:run.timeout_s=2"].error
    assert result["random"].status == "ok"


def test_nan_scores_fail_their_instances_and_are_never_stored(vlc_run, sample_root, faulty):
    out = run(vlc_run, sample_root, "test_nan")
    assert out.exit_code == 3  # its one cell failed: nothing computed
    cell = cells(vlc_run)["test_nan"]
    assert cell.status == "failed" and cell.n_failed > 0 and cell.n_scored + cell.n_failed == 28
    assert "model returned nan for image" in cell.error and "dog" in cell.error.lower()
    store = vlc_run.store()
    assert all("dog" not in text.lower() for _, text in store.stored_pairs(1))


def test_missing_and_corrupt_images_fail_only_their_instances(vlc_run, sample_root, faulty):
    import json

    swap = json.loads((sample_root / "sugarcrepe" / "swap_obj.json").read_text())
    missing = sample_root / "coco" / "val2017" / swap["0"]["filename"]
    missing.unlink()
    corrupt = sample_root / "coco" / "val2017" / swap["1"]["filename"]
    corrupt.write_bytes(b"not a jpeg at all")
    out = run(vlc_run, sample_root, "test_pixels")
    assert out.exit_code == 3  # its one cell failed: nothing computed
    cell = cells(vlc_run)["test_pixels"]
    assert cell.status == "failed" and cell.n_failed == 2 and cell.n_scored == 26
    store = vlc_run.store()
    outcomes = {o.instance_id: o for o in store.outcomes(cell.id)}
    assert str(missing) in outcomes["swap_obj/0"].error
    assert str(corrupt) in outcomes["swap_obj/1"].error and "cannot read image" in outcomes["swap_obj/1"].error
    assert outcomes["swap_obj/2"].scores is not None


def test_no_images_at_all_is_unavailable_with_the_source_named(vlc_run, sample_root, faulty):
    shutil.rmtree(sample_root / "coco")
    out = run(vlc_run, sample_root, "random", "test_length")
    assert out.exit_code == 0, out.output
    result = cells(vlc_run)
    assert result["random"].status == "unavailable"
    assert "images.cocodataset.org/zips/val2017.zip" in result["random"].error
    # an image-blind model needs no image files at all
    assert result["test_length"].status == "ok"
    strict = run(vlc_run, sample_root, "random", extra=("--strict",))
    assert strict.exit_code == 3  # --strict's 1, and nothing computed (3): the highest


def test_missing_annotations_are_one_clear_unavailable_line(vlc_run, tmp_path):
    out = vlc_run("-m", "random", "-b", "sugarcrepe", data_root=tmp_path / "empty")
    assert out.exit_code == 3  # nothing could be computed
    line = next(x for x in out.output.splitlines() if x.startswith("unavailable"))
    assert "sugarcrepe/replace_obj.json" in line and "raw.githubusercontent.com" in line


def test_blind_models_tie_on_identical_texts_and_ties_are_counted(vlc_run, sample_root, faulty):
    out = run(vlc_run, sample_root, "test_length")
    assert out.exit_code == 0
    cell = cells(vlc_run)["test_length"]
    micro = next(m for m in cell.metrics if m["metric"] == "i2t_accuracy_micro")
    assert micro["n"] == 28 and micro["tie_rule"] == "wrong"
    store = vlc_run.store()
    assert {k for k, _ in store.stored_pairs(1)} == {""}  # keyed on the text alone
