"""Structure checks of the Models II families: each published config (vendored in
tests/fixtures/models_ii_configs, see its SOURCE.md) is built on the meta device with the class the
harness loads it with, and checked against the tensor names and shapes the loader and scorer rely
on and against the registry's ``parameters_m``. No weights, no network."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[3]
CONFIGS = Path(__file__).resolve().parents[2] / "fixtures" / "models_ii_configs"
REGISTRY = {e["id"]: e for e in yaml.safe_load((REPO / "registry.yaml").read_text())["models"]}
OPEN_CLIP_ENTRIES = sorted(
    i
    for i, e in REGISTRY.items()
    if e["type"] == "open_clip" and (CONFIGS / "open_clip" / f"{e['params']['arch']}.json").is_file()
)
TIMM_PATCH = {  # timm towers: (patch size, extra position tokens: a class token, or none for SigLIP's MAP head)
    "ViT-SO400M-16-SigLIP2-384": (16, 0),
    "ViT-gopt-16-SigLIP2-384": (16, 0),
    "PE-Core-B-16": (16, 1),
    "PE-Core-L-14-336": (14, 1),
    "PE-Core-bigG-14-448": (14, 0),  # attention-pooled, no class token
    "EVA02-L-14": (14, 1),
    "EVA02-E-14-plus": (14, 1),
    "MobileCLIP2-L-14": (14, 1),
}
HF_ENTRIES = {
    "siglip2-so400m-patch16-naflex": "google--siglip2-so400m-patch16-naflex.json",
    "vqascore-qwen2.5-vl-7b": "Qwen--Qwen2.5-VL-7B-Instruct.json",
    "vqascore-qwen3-vl-8b": "Qwen--Qwen3-VL-8B-Instruct.json",
    "vqascore-internvl3-8b": "OpenGVLab--InternVL3-8B-hf.json",
    "vqascore-llava-onevision-qwen2-7b": "llava-hf--llava-onevision-qwen2-7b-ov-hf.json",
}


def _n_params(model) -> float:
    return sum(p.numel() for p in model.parameters()) / 1e6


def test_every_new_open_clip_family_has_a_vendored_config():
    families = {"SigLIP2", "EVA02", "PE-Core", "MobileCLIP2", "worldwide", "ViT-H-14-quickgelu"}
    archs = {REGISTRY[i]["params"]["arch"] for i in OPEN_CLIP_ENTRIES}
    assert all(any(f in a for a in archs) for f in families), archs
    assert len(OPEN_CLIP_ENTRIES) >= 15


@pytest.mark.parametrize("entry_id", OPEN_CLIP_ENTRIES)
def test_open_clip_published_configs_build_with_the_expected_tensors(entry_id):
    import open_clip
    import torch

    entry = REGISTRY[entry_id]
    arch = entry["params"]["arch"]
    published = json.loads((CONFIGS / "open_clip" / f"{arch}.json").read_text())
    assert open_clip.get_model_config(arch) == published, f"the installed open_clip's {arch} differs from v3.3.0's"
    with torch.device("meta"):
        model = open_clip.create_model(arch, pretrained=None, pretrained_text=False, device="meta")
    state = model.state_dict()
    assert _n_params(model) == pytest.approx(entry["meta"]["parameters_m"], rel=5e-3)

    text, vision = published["text_cfg"], published["vision_cfg"]
    prefix = "text." if published.get("custom_text") or "hf_model_name" in text else ""
    if "hf_model_name" not in text:
        assert tuple(state[prefix + "token_embedding.weight"].shape) == (text["vocab_size"], text["width"])
        assert tuple(state[prefix + "positional_embedding"].shape) == (text["context_length"], text["width"])
    size = vision["image_size"]
    if "timm_model_name" not in vision:  # open_clip's own ViT: class token + grid of patches
        patch = vision["patch_size"]
        assert tuple(state["visual.conv1.weight"].shape) == (vision["width"], 3, patch, patch)
        assert tuple(state["visual.positional_embedding"].shape) == ((size // patch) ** 2 + 1, vision["width"])
        assert tuple(state["visual.proj"].shape) == (vision["width"], published["embed_dim"])
    elif arch in TIMM_PATCH:  # timm ViT towers: the patch size their tag names, a position per patch (+ class)
        patch, extra = TIMM_PATCH[arch]
        assert tuple(state["visual.trunk.patch_embed.proj.weight"].shape[1:]) == (3, patch, patch)
        assert state["visual.trunk.pos_embed"].shape[1] == (size // patch) ** 2 + extra
    else:  # MobileCLIP2's FastViT and convolutional-stem towers: no single patch embedding to check
        assert arch.startswith("MobileCLIP2-") and vision["timm_model_name"].startswith(("fastvit_", "vit_base_mci"))
    assert ("logit_bias" in state) == ("init_logit_bias" in published)
    assert state["logit_scale"].numel() == 1


def test_the_tuned_checkpoints_architecture_is_openai_vit_b_32():
    import open_clip
    import torch

    published = json.loads((CONFIGS / "open_clip" / "ViT-B-32.json").read_text())
    assert open_clip.get_model_config("ViT-B-32") == published
    tuned = [e for e in REGISTRY.values() if e["type"] == "open_clip_tuned"]
    assert {e["params"]["arch"] for e in tuned} == {"ViT-B-32"} and len(tuned) >= 6
    with torch.device("meta"):
        model = open_clip.create_model("ViT-B-32", pretrained=None, force_quick_gelu=True, device="meta")
    assert _n_params(model) == pytest.approx(151.3, abs=0.1)
    assert all(e["meta"]["parameters_m"] == 151 for e in tuned)
    assert type(model.transformer.resblocks[0].mlp.gelu).__name__ == "QuickGELU"


def _hf_model(file: str):
    import torch
    import transformers

    config = json.loads((CONFIGS / "hf" / file).read_text())
    cls = getattr(transformers, config.pop("architectures")[0])
    config.pop("model_type")
    with torch.device("meta"):
        return cls(cls.config_class(**config))


@pytest.mark.parametrize("entry_id", sorted(HF_ENTRIES))
def test_hf_published_configs_build_with_the_registry_size(entry_id):
    model = _hf_model(HF_ENTRIES[entry_id])
    entry = REGISTRY[entry_id]
    assert _n_params(model) == pytest.approx(entry["meta"]["parameters_m"], rel=5e-3)
    model_type = model.config.model_type
    plugins = {
        "siglip2": "hf_contrastive",
        "qwen2_5_vl": "vqascore_qwen_vl",
        "qwen3_vl": "vqascore_qwen_vl",
        "internvl": "vqascore_internvl",
        "llava_onevision": "vqascore_llava_onevision",
    }
    assert entry["type"] == plugins[model_type]


def test_siglip2_naflex_text_and_patch_layout():
    model = _hf_model(HF_ENTRIES["siglip2-so400m-patch16-naflex"])
    state = model.state_dict()
    # max_length padding: the text tower holds 64 positions, which the plugin pads every caption to
    assert tuple(state["text_model.embeddings.position_embedding.weight"].shape) == (64, 1152)
    # NaFlex: a linear patch embedding over flattened 16x16x3 patches and 256 learned positions
    assert tuple(state["vision_model.embeddings.patch_embedding.weight"].shape) == (1152, 16 * 16 * 3)
    assert tuple(state["vision_model.embeddings.position_embedding.weight"].shape) == (256, 1152)
    assert tuple(state["logit_scale"].shape) == (1,) and tuple(state["logit_bias"].shape) == (1,)


def test_generative_layouts_match_what_the_scorers_use():
    qwen25 = _hf_model(HF_ENTRIES["vqascore-qwen2.5-vl-7b"])
    qwen3 = _hf_model(HF_ENTRIES["vqascore-qwen3-vl-8b"])
    internvl = _hf_model(HF_ENTRIES["vqascore-internvl3-8b"])
    onevision = _hf_model(HF_ENTRIES["vqascore-llava-onevision-qwen2-7b"])
    for model in (qwen25, qwen3, internvl, onevision):
        config = model.config
        image_token = getattr(config, "image_token_id", None) or config.image_token_index
        assert image_token < config.text_config.vocab_size
        assert hasattr(model, "get_image_features")
        hidden = config.text_config.hidden_size
        assert tuple(model.lm_head.weight.shape) == (config.text_config.vocab_size, hidden)
    for qwen in (qwen25, qwen3):  # M-RoPE positions come from the model's own rope index
        assert callable(qwen.model.get_rope_index)
    # Qwen3-VL: one DeepStack merger per listed vision layer, each into the decoder's width
    assert (
        len(qwen3.model.visual.deepstack_merger_list) == len(qwen3.config.vision_config.deepstack_visual_indexes) == 3
    )
    assert qwen3.model.visual.deepstack_merger_list[0].linear_fc2.out_features == 4096
    # InternVL: pixel shuffle 0.5 turns 32x32 patches of a 448 tile into 256 tokens of 4x the width
    state = internvl.state_dict()
    assert tuple(state["model.multi_modal_projector.linear_1.weight"].shape) == (3584, 1024 * 4)
    assert internvl.config.image_seq_length == (448 // 14) ** 2 // 4
    # LLaVA-OneVision: a learned newline per row of crops, a 2-layer projector from SigLIP's width
    state = onevision.state_dict()
    assert tuple(state["model.image_newline"].shape) == (3584,)
    assert tuple(state["model.multi_modal_projector.linear_1.weight"].shape) == (3584, 1152)
