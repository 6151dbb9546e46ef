"""hf_contrastive scored against transformers' own documented pipelines, on one set of tiny random
weights per family and the real tokenizer classes built offline (tests/plugins/models/tokenizers_offline.py).

(a) the harness plugin: ``HfContrastive`` load / preprocess / embed_images / embed_texts / pair_scores;
(b) upstream, as the model cards call it: the family's processor on all captions and images at once,
    then ``model(**inputs).logits_per_image``:

* CLIP: ``CLIPProcessor(text=..., images=..., padding=True)`` (``CLIPTokenizer``'s ids and mask).
* SigLIP: the tokenizer as ``convert_siglip_to_hf.py`` builds it for the published checkpoints
  (``SiglipTokenizer(..., model_input_names=["input_ids"])``), ``SiglipProcessor(...,
  padding="max_length")`` as the model card.
* SigLIP 2 NaFlex: the tokenizer as ``convert_siglip2_to_hf.py`` builds it (right padding, input
  ids only), ``Siglip2Processor(..., padding="max_length", max_length=64)`` as transformers' docs.

The plugin's checkpoints keep their tokenizers' class defaults (``Siglip2Tokenizer`` pads on the
left and returns a mask; ``SiglipTokenizer`` returns a mask), so the plugin must not rely on them.
Scores are compared as the same quantity: SigLIP's logit ``exp(t) * cos + b`` is
``logits_per_image``; CLIP's cosine times ``exp(logit_scale)`` is CLIP's ``logits_per_image``.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from vlc_harness.models import RunOptions
from vlc_harness.params import build
from vlc_harness.testing import require

require("transformers")
require("sentencepiece")

TEXT_POSITIONS = 64  # SigLIP's and SigLIP 2's text towers, as published
TINY = {"hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 2, "intermediate_size": 64}
# SugarCrepe-style hard negatives (image, positive, negative): swapped words and attributes, and
# captions of very different lengths, so that padding matters.
CASES = (
    (0, "a red cat on the table", "a table on the red cat"),
    (0, "A dog chasing a white horse.", "A white dog chasing a horse."),
    (1, "a man holding a blue car", "a blue man holding a car"),
    (1, "a square", "a square left of a yellow triangle next to a black circle under the table"),
    (2, "the woman behind the green dog", "the dog behind the green woman"),
    (2, "Two circles above a large square, left of a triangle.", "a circle"),
    (3, "A black horse right of a white car", "A white horse right of a black car"),
    (3, "a cat", "the cat under the table"),
)
TEXTS = sorted({t for _, pos, neg in CASES for t in (pos, neg)})


def _images():
    from PIL import Image

    rng = np.random.default_rng(0)
    sizes = ((48, 32), (32, 64), (40, 40), (72, 24))  # different aspect ratios: NaFlex keeps them
    return [Image.fromarray(rng.integers(0, 256, (h, w, 3), dtype=np.uint8)) for w, h in sizes]


def _text_config(tokenizer, positions: int) -> dict:
    ids = {"pad_token_id": tokenizer.pad_token_id, "eos_token_id": tokenizer.eos_token_id}
    ids["bos_token_id"] = tokenizer.bos_token_id  # None where there is none (SigLIP)
    return {"vocab_size": len(tokenizer), "max_position_embeddings": positions, **TINY, **ids}


@pytest.fixture(scope="module")
def tiny_clip(tmp_path_factory) -> Path:
    """A 2-layer CLIPModel with a real ``CLIPTokenizer`` (class defaults)."""
    import torch
    from transformers import CLIPConfig, CLIPImageProcessor, CLIPModel

    from tests.plugins.models.tokenizers_offline import clip_tokenizer

    folder = tmp_path_factory.mktemp("upstream") / "clip"
    tokenizer = clip_tokenizer(folder)
    vision = {**TINY, "image_size": 32, "patch_size": 8}
    torch.manual_seed(0)
    config = CLIPConfig(text_config=_text_config(tokenizer, 77), vision_config=vision, projection_dim=16)
    CLIPModel(config).save_pretrained(folder)
    CLIPImageProcessor(size={"shortest_edge": 32}, crop_size={"height": 32, "width": 32}).save_pretrained(folder)
    return folder


def _save_siglip_model(folder: Path, tokenizer) -> Path:
    """A 2-layer SiglipModel (32x32 images, a non-zero logit bias) beside ``tokenizer``."""
    import torch
    from transformers import SiglipConfig, SiglipImageProcessor, SiglipModel

    vision = {**TINY, "image_size": 32, "patch_size": 8}
    torch.manual_seed(0)
    model = SiglipModel(SiglipConfig(text_config=_text_config(tokenizer, TEXT_POSITIONS), vision_config=vision))
    with torch.no_grad():
        model.logit_bias.fill_(-2.0)
    model.save_pretrained(folder)
    SiglipImageProcessor(size={"height": 32, "width": 32}).save_pretrained(folder)
    return folder


@pytest.fixture(scope="module")
def tiny_siglip(tmp_path_factory) -> Path:
    """A SiglipModel with a real ``SiglipTokenizer`` (class defaults: it returns a mask)."""
    from tests.plugins.models.tokenizers_offline import siglip_tokenizer

    folder = tmp_path_factory.mktemp("upstream") / "siglip"
    return _save_siglip_model(folder, siglip_tokenizer(folder))


@pytest.fixture(scope="module")
def tiny_siglip2(tmp_path_factory) -> Path:
    """A 2-layer Siglip2Model (NaFlex, up to 16 patches of 8x8) with a real ``Siglip2Tokenizer``
    (class defaults: left padding, a mask)."""
    import torch
    from transformers import Siglip2Config, Siglip2ImageProcessor, Siglip2Model

    from tests.plugins.models.tokenizers_offline import gemma_bpe_tokenizer

    folder = tmp_path_factory.mktemp("upstream") / "siglip2"
    tokenizer = gemma_bpe_tokenizer(folder, "Siglip2Tokenizer")
    vision = {**TINY, "patch_size": 8, "num_patches": 16}
    torch.manual_seed(0)
    model = Siglip2Model(Siglip2Config(text_config=_text_config(tokenizer, TEXT_POSITIONS), vision_config=vision))
    with torch.no_grad():
        model.logit_bias.fill_(-2.0)
    model.save_pretrained(folder)
    Siglip2ImageProcessor(patch_size=8, max_num_patches=16).save_pretrained(folder)
    return folder


@pytest.fixture(scope="module")
def tiny_siglip2_fixres(tmp_path_factory) -> Path:
    """A SiglipModel with a real ``GemmaTokenizer`` (class defaults), as fixed-resolution SigLIP 2
    checkpoints are published (``model_type: siglip``, ``tokenizer_class: GemmaTokenizer``)."""
    from tests.plugins.models.tokenizers_offline import gemma_bpe_tokenizer

    folder = tmp_path_factory.mktemp("upstream") / "siglip2_fixres"
    return _save_siglip_model(folder, gemma_bpe_tokenizer(folder, "GemmaTokenizer"))


def _harness(folder: Path):
    from vlc_harness_builtins.models.hf_contrastive import HfContrastive

    model = HfContrastive(build(HfContrastive.Params, {"checkpoint": str(folder)}), RunOptions())
    model.identify()
    model.load("cpu")
    return model


def _harness_grid(folder: Path) -> np.ndarray:
    """[images, texts] scores through the plugin, each caption embedded in its own batch (the
    engine batches captions by length; the scores must not depend on it)."""
    model = _harness(folder)
    images = model.embed_images([model.preprocess(im) for im in _images()])
    texts = np.concatenate([model.embed_texts([t]) for t in TEXTS])
    rows = np.repeat(images, len(TEXTS), axis=0)
    cols = np.tile(texts, (len(images), 1))
    return model.pair_scores(rows, cols).reshape(len(images), len(TEXTS))


def _upstream_grid(model_cls, folder: Path, processor, texts=TEXTS, **call) -> tuple[np.ndarray, dict]:
    """``model(**processor(text=texts, images=..., **call)).logits_per_image`` and the inputs."""
    import torch

    model = model_cls.from_pretrained(folder).eval()
    inputs = processor(text=list(texts), images=_images(), return_tensors="pt", **call)
    with torch.no_grad():
        return model(**inputs).logits_per_image.numpy(), dict(inputs)


def _verdicts(grid: np.ndarray) -> list[bool]:
    """Per case: does the positive caption outscore the negative?"""
    col = {t: j for j, t in enumerate(TEXTS)}
    return [bool(grid[i, col[pos]] > grid[i, col[neg]]) for i, pos, neg in CASES]


def _siglip_reference(folder: Path) -> tuple[np.ndarray, dict]:
    """SigLIP as published: ``SiglipTokenizer(model_input_names=["input_ids"])`` in a
    ``SiglipProcessor``, called as the model card does (``padding="max_length"``)."""
    from transformers import SiglipImageProcessor, SiglipModel, SiglipProcessor, SiglipTokenizer

    tokenizer = SiglipTokenizer.from_pretrained(folder, model_input_names=["input_ids"])
    processor = SiglipProcessor(image_processor=SiglipImageProcessor.from_pretrained(folder), tokenizer=tokenizer)
    return _upstream_grid(SiglipModel, folder, processor, padding="max_length")


def _siglip2_reference(folder: Path) -> tuple[np.ndarray, dict]:
    """SigLIP 2 NaFlex as published: the tokenizer right-padding input ids only, in a
    ``Siglip2Processor`` called as transformers' docs do (``padding="max_length", max_length=64``)."""
    from transformers import Siglip2ImageProcessor, Siglip2Model, Siglip2Processor, Siglip2Tokenizer

    tokenizer = Siglip2Tokenizer.from_pretrained(folder, padding_side="right", model_input_names=["input_ids"])
    image_processor = Siglip2ImageProcessor.from_pretrained(folder)
    processor = Siglip2Processor(image_processor=image_processor, tokenizer=tokenizer)
    # Siglip2Processor's own image defaults are the published checkpoints' (16x16 patches, 256 of
    # them) and win over the image processor's; the tiny checkpoint's are passed as the docs allow.
    patches = {"patch_size": 8, "max_num_patches": 16}
    return _upstream_grid(Siglip2Model, folder, processor, padding="max_length", max_length=TEXT_POSITIONS, **patches)


