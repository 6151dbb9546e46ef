"""transformers model plugins on tiny random-weight checkpoints saved locally (never the hub)."""

from __future__ import annotations

import numpy as np
import pytest

from vlc_harness.models import PairGroup, RunOptions
from vlc_harness.params import build
from vlc_harness.testing import require

require("transformers")

TEXTS = ["a red square", "a blue circle above a dog", "two cats"]


def _images():
    from PIL import Image

    return [Image.new("RGB", (40, 30), (200, 10, 10)), Image.new("RGB", (30, 40), (10, 10, 200))]


def _loaded(cls, params):
    model = cls(build(cls.Params, params), RunOptions())
    model.identify()
    model.load("cpu")
    return model


def _embed_grid(model):
    image_vecs = model.embed_images([model.preprocess(i) for i in _images()])
    text_vecs = model.embed_texts(TEXTS)
    return np.array(
        [[model.pair_scores(image_vecs[i : i + 1], text_vecs[j : j + 1])[0] for j in range(3)] for i in range(2)]
    )


def _reference_logits(model, padding):
    import torch

    encoded = model._tokenizer(TEXTS, padding=padding, return_tensors="pt")
    pixels = model._processor(images=_images(), return_tensors="pt")
    with torch.no_grad():
        return model._model(**encoded, **pixels).logits_per_image.numpy()


def test_clip_scores_are_transformers_cosine(tmp_path):
    from vlc_harness_builtins.models.hf_contrastive import HfContrastive
    from vlc_harness_builtins.testing.tiny_hf import save_tiny_clip

    model = _loaded(HfContrastive, {"checkpoint": str(save_tiny_clip(tmp_path / "clip"))})
    assert model.identify().protocol == "embed/cosine/pad-longest/raw-caption"
    reference = _reference_logits(model, True) / float(model._model.logit_scale.detach().exp())
    np.testing.assert_allclose(_embed_grid(model), reference, atol=1e-6)


def test_siglip_scores_are_its_logits_with_max_length_padding(tmp_path):
    from vlc_harness_builtins.models.hf_contrastive import HfContrastive
    from vlc_harness_builtins.testing.tiny_hf import save_tiny_siglip

    folder = save_tiny_siglip(tmp_path / "siglip")
    model = _loaded(HfContrastive, {"checkpoint": str(folder)})
    assert model.identify().protocol == "embed/siglip_logit/pad-max_length-right/input-ids-only/siglip-text"
    ours = _embed_grid(model)
    np.testing.assert_allclose(ours, _reference_logits(model, "max_length"), atol=1e-5)
    # The bidirectional tower sees its padding: padding to the longest caption changes the scores.
    longest = _loaded(HfContrastive, {"checkpoint": str(folder), "text_padding": "longest"})
    assert np.abs(_embed_grid(longest) - ours).max() > 1e-4
    cosine = _loaded(HfContrastive, {"checkpoint": str(folder), "similarity": "cosine"})
    np.testing.assert_allclose(ours, _embed_grid(cosine) * model._scale + model._bias, atol=1e-5)


