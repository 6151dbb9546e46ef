"""Compositionality-tuned checkpoints (open_clip_tuned): the published layouts on synthetic state
dicts with the real key names and shapes (OpenAI ViT-B/32 in open_clip, meta device), LoRA merging,
QuickGELU, and identification without torch."""

from __future__ import annotations

import subprocess
import sys

import pytest

from vlc_harness.errors import WeightsUnavailable
from vlc_harness.params import build

# Tensors the OpenAI ViT-B/32 state dict is known to hold (name: shape), as NegCLIP, CE-CLIP, DAC
# and FSC-CLIP (all fine-tuned from it) keep them.
OPENAI_VIT_B_32 = {
    "visual.conv1.weight": (768, 3, 32, 32),
    "visual.class_embedding": (768,),
    "visual.positional_embedding": (50, 768),
    "visual.transformer.resblocks.11.attn.in_proj_weight": (2304, 768),
    "visual.transformer.resblocks.11.mlp.c_fc.weight": (3072, 768),
    "visual.proj": (768, 512),
    "token_embedding.weight": (49408, 512),
    "positional_embedding": (77, 512),
    "transformer.resblocks.11.attn.out_proj.weight": (512, 512),
    "text_projection": (512, 512),
    "logit_scale": (),
}
RANK = 4  # DAC (--lora 4) and FSC-CLIP (--lora-rank 4)


def _vit_b_32():
    import open_clip
    import torch

    with torch.device("meta"):
        return open_clip.create_model("ViT-B-32", pretrained=None, force_quick_gelu=True, device="meta")


@pytest.fixture(scope="module")
def published_state():
    """OpenAI ViT-B/32's state dict layout as empty meta tensors."""
    from vlc_harness.testing import require

    require("open_clip")
    state = _vit_b_32().state_dict()
    for name, shape in OPENAI_VIT_B_32.items():
        assert tuple(state[name].shape) == shape, name
    return dict(state)


def _lora_factors(state, rank=RANK):
    """LoRA factors where the authors' layers put them, with their shapes (rank ``rank``)."""
    import torch

    out = {}
    with torch.device("meta"):
        for key, w in state.items():
            if key.endswith(("mlp.c_fc.weight", "mlp.c_proj.weight", "attn.out_proj.weight")):
                stem = key[: -len("weight")]
                out[stem + "lora_A"] = torch.empty(rank, w.shape[1])
                out[stem + "lora_B"] = torch.empty(w.shape[0], rank)
            elif key.endswith("attn.in_proj_weight"):
                out[key + "_lora_A"] = torch.empty(rank, w.shape[1])
                out[key + "_lora_B"] = torch.empty(w.shape[0], rank)
            elif key == "visual.conv1.weight":  # Conv2d(3, 768, k=32): A [r*k, in*k], B [out*k, r*k]
                k = w.shape[-1]
                out["visual.conv1.lora_A"] = torch.empty(rank * k, w.shape[1] * k)
                out["visual.conv1.lora_B"] = torch.empty(w.shape[0] * k, rank * k)
    return out


def test_an_open_clip_training_checkpoint_loads_strictly(published_state):
    from vlc_harness_builtins.models.openclip_tuned import load_strictly, remap_state_dict

    training = {
        "epoch": 10,
        "name": "negclip",
        "state_dict": {"module." + k: v for k, v in published_state.items()},
        "optimizer": {"state": {}, "param_groups": [{"lr": 1e-6}]},
    }
    for raw in (training, dict(published_state)):  # a DDP training checkpoint, or a bare state dict
        load_strictly(_vit_b_32(), remap_state_dict(raw, "open_clip"))


def test_dac_and_fsc_clip_lora_layouts_merge_and_load_strictly(published_state):
    from vlc_harness_builtins.models.openclip_tuned import load_strictly, remap_state_dict

    factors = _lora_factors(published_state)
    assert len(factors) == 2 * (24 * 4 + 1)  # 4 LoRA'd layers per block in 24 blocks, plus the patch conv
    raw = {"state_dict": {"module." + k: v for k, v in (published_state | factors).items()}}
    state = remap_state_dict(raw, "open_clip_lora")
    assert set(state) == set(published_state)
    load_strictly(_vit_b_32(), state)


def test_layout_mismatches_are_refused_with_the_names(published_state):
    import torch

    from vlc_harness_builtins.models.openclip_tuned import load_strictly, remap_state_dict

    factors = _lora_factors(published_state)
    with pytest.raises(ValueError, match="use layout open_clip_lora"):
        remap_state_dict(published_state | factors, "open_clip")
    with pytest.raises(ValueError, match="no LoRA factors"):
        remap_state_dict(dict(published_state), "open_clip_lora")
    half = dict(published_state) | {"visual.conv1.lora_A": factors["visual.conv1.lora_A"]}
    with pytest.raises(ValueError, match="without its pair"):
        remap_state_dict(half, "open_clip_lora")
    renamed = dict(published_state)
    renamed["visual.proj_renamed"] = renamed.pop("visual.proj")
    with pytest.raises(ValueError, match=r"missing: visual\.proj.*unexpected: visual\.proj_renamed"):
        load_strictly(_vit_b_32(), renamed)
    resized = dict(published_state)
    with torch.device("meta"):
        resized["text_projection"] = torch.empty(512, 768)
    with pytest.raises(ValueError, match="wrong shape: text_projection"):
        load_strictly(_vit_b_32(), resized)
    with pytest.raises(ValueError, match="non-tensors"):
        remap_state_dict({"state_dict": {"a": 1}}, "open_clip")