def test_clip_scores_match_clip_processor_and_model(tiny_clip):
    from transformers import CLIPImageProcessor, CLIPModel, CLIPProcessor, CLIPTokenizer

    tokenizer = CLIPTokenizer.from_pretrained(tiny_clip)
    processor = CLIPProcessor(image_processor=CLIPImageProcessor.from_pretrained(tiny_clip), tokenizer=tokenizer)
    reference, inputs = _upstream_grid(CLIPModel, tiny_clip, processor, padding=True)
    assert "attention_mask" in inputs and tokenizer.padding_side == "right"

    model = _harness(tiny_clip)
    assert type(model._tokenizer).__name__ == "CLIPTokenizer"
    assert model.identify().protocol == "embed/cosine/pad-longest/raw-caption"  # unchanged: same scores
    ours = _harness_grid(tiny_clip) * float(model._model.logit_scale.detach().exp())
    np.testing.assert_allclose(ours, reference, rtol=1e-5, atol=1e-5)
    assert _verdicts(ours) == _verdicts(reference)


def test_siglip_scores_match_the_published_tokenizer_and_processor(tiny_siglip):
    reference, inputs = _siglip_reference(tiny_siglip)
    assert set(inputs) == {"input_ids", "pixel_values"} and inputs["input_ids"].shape[1] == TEXT_POSITIONS

    ours = _harness_grid(tiny_siglip)
    np.testing.assert_allclose(ours, reference, rtol=1e-5, atol=1e-4)
    assert _verdicts(ours) == _verdicts(reference)
    model = _harness(tiny_siglip)
    assert type(model._tokenizer).__name__ == "SiglipTokenizer"
    assert model.identify().protocol == "embed/siglip_logit/pad-max_length-right/input-ids-only/siglip-text"


