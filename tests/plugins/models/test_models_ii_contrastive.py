"""Contrastive models of 2026: transformers' Siglip2Model (NaFlex) through hf_contrastive, and the
installed-version gates that make a model unknown to this open_clip / transformers `unavailable`."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from vlc_harness.errors import WeightsUnavailable
from vlc_harness.models import RunOptions
from vlc_harness.params import build

TEXTS = ["a red square above a blue circle", "a blue circle above a red square", "two green triangles"]


def save_tiny_siglip2(folder: Path, seed: int = 0) -> Path:
    """A 2-layer Siglip2Model (NaFlex: up to 16 patches of 8x8) with a real ``Siglip2Tokenizer``
    saved with its class defaults (left padding, a mask), which the plugin must not follow.

    (A word-level tokenizer saved here would be loaded as ``Siglip2Tokenizer`` by transformers 5,
    which overrides the tokenizer class of ``siglip2`` checkpoints, and tokenize to unknowns.)"""
    import torch
    from transformers import Siglip2Config, Siglip2ImageProcessor, Siglip2Model

    from tests.plugins.models.tokenizers_offline import gemma_bpe_tokenizer
    from vlc_harness_builtins.testing.tiny_hf import TINY_LAYERS

    if (folder / "config.json").is_file():
        return folder
    tok = gemma_bpe_tokenizer(folder, "Siglip2Tokenizer")
    text = {"vocab_size": len(tok), "hidden_size": 32, "max_position_embeddings": 16, **TINY_LAYERS}
    text |= {"pad_token_id": tok.pad_token_id, "eos_token_id": tok.eos_token_id, "bos_token_id": tok.bos_token_id}
    vision = {"hidden_size": 32, "patch_size": 8, "num_patches": 16, **TINY_LAYERS}
    torch.manual_seed(seed)
    model = Siglip2Model(Siglip2Config(text_config=text, vision_config=vision))
    with torch.no_grad():
        model.logit_bias.fill_(-2.0)
    model.save_pretrained(folder)
    Siglip2ImageProcessor(patch_size=8, max_num_patches=16).save_pretrained(folder)
    return folder


@pytest.fixture(scope="module")
def tiny_siglip2(tmp_path_factory):
    from vlc_harness.testing import require

    require("transformers")
    return save_tiny_siglip2(tmp_path_factory.mktemp("siglip2") / "tiny")


def _images():
    from PIL import Image

    # different aspect ratios: NaFlex keeps them, so the patch grids (and masks) differ
    return [Image.new("RGB", (50, 30), (200, 20, 20)), Image.new("RGB", (24, 64), (20, 20, 220))]


def test_siglip2_naflex_scores_are_the_models_own_logits(tiny_siglip2):
    import torch
    from transformers import AutoModel, Siglip2ImageProcessor, Siglip2Tokenizer

    from vlc_harness_builtins.models.hf_contrastive import HfContrastive

    model = HfContrastive(build(HfContrastive.Params, {"checkpoint": str(tiny_siglip2)}), RunOptions())
    identity = model.identify()
    assert identity.protocol == "embed/siglip_logit/pad-max_length-right/input-ids-only/siglip-text"
    model.load("cpu")
    batch = [model.preprocess(im) for im in _images()]
    assert set(batch[0]) == {"pixel_values", "pixel_attention_mask", "spatial_shapes"}
    assert batch[0]["spatial_shapes"].tolist() != batch[1]["spatial_shapes"].tolist()
    image_vecs, text_vecs = model.embed_images(batch), model.embed_texts(TEXTS)
    ours = np.array([[model.pair_scores(image_vecs[[i]], text_vecs[[j]])[0] for j in range(3)] for i in range(2)])

    reference = AutoModel.from_pretrained(tiny_siglip2).eval()
    # the published tokenizer's settings (convert_siglip2_to_hf.py): right padding, input ids only
    tokenizer = Siglip2Tokenizer.from_pretrained(tiny_siglip2, padding_side="right", model_input_names=["input_ids"])
    text = tokenizer(TEXTS, padding="max_length", max_length=16, return_tensors="pt")
    pixels = Siglip2ImageProcessor.from_pretrained(tiny_siglip2)(images=_images(), return_tensors="pt")
    with torch.no_grad():
        logits = reference(input_ids=text["input_ids"], **pixels).logits_per_image.numpy()
    np.testing.assert_allclose(ours, logits, rtol=1e-4, atol=1e-4)
    assert float(np.abs(ours[0] - ours[1]).max()) > 1e-4  # the two images score differently


def test_siglip2_captions_are_padded_to_the_text_towers_length(tiny_siglip2, monkeypatch):
    from vlc_harness_builtins.models.hf_contrastive import HfContrastive

    model = HfContrastive(build(HfContrastive.Params, {"checkpoint": str(tiny_siglip2)}), RunOptions())
    model.load("cpu")
    seen = {}
    original = model._model.get_text_features

    def spy(**inputs):
        seen["shape"] = tuple(inputs["input_ids"].shape)
        return original(**inputs)

    monkeypatch.setattr(model._model, "get_text_features", spy)
    model.embed_texts(["a cat"])
    assert seen["shape"] == (1, 16)  # max_length padding, never the batch's longest caption


def test_siglip2_needs_a_transformers_that_knows_it(tiny_siglip2, monkeypatch):
    from vlc_harness_builtins.models import versions
    from vlc_harness_builtins.models.hf_contrastive import HfContrastive

    monkeypatch.setattr(versions, "installed", lambda dist: "4.49.0" if dist == "transformers" else "99")
    model = HfContrastive(build(HfContrastive.Params, {"checkpoint": str(tiny_siglip2)}), RunOptions())
    with pytest.raises(WeightsUnavailable, match=r"transformers>=4\.50\.0 \(installed: 4\.49\.0\)"):
        model.identify()


@pytest.mark.parametrize(
    ("arch", "tag", "needs"),
    [
        ("ViT-SO400M-16-SigLIP2-384", "webli", "open_clip_torch>=2.31.0"),
        ("ViT-gopt-16-SigLIP2-384", "webli", "timm>=1.0.15"),
        ("PE-Core-L-14-336", "meta", "open_clip_torch>=3.0.0"),
        ("ViT-H-14-worldwide-quickgelu", "metaclip2_worldwide", "open_clip_torch>=3.1.0"),
        ("MobileCLIP2-S4", "dfndr2b", "timm>=1.0.20"),
        ("ViT-H-14-quickgelu", "dfn5b", "open_clip_torch>=2.24.0"),
        ("EVA02-L-14", "merged2b_s4b_b131k", "open_clip_torch>=2.20.0"),
    ],
)
def test_an_old_open_clip_makes_new_models_unavailable_naming_the_version(monkeypatch, arch, tag, needs):
    from vlc_harness_builtins.models import versions
    from vlc_harness_builtins.models.openclip import OpenClip

    old = {"open_clip_torch": "2.0.2", "timm": "0.9.2"}
    monkeypatch.setattr(versions, "installed", lambda dist: old.get(dist))
    model = OpenClip(build(OpenClip.Params, {"arch": arch, "pretrained": tag}), OpenClip.Run())
    with pytest.raises(WeightsUnavailable, match=needs.replace(".", r"\.")):
        model.identify()


def test_the_gate_leaves_older_models_and_other_tags_alone(monkeypatch):
    from vlc_harness_builtins.models import versions

    monkeypatch.setattr(versions, "installed", lambda dist: "2.0.0")
    versions.require_open_clip_model("ViT-B-32", "openai")
    versions.require_open_clip_model("ViT-H-14", "laion2b_s32b_b79k")  # the dfn5b minimum is for that tag only
    with pytest.raises(WeightsUnavailable):
        versions.require_open_clip_model("ViT-H-14", "dfn5b")
    versions.require_transformers_model("clip")
    assert versions.version_tuple("2.31.0.dev3+cu121") == (2, 31, 0)
    assert versions.version_tuple("5.0.0rc1") == (5, 0, 0)


def test_the_installed_packages_know_every_registry_model(vlc_plugins):
    """This machine's open_clip/timm/transformers are new enough for every open_clip entry."""
    import yaml

    from vlc_harness_builtins.models import versions

    data = yaml.safe_load((Path(__file__).resolve().parents[3] / "registry.yaml").read_text())
    for entry in data["models"]:
        if entry["type"] in ("open_clip", "open_clip_tuned") and isinstance(entry["params"]["arch"], str):
            versions.require_open_clip_model(entry["params"]["arch"], entry["params"].get("pretrained"))
    for model_type in versions.TRANSFORMERS_REQUIREMENTS:
        versions.require_transformers_model(model_type)


def test_an_unavailable_cell_says_which_version_it_needs(monkeypatch, sample_root, vlc_run):
    from vlc_harness_builtins.models import versions

    monkeypatch.setattr(versions, "installed", lambda dist: {"open_clip_torch": "2.24.0"}.get(dist, "99"))
    out = vlc_run(
        "-m",
        "open_clip:arch=ViT-SO400M-16-SigLIP2-384,pretrained=webli",
        "-b",
        "sugarcrepe:version=custom",
        data_root=sample_root,
    )
    assert out.exit_code == 3, out.output  # the grid's one cell is unavailable: nothing could be computed
    assert "unavailable" in out.output and "open_clip_torch>=2.31.0" in out.output
