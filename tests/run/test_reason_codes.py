"""A cell without a number stores a reason code decided where its error was raised: by the error's
class or the raise site's own code, never by reading the message."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from vlc_harness import errors
from vlc_harness.reasons import Reason
from vlc_harness.store import open_store

SHAPES = "shapes:n_scenes=4,image_size=32"
SC = "sugarcrepe:version=custom"


def _cells(vlc_run) -> dict:
    return {c.model_id: c for c in vlc_run.store().latest_cells()}


def _run(vlc_run, root: Path, *models: str, extra: tuple[str, ...] = ()):
    args = ["-b", SC, *extra]
    for m in models:
        args += ["-m", m]
    return vlc_run(*args, data_root=root)


def test_missing_benchmark_data_is_data_missing(vlc_run, tmp_path):
    out = vlc_run("-m", "random", "-b", "sugarcrepe", data_root=tmp_path / "empty")
    assert out.exit_code == 3, out.output  # nothing could be computed
    (cell,) = vlc_run.store().latest_cells()
    assert (cell.status, cell.reason_code) == ("unavailable", Reason.DATA_MISSING)


def test_missing_images_are_data_missing_and_an_image_blind_model_needs_none(vlc_run, sample_root, faulty):
    shutil.rmtree(sample_root / "coco")
    assert _run(vlc_run, sample_root, "random", "test_length").exit_code == 0
    cells = _cells(vlc_run)
    assert (cells["random"].status, cells["random"].reason_code) == ("unavailable", Reason.DATA_MISSING)
    assert (cells["test_length"].status, cells["test_length"].reason_code) == ("ok", None)


def test_weights_not_in_the_hub_cache_offline_are_weights_missing(vlc_run, sample_root, tmp_path, monkeypatch):
    import huggingface_hub.constants

    from vlc_harness.testing import require

    require("open_clip")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_CACHE", str(tmp_path / "empty-hub"))
    out = _run(vlc_run, sample_root, "open_clip:arch=ViT-B-32,pretrained=openai")
    assert out.exit_code == 3, out.output  # nothing could be computed
    (cell,) = vlc_run.store().latest_cells()
    assert cell.status == "unavailable" and "HF_HUB_OFFLINE" in cell.error
    assert cell.reason_code == Reason.WEIGHTS_MISSING


def test_the_version_gate_is_version_too_old(vlc_run, sample_root, faulty):
    from vlc_harness_builtins.models.versions import require

    with pytest.raises(errors.WeightsUnavailable) as raised:
        require({"numpy": "999.0"}, "x")
    assert raised.value.code == Reason.VERSION_TOO_OLD
    assert _run(vlc_run, sample_root, "test_version_gate").exit_code == 3  # nothing could be computed
    cell = _cells(vlc_run)["test_version_gate"]
    assert cell.status == "unavailable" and "numpy>=999.0" in cell.error
    assert cell.reason_code == Reason.VERSION_TOO_OLD


def test_an_api_401_is_auth(vlc_run, sample_root, tmp_path, monkeypatch):
    from vlc_harness.testing import require

    require("openai")
    from vlc_harness.testing.fake_openai import FakeOpenAI

    monkeypatch.setenv("VLC_API_KEY_REASON", "sk-vlc-test-the-wrong-key-0123")
    monkeypatch.setenv("VLC_API_KEY_REASON_HOSTS", "127.0.0.1")  # the fake server's host
    with FakeOpenAI(api_key="sk-vlc-test-the-right-key-4567") as server:
        for kind in ("openai_choice", "openai_logprob"):
            entry = {
                "id": kind,
                "type": kind,
                "params": {"model": "fake-vision", "base_url": server.url, "image_max_side": 32},
                "run": {"api_key_env": "VLC_API_KEY_REASON", "concurrency": 2, "max_retries": 0},
            }
            registry = tmp_path / f"{kind}.yaml"
            registry.write_text(json.dumps({"models": [entry], "benchmarks": []}))
            out = vlc_run("-m", kind, "-b", SC, "--limit", "1", "--registry", str(registry), data_root=sample_root)
            assert out.exit_code == 0, out.output
            cell = _cells(vlc_run)[kind]
            assert cell.status == "partial" and "HTTP 401" in cell.error
            assert cell.reason_code == Reason.AUTH, kind  # not "limited": the requests failing is the news


@pytest.mark.parametrize(
    "model, code",
    [
        # MemoryError in the worker process, by its type (tests/run/test_inprocess_executor.py: in this one)
        pytest.param("test_memory", Reason.OUT_OF_MEMORY, marks=pytest.mark.vlc_worker_process),
        pytest.param("test_hang:run.timeout_s=2", Reason.TIMEOUT, marks=pytest.mark.vlc_worker_process),
        pytest.param("test_segfault", Reason.WORKER_DIED, marks=pytest.mark.vlc_worker_process),
        pytest.param("test_exit", Reason.WORKER_DIED, marks=pytest.mark.vlc_worker_process),
        ("test_raises", Reason.WORKER_ERROR),
        ("test_nan", Reason.SCORE_ERROR),  # non-finite scores fail their instances
    ],
)
def test_a_failing_worker_or_model_is_coded_by_what_happened(vlc_run, sample_root, faulty, model, code):
    assert _run(vlc_run, sample_root, model).exit_code == 3  # its one cell failed: nothing computed
    cell = _cells(vlc_run)[model]
    assert (cell.status, cell.reason_code) == ("failed", code), cell.error


def test_missing_images_fail_their_instances_as_image_errors(vlc_run, sample_root, faulty):
    swap = json.loads((sample_root / "sugarcrepe" / "swap_obj.json").read_text())
    (sample_root / "coco" / "val2017" / swap["0"]["filename"]).unlink()
    assert _run(vlc_run, sample_root, "test_pixels").exit_code == 3  # its one cell failed: nothing computed
    cell = _cells(vlc_run)["test_pixels"]
    assert (cell.status, cell.n_failed, cell.reason_code) == ("failed", 1, Reason.IMAGE_ERROR)


def test_a_scores_file_without_the_benchmark_is_scores_missing(vlc_run, sample_root, tmp_path):
    scores = tmp_path / "scores.jsonl"
    line = {"benchmark": "other", "version": "v", "instance": "x/0", "image": 0, "text": 0, "score": 0.5}
    scores.write_text(json.dumps(line) + "\n")
    assert _run(vlc_run, sample_root, f"precomputed:path={scores}").exit_code == 3  # nothing computed
    (cell,) = vlc_run.store().latest_cells()
    assert cell.status == "failed" and "has no score for sugarcrepe" in cell.error
    assert cell.reason_code == Reason.SCORES_MISSING


def test_limited_failed_requests_skipped_and_ok(vlc_run, sample_root, faulty):
    assert _run(vlc_run, sample_root, "random", "test_first", extra=("--limit", "1")).exit_code == 0
    # shapes asks no multiple choice (4 scenes of it: rendering the default 3,140 images took most of this test)
    out = vlc_run("-m", "test_first", "-b", SHAPES, data_root=sample_root)
    assert out.exit_code == 3, out.output  # its one cell is skipped: nothing computed
    cells = {(c.model_id, c.benchmark_id): c for c in vlc_run.store().latest_cells()}
    codes = {key: (c.status, c.reason_code) for key, c in cells.items()}
    assert codes[("random", SC)] == ("partial", Reason.LIMITED)
    # limited too, but its failed requests (the cat captions' 'network') are what a rerun mends
    assert codes[("test_first", SC)] == ("partial", Reason.REQUEST_FAILED)
    assert "HTTP 503" in cells[("test_first", SC)].error
    assert codes[("test_first", SHAPES)] == ("skipped", Reason.NOT_APPLICABLE)
    assert _run(vlc_run, sample_root, "random").exit_code == 0
    assert _cells(vlc_run)["random"].reason_code is None  # an ok cell needs no reason


def test_an_in_process_model_out_of_memory_and_a_cuda_oom_by_type(sample_root, tmp_path):
    from vlc_harness import evaluate
    from vlc_harness.models import Identity, PairScoringModel

    class Hungry(PairScoringModel):
        type_name = "test_hungry"
        needs_pixels = False

        def identify(self):
            return Identity("none", "fp64", "score_pairs/test")

        def score_pairs(self, groups):
            raise MemoryError("no room")

    url = f"sqlite:///{tmp_path / 's.sqlite'}"
    results = evaluate(Hungry(Hungry.Params(), Hungry.Run()), [SC], data_root=sample_root, store=url)
    assert results.status(SC) == "failed" and results.reason_code(SC) == Reason.OUT_OF_MEMORY
    assert open_store(url).latest_cells()[0].reason_code == Reason.OUT_OF_MEMORY

    from vlc_harness.testing import require

    require("torch")
    import torch

    assert errors.reason_of(torch.cuda.OutOfMemoryError("CUDA out of memory")) == Reason.OUT_OF_MEMORY
    # the text alone decides nothing: a RuntimeError that says "out of memory" is a worker error
    assert errors.reason_of(RuntimeError("CUDA out of memory; HF_HUB_OFFLINE; HTTP 401")) == Reason.WORKER_ERROR