def test_siglip2_naflex_scores_match_the_published_tokenizer_and_processor(tiny_siglip2):
    reference, inputs = _siglip2_reference(tiny_siglip2)
    assert set(inputs) == {"input_ids", "pixel_values", "pixel_attention_mask", "spatial_shapes"}
    assert inputs["input_ids"].shape[1] == TEXT_POSITIONS

    ours = _harness_grid(tiny_siglip2)
    np.testing.assert_allclose(ours, reference, rtol=1e-5, atol=1e-4)
    assert _verdicts(ours) == _verdicts(reference)
    model = _harness(tiny_siglip2)
    assert type(model._tokenizer).__name__ == "Siglip2Tokenizer" and model._tokenizer.padding_side == "left"
    assert model.identify().protocol == "embed/siglip_logit/pad-max_length-right/input-ids-only/siglip-text"


def test_fixed_resolution_siglip2_captions_are_lower_cased_as_trained(tiny_siglip2_fixres):
    from transformers import GemmaTokenizer, SiglipImageProcessor, SiglipModel, SiglipProcessor

    folder = tiny_siglip2_fixres
    tokenizer = GemmaTokenizer.from_pretrained(folder, padding_side="right", model_input_names=["input_ids"])
    processor = SiglipProcessor(image_processor=SiglipImageProcessor.from_pretrained(folder), tokenizer=tokenizer)
    call = {"padding": "max_length", "max_length": TEXT_POSITIONS}
    # transformers' SigLIP 2 docs: trained on lower-cased text, "make sure your text labels are
    # preprocessed the same way"; GemmaTokenizer itself does not lower-case.
    reference, inputs = _upstream_grid(SiglipModel, folder, processor, [t.lower() for t in TEXTS], **call)
    assert set(inputs) == {"input_ids", "pixel_values"}

    ours = _harness_grid(folder)
    np.testing.assert_allclose(ours, reference, rtol=1e-5, atol=1e-4)
    assert _verdicts(ours) == _verdicts(reference)
    assert type(_harness(folder)._tokenizer).__name__ == "GemmaTokenizer"
    cased, _ = _upstream_grid(SiglipModel, folder, processor, TEXTS, **call)
    assert np.abs(cased - reference).max() > 1e-3  # the lower-casing matters to these captions