@pytest.mark.parametrize("protocol", ["itm", "itc", "aro"])
def test_blip_protocols_match_the_transformers_heads(tmp_path, protocol):
    import torch

    from vlc_harness_builtins.models.blip_itm import BlipItm
    from vlc_harness_builtins.testing.tiny_hf import save_tiny_blip

    model = _loaded(BlipItm, {"checkpoint": str(save_tiny_blip(tmp_path / "blip")), "protocol": protocol})
    images = [model.preprocess(i) for i in _images()]
    groups = [PairGroup("a", images[0], TEXTS), PairGroup("b", images[1], TEXTS[:2])]
    ours = model.score_pairs(groups)
    assert [len(s) for s in ours] == [3, 2]
    for group, scores in zip(groups, ours, strict=True):
        n = len(group.texts)
        tokens = model._tokenizer(list(group.texts), padding=True, return_tensors="pt")
        pixels = group.image.unsqueeze(0).expand(n, -1, -1, -1)
        # ARO's ITM input (blip_models.py:245 @81fdd20): the first token replaced by BLIP's [ENC]
        enc_ids = tokens["input_ids"].clone()
        enc_ids[:, 0] = model._tokenizer.convert_tokens_to_ids("[ENC]")
        with torch.no_grad():
            itm = model._model(**tokens, pixel_values=pixels, use_itm_head=True).itm_score
            itc = model._model(**tokens, pixel_values=pixels[:1], use_itm_head=False).itm_score[0]
            enc = tokens | {"input_ids": enc_ids}
            itm_enc = model._model(**enc, pixel_values=pixels, use_itm_head=True).itm_score
        expected = {"itm": itm.softmax(-1)[:, 1], "itc": itc, "aro": itm_enc[:, 1] + itc}[protocol]
        np.testing.assert_allclose(scores, expected.numpy(), atol=1e-5)
        if protocol == "aro":  # [CLS] first, as before, would not be ARO's score
            assert np.abs(np.asarray(scores) - (itm[:, 1] + itc).numpy()).max() > 1e-4


def test_blip_enc_token_is_the_tokenizers_or_blips_layout():
    from types import SimpleNamespace

    from vlc_harness_builtins.models.blip_itm import enc_token_id

    def tokenizer(vocab):
        return SimpleNamespace(get_vocab=lambda: vocab)

    assert enc_token_id(tokenizer({"[ENC]": 7}), SimpleNamespace(bos_token_id=5, vocab_size=9)) == 7
    # a saved tokenizer without [ENC]: bert-base-uncased (30522) + [DEC] (bos, 30522) + [ENC] (30523)
    assert enc_token_id(tokenizer({}), SimpleNamespace(bos_token_id=30522, vocab_size=30524)) == 30523
    with pytest.raises(ValueError, match="needs BLIP's \\[ENC\\] token"):
        enc_token_id(tokenizer({}), SimpleNamespace(bos_token_id=30522, vocab_size=30600))


def test_hf_models_run_end_to_end_on_the_sugarcrepe_sample(vlc_run, tmp_path, sample_root):
    from vlc_harness_builtins.testing.tiny_hf import save_tiny_blip, save_tiny_clip

    clip = save_tiny_clip(tmp_path / "clip")
    blip = save_tiny_blip(tmp_path / "blip")
    out = vlc_run(
        "-m",
        f"hf_contrastive:checkpoint={clip}",
        "-m",
        f"blip_itm:checkpoint={blip},protocol=aro",
        "-b",
        "sugarcrepe:version=custom",
        data_root=sample_root,
    )
    assert out.exit_code == 0, out.output
    assert out.output.count("i2t_accuracy_macro=") == 2


