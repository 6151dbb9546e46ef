"""open_clip plugin: weights identity, unavailable weights, precision rules."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from vlc_harness.errors import WeightsUnavailable
from vlc_harness.models import RunOptions
from vlc_harness.params import build
from vlc_harness.testing import require
from vlc_harness_builtins.models.openclip import OpenClip


def model(**params) -> OpenClip:
    return OpenClip(build(OpenClip.Params, params), RunOptions())


def test_local_checkpoint_is_identified_by_its_sha256(tiny_clip):
    require("open_clip")
    digest = hashlib.sha256(Path(tiny_clip["checkpoint"]).read_bytes()).hexdigest()
    identity = model(arch="ViT-B-32", pretrained=tiny_clip["checkpoint"]).identify()
    assert identity.weights == f"sha256:{digest}" and identity.dtype == "fp32"
    assert model(arch="ViT-B-32", init_seed=3).identify().weights.startswith("random-init:seed=3:torch=")


def test_pretrained_tag_without_cache_or_network_is_unavailable(tmp_path, monkeypatch):
    require("open_clip")
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "empty_hub_cache"))
    import huggingface_hub.constants

    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_CACHE", str(tmp_path / "empty_hub_cache"))
    with pytest.raises(WeightsUnavailable, match="timm/vit_base_patch32_clip_224.openai"):
        model(arch="ViT-B-32", pretrained="openai").identify()


def test_unavailable_weights_make_the_cell_unavailable(vlc_run, tmp_path, sample_root, monkeypatch):
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "empty_hub_cache"))
    out = vlc_run(
        "-m",
        "open_clip:arch=ViT-B-32-quickgelu,pretrained=openai",
        "-b",
        "sugarcrepe:version=custom",
        data_root=sample_root,
    )
    assert out.exit_code == 3, out.output  # the grid's one cell is unavailable: nothing could be computed
    (cell,) = vlc_run.store().latest_cells()
    assert cell.status == "unavailable" and "not in the local Hugging Face cache" in cell.error


def test_unknown_tag_and_cpu_half_precision_fail_clearly(vlc_run, sample_root, tiny_spec):
    out = vlc_run(
        "-m",
        "open_clip:arch=ViT-B-32,pretrained=no_such_tag",
        "-m",
        tiny_spec + ",precision=bf16,run.device=cpu",
        "-b",
        "sugarcrepe:version=custom",
        data_root=sample_root,
    )
    assert out.exit_code == 3  # both cells failed: nothing computed
    cells = {c.model_id: c for c in vlc_run.store().latest_cells()}
    tag_cell = cells["open_clip:arch=ViT-B-32,pretrained=no_such_tag"]
    assert tag_cell.status == "failed" and "neither a file nor a tag of ViT-B-32" in tag_cell.error
    assert "laion2b_s34b_b79k" in tag_cell.error
    bf16_cell = cells[tiny_spec + ",precision=bf16,run.device=cpu"]
    assert bf16_cell.status == "failed" and "needs a CUDA device" in bf16_cell.error