def _old_feeding_grid(folder: Path) -> np.ndarray:
    """The plugin's scores before it fed SigLIP as published: whatever the saved tokenizer returns
    by default (``Siglip2Tokenizer``: left padding and a mask; ``SiglipTokenizer``: a mask)."""
    import torch

    from vlc_harness_builtins.models.hf_contrastive import _features

    model = _harness(folder)
    images = model.embed_images([model.preprocess(im) for im in _images()])
    encoded = model._tokenizer(TEXTS, padding="max_length", max_length=TEXT_POSITIONS, return_tensors="pt")
    assert "attention_mask" in encoded
    with torch.no_grad():
        texts = _features(model._model.get_text_features(**encoded)).numpy()
    rows, cols = np.repeat(images, len(TEXTS), axis=0), np.tile(texts, (len(images), 1))
    return model.pair_scores(rows, cols).reshape(len(images), len(TEXTS))


@pytest.mark.parametrize("family", ["siglip", "siglip2"])
def test_the_tokenizers_default_feeding_would_fail_the_comparison(family, request):
    folder = request.getfixturevalue(f"tiny_{family}")
    reference, _ = {"siglip": _siglip_reference, "siglip2": _siglip2_reference}[family](folder)
    old = _old_feeding_grid(folder)
    assert np.abs(old - reference).max() > 0.05  # far outside the comparison's tolerance
    assert _verdicts(old) != _verdicts(reference)  # and some hard negatives flip


@pytest.mark.parametrize(
    ("family", "builder", "settings"),
    [
        ("siglip", "siglip_tokenizer", {"official": True}),
        ("siglip2", "gemma_bpe_tokenizer", {"class_name": "Siglip2Tokenizer", "official": True}),
    ],
)
def test_the_saved_tokenizer_settings_do_not_change_the_scores(family, builder, settings, request, tmp_path):
    from tests.plugins.models import tokenizers_offline

    folder = request.getfixturevalue(f"tiny_{family}")
    official = tmp_path / family
    shutil.copytree(folder, official)
    getattr(tokenizers_offline, builder)(official, **settings)  # re-saved as the published one is
    model = _harness(official)
    assert model._tokenizer.padding_side == "right" and model._tokenizer.model_input_names == ["input_ids"]
    np.testing.assert_allclose(_harness_grid(official), _harness_grid(folder), rtol=0, atol=1e-6)