def test_merged_lora_equals_the_authors_forward():
    import torch
    import torch.nn.functional as F

    from vlc_harness_builtins.models.openclip_tuned import merge_lora

    torch.manual_seed(0)
    w, bias, a, b = torch.randn(6, 5), torch.randn(6), torch.randn(3, 5), torch.randn(6, 3)
    x = torch.randn(4, 5)
    merged = merge_lora({"fc.weight": w, "fc.bias": bias, "fc.lora_A": a, "fc.lora_B": b}, alpha=1.0)
    authors = F.linear(x, w, bias) + (x @ a.T @ b.T) * (1.0 / 3)  # loralib Linear.forward, unmerged
    assert torch.allclose(F.linear(x, merged["fc.weight"], merged["fc.bias"]), authors, atol=1e-5)
    # the patch Conv2d: W + (B @ A).view(W.shape) * alpha / r, with A [r*k, in*k] and B [out*k, r*k]
    cw, ca, cb = torch.randn(4, 3, 2, 2), torch.randn(2 * 2, 3 * 2), torch.randn(4 * 2, 2 * 2)
    img = torch.randn(1, 3, 4, 4)
    conv = merge_lora({"c.weight": cw, "c.lora_A": ca, "c.lora_B": cb}, alpha=1.0)["c.weight"]
    expected = F.conv2d(img, cw + (cb @ ca).view(cw.shape) * (1.0 / 2), stride=2)
    assert torch.allclose(F.conv2d(img, conv, stride=2), expected, atol=1e-5)


def test_the_tiny_lora_checkpoint_loads_with_quickgelu_and_scores(tmp_path):
    import numpy as np
    import torch
    from PIL import Image

    from vlc_harness.testing.examples import example_for
    from vlc_harness_builtins.models.openclip_tuned import OpenClipTuned
    from vlc_harness_builtins.testing.tiny_openclip import write_tiny_lora_checkpoint

    path = tmp_path / "tiny.pt"
    merged = write_tiny_lora_checkpoint(path)
    params = example_for(OpenClipTuned, tmp_path) | {"checkpoint": str(path)}
    model = OpenClipTuned(build(OpenClipTuned.Params, params), OpenClipTuned.Run())
    identity = model.identify()
    assert identity.weights.startswith("sha256:")
    assert identity.protocol == "embed/cosine/raw-caption/open_clip_lora/quickgelu/alpha=1"
    model.load("cpu")
    loaded = model._model.state_dict()
    assert all(torch.equal(loaded[k], v) for k, v in merged.items())
    assert type(model._model.visual.transformer.resblocks[0].mlp.gelu).__name__ == "QuickGELU"
    image = model.preprocess(Image.new("RGB", (40, 40), (120, 30, 200)))
    scores = model.pair_scores(model.embed_images([image, image]), model.embed_texts(["a cat", "a dog"]))
    assert np.isfinite(scores).all()
    gelu = OpenClipTuned(build(OpenClipTuned.Params, params | {"quick_gelu": False}), OpenClipTuned.Run())
    assert gelu.identify().protocol.endswith("/gelu/alpha=1") and gelu.identify().weights == identity.weights


def test_identify_names_the_missing_file_and_checks_the_published_sha256(tmp_path, monkeypatch):
    from vlc_harness.config import RunConfig
    from vlc_harness.models import build_model
    from vlc_harness_builtins.models.openclip_tuned import OpenClipTuned

    monkeypatch.setenv("VLC_HARNESS_DATA", str(tmp_path / "elsewhere"))  # the run's data root wins
    config = RunConfig(data_root=tmp_path)
    params = {"arch": "ViT-B-32", "checkpoint": "checkpoints/negclip/negclip.pth"}
    model = build_model(OpenClipTuned, build(OpenClipTuned.Params, params), OpenClipTuned.Run(), config)
    with pytest.raises(WeightsUnavailable, match=str(tmp_path / "checkpoints/negclip/negclip.pth")):
        model.identify()
    (tmp_path / "checkpoints/negclip").mkdir(parents=True)
    (tmp_path / "checkpoints/negclip/negclip.pth").write_bytes(b"not the published file")
    assert model.identify().weights.startswith("sha256:")
    pinned_params = build(OpenClipTuned.Params, params | {"sha256": "0" * 64})
    pinned = build_model(OpenClipTuned, pinned_params, OpenClipTuned.Run(), config)
    with pytest.raises(WeightsUnavailable, match="not the published sha256"):
        pinned.identify()
    hub = {"arch": "ViT-B-32", "checkpoint": "hf-hub:ytaek-oh/fsc-clip/coco_fsc-clip-ViT-B-32.pt"}
    with pytest.raises(WeightsUnavailable, match="ytaek-oh/fsc-clip"):  # HF_HUB_OFFLINE, nothing cached
        OpenClipTuned(build(OpenClipTuned.Params, hub), OpenClipTuned.Run()).identify()


@pytest.mark.subprocess
def test_identify_imports_no_torch(tmp_path):
    checkpoint = tmp_path / "file.pt"
    checkpoint.write_bytes(b"x")
    code = (
        "import sys; from vlc_harness.params import build;"
        "from vlc_harness_builtins.models.openclip_tuned import OpenClipTuned as T;"
        f"m = T(build(T.Params, {{'arch': 'ViT-B-32', 'checkpoint': {str(checkpoint)!r}}}), T.Run());"
        "print(m.identify().weights.split(':')[0]); print('torch' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["sha256", "False"]