def test_a_missing_hub_checkpoint_is_unavailable_offline(vlc_run, tmp_path, sample_root, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf_home"))
    out = vlc_run(
        "-m",
        "hf_contrastive:checkpoint=openai/clip-vit-base-patch32",
        "-b",
        "sugarcrepe:version=custom",
        data_root=sample_root,
    )
    assert "unavailable" in out.output and "openai/clip-vit-base-patch32" in out.output


# Published checkpoints' layouts: their config.json values, and tensors their files are known
# to hold (name and shape). Built on the meta device: no weights, no hub.
REAL_LAYOUTS = {
    "openai/clip-vit-base-patch32": (
        "CLIPModel",
        {
            "text_config": {"hidden_size": 512, "intermediate_size": 2048, "num_attention_heads": 8},
            "vision_config": {"hidden_size": 768, "intermediate_size": 3072, "patch_size": 32},
            "projection_dim": 512,
        },
        {
            "text_model.embeddings.token_embedding.weight": (49408, 512),
            "vision_model.embeddings.patch_embedding.weight": (768, 3, 32, 32),
            "visual_projection.weight": (512, 768),
            "text_projection.weight": (512, 512),
            "logit_scale": (),
        },
    ),
    "google/siglip-base-patch16-224": (
        "SiglipModel",
        {
            "text_config": {"hidden_size": 768, "vocab_size": 32000, "max_position_embeddings": 64},
            "vision_config": {"hidden_size": 768, "patch_size": 16, "image_size": 224},
        },
        {
            "text_model.embeddings.token_embedding.weight": (32000, 768),
            "text_model.head.weight": (768, 768),
            "vision_model.embeddings.patch_embedding.weight": (768, 3, 16, 16),
            "vision_model.head.probe": (1, 1, 768),
            "logit_scale": (1,),
            "logit_bias": (1,),
        },
    ),
    "Salesforce/blip-itm-base-coco": (
        "BlipForImageTextRetrieval",
        {"text_config": {"vocab_size": 30524}, "vision_config": {"image_size": 384}, "image_text_hidden_size": 256},
        {
            "text_encoder.embeddings.word_embeddings.weight": (30524, 768),
            "vision_model.embeddings.patch_embedding.weight": (768, 3, 16, 16),
            "vision_model.embeddings.position_embedding": (1, 577, 768),
            "vision_proj.weight": (256, 768),
            "text_proj.weight": (256, 768),
            "itm_head.weight": (2, 768),
        },
    ),
}


@pytest.mark.parametrize("repo", sorted(REAL_LAYOUTS))
def test_plugin_classes_hold_the_published_checkpoints_tensors(repo):
    import torch
    import transformers

    class_name, config_values, tensors = REAL_LAYOUTS[repo]
    cls = getattr(transformers, class_name)
    config = cls.config_class(**config_values)
    with torch.device("meta"):
        model = cls(config)
    shapes = {k: tuple(v.shape) for k, v in model.state_dict().items()}
    for name, shape in tensors.items():
        assert shapes.get(name) == shape, (repo, name, shapes.get(name))


# -- hf-openai-clip-vit-base-patch32's paper_match: SugarCrepe's open_clip pipeline -----------------


def _noise(width: int, height: int, seed: int = 0):
    from PIL import Image

    rng = np.random.default_rng(seed)
    return Image.fromarray(rng.integers(0, 256, (height, width, 3), dtype=np.uint8))


OPEN_CLIP_SIZES = ((59, 40), (45, 30), (40, 61), (33, 33), (90, 37))
"""59x40 resizes to 47x32: a crop offset of 7.5, which torchvision rounds and CLIPImageProcessor floors."""


def test_clip_open_clip_pipeline_images_are_open_clips_own_transform(tmp_path):
    """open_clip's ``image_transform`` itself (the transform SugarCrepe's ``main_eval.py`` gets from
    ``create_model_and_transforms``) at the checkpoint's sizes: the same tensors, bit for bit."""
    require("open_clip")
    import open_clip

    from vlc_harness_builtins.models.hf_contrastive import HfContrastive
    from vlc_harness_builtins.testing.tiny_hf import save_tiny_clip

    folder = str(save_tiny_clip(tmp_path / "clip"))
    model = _loaded(HfContrastive, {"checkpoint": folder, "pipeline": "open_clip"})
    assert model.identify().protocol == "embed/cosine/pad-longest/open_clip-clean/open_clip-image-transform"
    proc = model._processor
    upstream = open_clip.image_transform(32, is_train=False, mean=proc.image_mean, std=proc.image_std)
    before = _loaded(HfContrastive, {"checkpoint": folder})
    differs = 0
    for k, (width, height) in enumerate(OPEN_CLIP_SIZES):
        image = _noise(width, height, k)
        assert model.preprocess(image).equal(upstream(image)), (width, height)
        differs += not before.preprocess(image).equal(upstream(image))
    assert differs == len(OPEN_CLIP_SIZES)  # the processor path (before): crop rounding, torchvision resize


def _openai_vocab_tokenizer():
    """transformers' ``CLIPTokenizer`` on open_clip's own BPE vocabulary and merges (the OpenAI ones it ships)."""
    from open_clip.tokenizer import SimpleTokenizer
    from transformers import CLIPTokenizer

    simple = SimpleTokenizer()
    merges = sorted(simple.bpe_ranks, key=simple.bpe_ranks.get)
    names = {"<start_of_text>": "<|startoftext|>", "<end_of_text>": "<|endoftext|>"}  # the same ids, HF's names
    vocab = {names.get(token, token): index for token, index in simple.encoder.items()}
    return CLIPTokenizer(vocab=vocab, merges=[tuple(m) for m in merges])


TRICKY = [
    "the \u201cbig\u201d dog",
    "salt &amp; pepper on a plate",
    "a caf\u00c3\u00a9 table",
    "  two   cats\n",
    "Fish &amp;amp; chips",
]
"""Curly quotes, HTML entities (once and twice escaped), mojibake and extra whitespace."""


def test_clip_open_clip_pipeline_texts_are_open_clips_tokens(tmp_path):
    """The ids the model sees equal ``open_clip.tokenize``'s (ftfy, ``html.unescape``), where the tokenizer
    alone (the processor path, before) tokenizes curly quotes and ``&amp;`` differently."""
    require("open_clip")
    import open_clip

    from vlc_harness_builtins.models.hf_contrastive import HfContrastive
    from vlc_harness_builtins.testing.tiny_hf import save_tiny_clip

    folder = str(save_tiny_clip(tmp_path / "clip"))
    tokenizer = _openai_vocab_tokenizer()
    expected = [[int(t) for t in row if t] for row in open_clip.tokenize(TRICKY)]
    for pipeline, same in (("open_clip", True), ("processor", False)):
        model = _loaded(HfContrastive, {"checkpoint": folder, "pipeline": pipeline})
        model._tokenizer, model._text_length = tokenizer, 77
        inputs = model._text_inputs(TRICKY)
        got = [ids[mask.bool()].tolist() for ids, mask in zip(inputs["input_ids"], inputs["attention_mask"])]
        assert (got == expected) is same, pipeline


def test_blip_images_are_blips_pil_resize(tmp_path):
    """BLIP's and ARO's transform (ARO ``model_zoo/__init__.py:42``, salesforce/BLIP's ``transform_test``):
    torchvision ``Resize((384, 384), BICUBIC)`` on the PIL image, ``ToTensor``, ``Normalize``; the default
    (torchvision-backend) processor differs."""
    import torch
    from torchvision import transforms
    from transformers import AutoImageProcessor

    from vlc_harness_builtins.models.blip_itm import BlipItm
    from vlc_harness_builtins.testing.tiny_hf import save_tiny_blip

    folder = save_tiny_blip(tmp_path / "blip")
    model = _loaded(BlipItm, {"checkpoint": str(folder)})
    proc = model._processor
    side = (int(proc.size["height"]), int(proc.size["width"]))
    upstream = transforms.Compose(
        [
            transforms.Resize(side, interpolation=transforms.InterpolationMode.BICUBIC),
            transforms.ToTensor(),
            transforms.Normalize(proc.image_mean, proc.image_std),
        ]
    )
    default = AutoImageProcessor.from_pretrained(folder)
    worst_default = 0.0
    for k, (width, height) in enumerate(OPEN_CLIP_SIZES):
        image = _noise(width, height, k)
        assert torch.allclose(model.preprocess(image), upstream(image), atol=1e-6), (width, height)
        got = default(images=image, return_tensors="pt")["pixel_values"][0]
        worst_default = max(worst_default, float((got - upstream(image)).abs().max()))
    assert worst_default > 1e-3  # torchvision's tensor resize is not PIL's
