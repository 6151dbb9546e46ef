"""Generative scorers (VQAScore, CLIP-FlanT5, captioning likelihood, t2v_metrics adapter) on tiny
random-weight checkpoints saved locally, against the transformers forward pass; the published
CLIP-FlanT5 layouts on synthetic (meta-device) state dicts."""

from __future__ import annotations

import math
import sys
import textwrap
from pathlib import Path

import pytest

from tests.once import built_once
from vlc_harness.models import PairGroup
from vlc_harness.params import build
from vlc_harness.testing import require

require("transformers")

TEXTS = [["a red square", "a blue circle above a dog", "two cats"], ["a red square", "a man holding a dog"]]
FAMILIES = ["llava", "qwen2_vl", "blip2_opt", "blip2_t5", "instructblip_llama", "instructblip_t5"]
CAUSAL = ["llava", "qwen2_vl", "blip2_opt", "instructblip_llama"]


def _images():
    from PIL import Image

    return [Image.new("RGB", (40, 30), (200, 10, 10)), Image.new("RGB", (30, 40), (10, 10, 200))]


@pytest.fixture(scope="session")
def tiny_vlms(tmp_path_factory):
    """Each tiny VLM family saved once per run, whatever the number of xdist workers (tests/once.py)."""
    from vlc_harness_builtins.testing import tiny_blip, tiny_generative

    def build(root: Path) -> dict[str, str]:
        saved = {
            "llava": tiny_generative.save_tiny_llava(root / "llava"),
            "qwen2_vl": tiny_generative.save_tiny_qwen2_vl(root / "qwen2_vl"),
            "blip2_opt": tiny_blip.save_tiny_blip2(root / "blip2_opt", "opt"),
            "blip2_t5": tiny_blip.save_tiny_blip2(root / "blip2_t5", "t5"),
            "instructblip_llama": tiny_blip.save_tiny_instructblip(root / "instructblip_llama", "llama"),
            "instructblip_t5": tiny_blip.save_tiny_instructblip(root / "instructblip_t5", "t5"),
            "blip_captioner": tiny_blip.save_tiny_blip_captioner(root / "blip_captioner"),
        }
        return {family: str(path) for family, path in saved.items()}

    return {family: Path(path) for family, path in built_once(tmp_path_factory, "tiny_vlms", build).items()}


@pytest.fixture(scope="session")
def tiny_clip_flant5(tmp_path_factory):
    """A tiny CLIP-FlanT5 checkpoint folder, saved once per run."""
    from vlc_harness_builtins.testing.tiny_clip_flant5 import save_tiny_clip_flant5

    return Path(built_once(tmp_path_factory, "tiny_clip_flant5", lambda root: str(save_tiny_clip_flant5(root / "bin"))))


def _loaded(cls, params, **run):
    from vlc_harness_builtins.models.generative import GenerativeRun

    model = cls(build(cls.Params, params), GenerativeRun(**run))
    model.identify()
    model.load("cpu")
    return model


def _score(model, texts=TEXTS):
    groups = [PairGroup(str(i), model.preprocess(im), t) for i, (im, t) in enumerate(zip(_images(), texts))]
    return model.score_pairs(groups)


def _max_diff(a, b):
    return max(abs(x - y) for ra, rb in zip(a, b, strict=True) for x, y in zip(ra, rb, strict=True))


def _reference_answer_logprobs(model, image, prompt, answer):
    """Log-probabilities of the answer tokens from the model's own forward over the processor's inputs."""
    import torch

    scorer = model._scorer
    inputs = scorer.processor(images=[image], text=[prompt], return_tensors="pt")
    answer_t = torch.tensor([answer])
    with torch.no_grad():
        if scorer.seq2seq:
            logits = scorer.model(**inputs, labels=answer_t).logits[0]
            start = 0
        else:
            ids = torch.cat([inputs["input_ids"], answer_t], dim=1)
            inputs = dict(inputs, input_ids=ids, attention_mask=torch.ones_like(ids))
            if "mm_token_type_ids" in inputs:
                inputs["mm_token_type_ids"] = (ids == scorer.image_token_id).int()
            logits = scorer.model(**inputs).logits[0]
            start = ids.shape[1] - len(answer) - 1
    logp = torch.log_softmax(logits, dim=-1)
    return [float(logp[start + k, t]) for k, t in enumerate(answer)]


# -- VQAScore ---------------------------------------------------------------------------------


@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("scoring", ["p_yes", "t2v_metrics"])
def test_vqascore_is_the_transformers_answer_likelihood(tiny_vlms, family, scoring):
    from vlc_harness_builtins.models.vqascore import DEFAULT_QUESTION, VqaScore

    model = _loaded(VqaScore, {"checkpoint": str(tiny_vlms[family]), "scoring": scoring}, self_check=False)
    assert model.identify().protocol.startswith(f"score_pairs/vqascore/{scoring}/")
    ours = _score(model)
    answer = list(model._answer)
    eos = model._scorer.tokenizer.eos_token_id
    assert (answer[-1] == eos) == (scoring == "t2v_metrics")
    for image, texts, row in zip(_images(), TEXTS, ours, strict=True):
        for text, score in zip(texts, row, strict=True):
            prompt = model._scorer.render(DEFAULT_QUESTION.format(text), "auto")
            logprobs = _reference_answer_logprobs(model, image, prompt, answer)
            expected = math.exp(sum(logprobs) / len(logprobs)) if scoring == "t2v_metrics" else math.exp(logprobs[0])
            assert score == pytest.approx(expected, rel=1e-4, abs=1e-9)


@pytest.mark.parametrize("family", FAMILIES)
def test_grouped_and_prefix_reused_scores_equal_per_pair_scores(tiny_vlms, family):
    from vlc_harness_builtins.models.vqascore import VqaScore

    params = {"checkpoint": str(tiny_vlms[family]), "scoring": "t2v_metrics"}
    scores = {reuse: _score(_loaded(VqaScore, params, reuse=reuse)) for reuse in ("none", "vision", "prefix")}
    assert _max_diff(scores["vision"], scores["none"]) <= 1e-5
    assert _max_diff(scores["prefix"], scores["none"]) <= 1e-5
    assert len({round(s, 12) for row in scores["prefix"] for s in row}) > 1  # the scores see image and text


@pytest.mark.parametrize("family", ["llava", "qwen2_vl", "blip2_opt"])
def test_prefix_reuse_runs_vision_once_per_image_and_only_suffixes_per_text(tiny_vlms, family, monkeypatch):
    from vlc_harness_builtins.models.generative import VlmScorer
    from vlc_harness_builtins.models.vqascore import VqaScore

    model = _loaded(VqaScore, {"checkpoint": str(tiny_vlms[family])}, reuse="prefix", self_check=False)
    images_seen, runs = [], []
    features, run = VlmScorer._features, VlmScorer._run

    def count_features(self, images, *args, **kwargs):
        out = features(self, images, *args, **kwargs)
        images_seen.append((len(images), out[0].shape[0]))
        return out

    def record_run(self, **kwargs):
        runs.append((tuple(kwargs["inputs_embeds"].shape[:2]), kwargs.get("cache") is not None))
        return run(self, **kwargs)

    monkeypatch.setattr(VlmScorer, "_features", count_features)
    monkeypatch.setattr(VlmScorer, "_run", record_run)
    _score(model)
    [(n_images, n_image_tokens)] = images_seen
    assert n_images == 2  # two images, five texts: the vision tower once per image
    (prefix_shape, prefix_cached), (suffix_shape, suffix_cached) = runs
    assert prefix_shape[0] == 2 and not prefix_cached  # one prefix row per image, holding its image tokens
    assert prefix_shape[1] > n_image_tokens
    assert suffix_shape[0] == 5 and suffix_cached  # one suffix row per text, on the copied cache


def test_no_prefix_reuse_when_the_image_follows_the_text(tiny_vlms, monkeypatch):
    from vlc_harness_builtins.models.generative import VlmScorer
    from vlc_harness_builtins.models.vqascore import VqaScore

    prompt = "USER: {question}\n<image> ASSISTANT:"
    params = {"checkpoint": str(tiny_vlms["llava"]), "prompt": prompt}
    calls = []
    monkeypatch.setattr(VlmScorer, "_prefix_bucket", lambda *a: calls.append(a))
    prefix = _score(_loaded(VqaScore, params, reuse="prefix"))  # the self-check runs too
    assert not calls
    assert _max_diff(prefix, _score(_loaded(VqaScore, params, reuse="none"))) <= 1e-6


def test_the_self_check_refuses_a_scorer_that_disagrees_with_the_model(tiny_vlms, monkeypatch):
    from vlc_harness_builtins.models.generative import VlmScorer
    from vlc_harness_builtins.models.vqascore import VqaScore

    model = _loaded(VqaScore, {"checkpoint": str(tiny_vlms["llava"])})
    gather = VlmScorer._gather
    monkeypatch.setattr(VlmScorer, "_gather", lambda self, *a: [[x + 0.1 for x in r] for r in gather(self, *a)])
    with pytest.raises(RuntimeError, match="differ from the model's own forward pass"):
        _score(model)


def test_prefix_lm_models_are_refused():
    from vlc_harness_builtins.models.generative import resolve_family

    assert resolve_family("auto", "llava") == "llava"
    assert resolve_family("auto", "blip-2") == "blip2"
    assert resolve_family("auto", "qwen2_vl") == "image_text_to_text"
    with pytest.raises(ValueError, match="bidirectionally"):
        resolve_family("auto", "paligemma")


# -- CLIP-FlanT5 ------------------------------------------------------------------------------


def _clip_flant5_reference(model, image, question, answer_text):
    """t2v_metrics' forward for one pair, by hand: prompt chunks with their own </s>, the
    projected patches between them, T5 teacher-forced on the answer with labels."""
    import torch

    from vlc_harness_builtins.models.clip_flant5 import SYSTEM_MESSAGE, expand_to_square

    s = model._scorer
    tok = s.tokenizer
    square = expand_to_square(image, tuple(int(x * 255) for x in s.image_processor.image_mean))
    pixels = s.image_processor(images=square, return_tensors="pt")["pixel_values"]
    with torch.no_grad():
        hidden = s.vision(pixel_values=pixels, output_hidden_states=True).hidden_states[-2][:, 1:]
        patches = s.projector(hidden)[0]
        embed = s.model.get_input_embeddings()
        before = tok(f"{SYSTEM_MESSAGE} USER: ").input_ids
        after = tok(f"\n{question} ASSISTANT: ").input_ids
        embeds = torch.cat([embed(torch.tensor(before)), patches, embed(torch.tensor(after))])[None]
        labels = torch.tensor([tok(answer_text).input_ids])
        logits = s.model(inputs_embeds=embeds, labels=labels).logits[0]
    logp = torch.log_softmax(logits, dim=-1)
    return [float(logp[k, t]) for k, t in enumerate(labels[0].tolist())]


@pytest.mark.parametrize("scoring", ["p_yes", "t2v_metrics"])
def test_clip_flant5_is_t2v_metrics_forward(tiny_clip_flant5, scoring):
    from vlc_harness_builtins.models.clip_flant5 import ClipFlanT5
    from vlc_harness_builtins.models.vqascore import DEFAULT_QUESTION

    params = {"checkpoint": str(tiny_clip_flant5), "tokenizer": str(tiny_clip_flant5 / "tokenizer"), "scoring": scoring}
    model = _loaded(ClipFlanT5, params)
    ours = _score(model)
    for image, texts, row in zip(_images(), TEXTS, ours, strict=True):
        for text, score in zip(texts, row, strict=True):
            lp = _clip_flant5_reference(model, image, DEFAULT_QUESTION.format(text), "Yes")
            expected = math.exp(sum(lp) / len(lp)) if scoring == "t2v_metrics" else math.exp(lp[0])
            assert score == pytest.approx(expected, rel=1e-4, abs=1e-9)
    none = _score(_loaded(ClipFlanT5, params, reuse="none"))
    assert _max_diff(ours, none) <= 1e-5


def test_clip_flant5_prompt_is_t5_chat_with_a_closing_eos_on_each_side(tiny_clip_flant5):
    from vlc_harness_builtins.models.clip_flant5 import IMAGE_SLOT, ClipFlanT5

    params = {"checkpoint": str(tiny_clip_flant5), "tokenizer": str(tiny_clip_flant5 / "tokenizer")}
    scorer = _loaded(ClipFlanT5, params)._scorer
    prompt = scorer.render('Does this figure show "a dog"? Please answer yes or no.')
    assert prompt.startswith("A chat between a curious user") and prompt.endswith(" ASSISTANT: ")
    ids = scorer.prompt_ids(prompt, 4)
    eos = scorer.tokenizer.eos_token_id
    first = ids.index(IMAGE_SLOT)
    assert ids[first - 1] == eos and ids[first : first + 4] == [IMAGE_SLOT] * 4 and ids[-1] == eos
    assert scorer.answer_ids("Yes", eos=True)[-1] == eos and scorer.answer_ids("Yes", eos=False)[-1] != eos


@pytest.mark.parametrize(
    ("file_format", "vision_in_checkpoint"), [("safetensors", True), ("bin", False), ("safetensors", False)]
)
def test_clip_flant5_loads_every_published_file_layout_alike(
    tiny_clip_flant5, tmp_path, file_format, vision_in_checkpoint
):
    from vlc_harness_builtins.models.clip_flant5 import ClipFlanT5
    from vlc_harness_builtins.testing.tiny_clip_flant5 import save_tiny_clip_flant5

    def scores(folder):
        return _score(_loaded(ClipFlanT5, {"checkpoint": str(folder), "tokenizer": str(folder / "tokenizer")}))

    other = save_tiny_clip_flant5(
        tmp_path / "other", file_format=file_format, vision_in_checkpoint=vision_in_checkpoint
    )
    assert _max_diff(scores(other), scores(tiny_clip_flant5)) <= 1e-6


def test_clip_flant5_cuts_the_vocabulary_to_the_tokenizer(tmp_path):
    from vlc_harness_builtins.models.clip_flant5 import ClipFlanT5
    from vlc_harness_builtins.testing.tiny_clip_flant5 import save_tiny_clip_flant5

    folder = save_tiny_clip_flant5(tmp_path / "wide", extra_rows=7)
    model = _loaded(ClipFlanT5, {"checkpoint": str(folder), "tokenizer": str(folder / "tokenizer")})
    t5, n = model._scorer.model, len(model._scorer.tokenizer)
    assert t5.shared.weight.shape[0] == n and t5.lm_head.weight.shape[0] == n
    assert t5.encoder.embed_tokens.weight is t5.shared.weight and t5.lm_head.weight is not t5.shared.weight
    assert all(0 < s < 1 for row in _score(model) for s in row)


def _published_layout(d_model, d_ff, heads, layers, vocab, vision, mm_hidden):
    """Tensor names and shapes of a published CLIP-FlanT5 file, written from the architecture
    (transformers 4.x naming): T5 v1.1 gated-GELU blocks, CLIP ViT, two-layer projector."""
    inner = 64 * heads
    shapes = {"shared.weight": (vocab, d_model), "lm_head.weight": (vocab, d_model)}
    for alias in ("embed_tokens.weight", "encoder.embed_tokens.weight", "decoder.embed_tokens.weight"):
        shapes[alias] = (vocab, d_model)
    for stack in ("encoder", "decoder"):
        shapes[f"{stack}.final_layer_norm.weight"] = (d_model,)
        shapes[f"{stack}.block.0.layer.0.SelfAttention.relative_attention_bias.weight"] = (32, heads)
        for i in range(layers):
            b = f"{stack}.block.{i}.layer"
            attentions = ["SelfAttention"] + (["EncDecAttention"] if stack == "decoder" else [])
            for j, name in enumerate(attentions):
                shapes |= {f"{b}.{j}.{name}.{w}.weight": (inner, d_model) for w in "qkv"}
                shapes |= {f"{b}.{j}.{name}.o.weight": (d_model, inner), f"{b}.{j}.layer_norm.weight": (d_model,)}
            f = len(attentions)
            shapes |= {f"{b}.{f}.DenseReluDense.wi_0.weight": (d_ff, d_model)}
            shapes |= {f"{b}.{f}.DenseReluDense.wi_1.weight": (d_ff, d_model)}
            shapes |= {f"{b}.{f}.DenseReluDense.wo.weight": (d_model, d_ff), f"{b}.{f}.layer_norm.weight": (d_model,)}
    h, p, n_pos = vision["hidden_size"], vision["patch_size"], (vision["image_size"] // vision["patch_size"]) ** 2 + 1
    v = "vision_tower.vision_tower.vision_model."
    shapes |= {
        v + "embeddings.class_embedding": (h,),
        v + "embeddings.patch_embedding.weight": (h, 3, p, p),
        v + "embeddings.position_embedding.weight": (n_pos, h),
        v + "embeddings.position_ids": (1, n_pos),
    }
    for name in ("pre_layrnorm", "post_layernorm"):
        shapes |= {v + f"{name}.weight": (h,), v + f"{name}.bias": (h,)}
    for i in range(vision["num_hidden_layers"]):
        e = v + f"encoder.layers.{i}."
        for proj in ("q_proj", "k_proj", "v_proj", "out_proj"):
            shapes |= {e + f"self_attn.{proj}.weight": (h, h), e + f"self_attn.{proj}.bias": (h,)}
        shapes |= {
            e + "mlp.fc1.weight": (vision["intermediate_size"], h),
            e + "mlp.fc1.bias": (vision["intermediate_size"],),
        }
        shapes |= {e + "mlp.fc2.weight": (h, vision["intermediate_size"]), e + "mlp.fc2.bias": (h,)}
        for norm in ("layer_norm1", "layer_norm2"):
            shapes |= {e + f"{norm}.weight": (h,), e + f"{norm}.bias": (h,)}
    shapes |= {"mm_projector.0.weight": (d_model, mm_hidden), "mm_projector.0.bias": (d_model,)}
    shapes |= {"mm_projector.2.weight": (d_model, d_model), "mm_projector.2.bias": (d_model,)}
    return shapes


CLIP_L_336 = {"hidden_size": 1024, "intermediate_size": 4096, "num_hidden_layers": 24, "num_attention_heads": 16}
CLIP_L_336 |= {"patch_size": 14, "image_size": 336, "hidden_act": "quick_gelu", "projection_dim": 768}
FLAN_T5 = {  # google/flan-t5-xl and -xxl config.json values; the published vocabulary has 32128 rows
    "xl": {"d_model": 2048, "d_ff": 5120, "num_heads": 32, "num_layers": 24},
    "xxl": {"d_model": 4096, "d_ff": 10240, "num_heads": 64, "num_layers": 24},
}


@pytest.mark.parametrize("size", sorted(FLAN_T5))
def test_published_clip_flant5_layouts_load_strictly_on_the_meta_device(size):
    import torch
    from transformers import CLIPVisionConfig

    from vlc_harness_builtins.models.clip_flant5 import CLIP_T5_DEFAULTS, build_modules, load_published

    t5 = FLAN_T5[size]
    config = {"model_type": "clip_t5", **t5, "d_kv": 64, "vocab_size": 32128, "feed_forward_proj": "gated-gelu"}
    config |= {"tie_word_embeddings": False, "num_decoder_layers": 24, **CLIP_T5_DEFAULTS, "mm_hidden_size": 1024}
    config |= {"mm_vision_tower": "openai/clip-vit-large-patch14-336"}
    layout = _published_layout(t5["d_model"], t5["d_ff"], t5["num_heads"], 24, 32128, CLIP_L_336, 1024)
    with torch.device("meta"):
        modules = build_modules(config, CLIPVisionConfig(**CLIP_L_336))
        state = {name: torch.empty(shape) for name, shape in layout.items()}
    assert load_published(*modules, state, assign=True)  # strict: every name and shape matches
    t5_module, projector, vision = modules
    assert t5_module.lm_head.weight is not t5_module.shared.weight  # Flan-T5's own output layer
    assert tuple(projector[0].weight.shape) == (t5["d_model"], 1024)
    renamed = dict(state)
    renamed["mm_projector.1.weight"] = renamed.pop("mm_projector.2.weight")
    with torch.device("meta"):
        fresh = build_modules(config, CLIPVisionConfig(**CLIP_L_336))
    with pytest.raises(RuntimeError):
        load_published(*fresh, renamed, assign=True)


def test_the_tiny_checkpoint_uses_the_published_names(tiny_clip_flant5):
    import json

    from vlc_harness_builtins.testing.tiny_clip_flant5 import CLIP_FLANT5_VISION

    config = json.loads((tiny_clip_flant5 / "config.json").read_text())
    index = json.loads((tiny_clip_flant5 / "pytorch_model.bin.index.json").read_text())
    layout = _published_layout(
        config["d_model"],
        config["d_ff"],
        config["num_heads"],
        config["num_layers"],
        config["vocab_size"],
        CLIP_FLANT5_VISION,
        config["mm_hidden_size"],
    )
    layout = {k: v for k, v in layout.items() if not k.endswith("position_ids")}  # transformers 5 does not save it
    assert set(index["weight_map"]) == set(layout)


# -- captioning likelihood --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("caption", "normalized"),
    [
        ("A man, in a hat.", "a man, in a hat"),
        ("Two dogs; one black-and-white: running", "two dogs, one black and white, running"),
        ('The sign says "stop" (red)', 'the sign says " stop ", red'),
        ("A cat sits on/under a table?", "a cat sits on, under a table"),
    ],
)
def test_bivlc_caption_normalisation(caption, normalized):
    from vlc_harness_builtins.models.captioning_likelihood import bivlc_normalize

    assert bivlc_normalize(caption) == normalized


@pytest.mark.parametrize("reduction", ["sum", "mean"])
def test_blip_caption_likelihood_is_the_transformers_decoder(tiny_vlms, reduction):
    import torch

    from vlc_harness_builtins.models.captioning_likelihood import CaptioningLikelihood, bivlc_normalize

    params = {"checkpoint": str(tiny_vlms["blip_captioner"]), "reduction": reduction}
    model = _loaded(CaptioningLikelihood, params)
    assert model.identify().protocol == f"score_pairs/caption_logprob/{reduction}/eos/norm-bivlc/blip"
    ours = _score(model)
    s = model._scorer
    for image, texts, row in zip(_images(), TEXTS, ours, strict=True):
        pixels = s.processor(images=[image], return_tensors="pt")["pixel_values"]
        for text, score in zip(texts, row, strict=True):
            prompt = s.tokenizer("a picture of", add_special_tokens=False).input_ids
            caption = s.tokenizer(bivlc_normalize(text), add_special_tokens=False).input_ids + [
                s.tokenizer.sep_token_id
            ]
            ids = torch.tensor([[s.model.config.text_config.bos_token_id, *prompt, *caption]])
            with torch.no_grad():
                logp = torch.log_softmax(s.model(pixel_values=pixels, input_ids=ids).logits[0], dim=-1)
            lp = [float(logp[len(prompt) + k, t]) for k, t in enumerate(caption)]
            expected = sum(lp) if reduction == "sum" else sum(lp) / len(lp)
            assert score == pytest.approx(expected, rel=1e-5)


@pytest.mark.parametrize("family", FAMILIES)
def test_caption_likelihood_reuse_is_exact(tiny_vlms, family):
    from vlc_harness_builtins.models.captioning_likelihood import CaptioningLikelihood

    params = {"checkpoint": str(tiny_vlms[family]), "reduction": "mean"}
    scores = {reuse: _score(_loaded(CaptioningLikelihood, params, reuse=reuse)) for reuse in ("none", "prefix")}
    assert _max_diff(scores["prefix"], scores["none"]) <= 1e-5


def test_caption_sum_mean_and_eos(tiny_vlms):
    from vlc_harness_builtins.models.captioning_likelihood import CaptioningLikelihood

    base = {"checkpoint": str(tiny_vlms["llava"]), "normalize": "none"}
    total = _score(_loaded(CaptioningLikelihood, base | {"reduction": "sum"}))
    mean = _score(_loaded(CaptioningLikelihood, base | {"reduction": "mean"}))
    no_eos = _score(_loaded(CaptioningLikelihood, base | {"reduction": "sum", "include_eos": False}))
    for texts, t_row, m_row, n_row in zip(TEXTS, total, mean, no_eos, strict=True):
        for text, t, m, n in zip(texts, t_row, m_row, n_row, strict=True):
            assert t == pytest.approx(m * (len(text.split()) + 1), rel=1e-6)  # word-level tokens + EOS
            assert n > t  # one log-probability fewer


def test_caption_likelihood_with_clip_flant5_is_visualgptscore(tiny_clip_flant5):
    from vlc_harness_builtins.models.captioning_likelihood import CaptioningLikelihood

    params = {"checkpoint": str(tiny_clip_flant5), "tokenizer": str(tiny_clip_flant5 / "tokenizer")}
    model = _loaded(CaptioningLikelihood, params | {"reduction": "mean", "normalize": "none"})
    assert model.identify().protocol.endswith("/clip_flant5/t2v_metrics-3.0")
    ours = _score(model)
    for image, texts, row in zip(_images(), TEXTS, ours, strict=True):
        for text, score in zip(texts, row, strict=True):
            lp = _clip_flant5_reference(model, image, "", text)
            assert score == pytest.approx(sum(lp) / len(lp), rel=1e-5)


# -- t2v_metrics adapter ----------------------------------------------------------------------


def test_t2v_metrics_types_are_absent_without_the_package(monkeypatch):
    from vlc_harness.catalog import Registrar
    from vlc_harness.models import Model
    from vlc_harness_builtins.models import t2v_metrics_adapter as adapter

    monkeypatch.setattr(adapter, "t2v_metrics_found", lambda: False)
    registrar = Registrar("model", Model)
    adapter.register_models(registrar)
    assert "t2v_metrics" not in registrar.names()
    notes = []
    registrar.unavailable = lambda name, why, cls=None: notes.append((name, why, cls))  # a core that can explain it
    adapter.register_models(registrar)
    assert notes and notes[0][0] == "t2v_metrics" and "separate environment" in notes[0][1]
    assert notes[0][2] is adapter.T2vMetrics  # its params stay in the registry's schema


FAKE_T2V = """
import hashlib
__version__ = "0.0-fake"
CALLS = []

class VQAScore:
    def __init__(self, model, device):
        self.model, self.device = model, device

    def __call__(self, images, texts, question_template="default", answer_template="Yes"):
        CALLS.append((list(images), list(texts), question_template))
        rows = []
        for path in images:
            data = open(path, "rb").read()
            rows.append([int(hashlib.sha256(data + t.encode()).hexdigest()[:6], 16) / 16**6 for t in texts])
        return rows

ITMScore = CLIPScore = VQAScore
"""


@pytest.fixture(autouse=True)
def _forget_fake_t2v_metrics():
    """A fake t2v_metrics imported by a test must not outlive it (plugin reloads would see it)."""
    yield
    sys.modules.pop("t2v_metrics", None)


def test_t2v_metrics_adapter_registers_and_scores_through_the_package(tmp_path, monkeypatch):
    from vlc_harness.catalog import Registrar
    from vlc_harness.models import Model, RunOptions
    from vlc_harness_builtins.models import t2v_metrics_adapter as adapter

    (tmp_path / "t2v_metrics.py").write_text(textwrap.dedent(FAKE_T2V))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "t2v_metrics", raising=False)
    registrar = Registrar("model", Model)
    adapter.register_models(registrar)
    cls = registrar.get("t2v_metrics").cls
    model = cls(build(cls.Params, {"model": "clip-flant5-xl", "question_template": "Is it {}?"}), RunOptions())
    identity = model.identify()
    assert identity.weights.startswith("t2v_metrics==") and identity.weights.endswith(":vqascore:clip-flant5-xl")
    model.load("cpu")
    groups = [PairGroup(f"k{i}", im, t) for i, (im, t) in enumerate(zip(_images(), TEXTS))]
    scores = model.score_pairs(groups)
    assert [len(r) for r in scores] == [3, 2] and all(0 <= s <= 1 for r in scores for s in r)
    import t2v_metrics

    assert [c[2] for c in t2v_metrics.CALLS] == ["Is it {}?", "Is it {}?"]
    assert all(path.endswith(".png") for c in t2v_metrics.CALLS for path in c[0])
    model.close()


def test_t2v_metrics_that_does_not_import_is_unavailable(tmp_path, monkeypatch):
    from vlc_harness.errors import WeightsUnavailable
    from vlc_harness.models import RunOptions
    from vlc_harness_builtins.models.t2v_metrics_adapter import T2vMetrics

    (tmp_path / "t2v_metrics.py").write_text("raise RuntimeError('ffmpeg is not installed')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "t2v_metrics", raising=False)
    model = T2vMetrics(build(T2vMetrics.Params, {}), RunOptions())
    with pytest.raises(WeightsUnavailable, match="ffmpeg"):
        model.identify()


# -- end to end -------------------------------------------------------------------------------


def test_generative_models_run_end_to_end_on_the_sugarcrepe_sample(vlc_run, sample_root, tiny_vlms):
    out = vlc_run(
        "-m",
        f"vqascore:checkpoint={tiny_vlms['llava']}",
        "-m",
        f"captioning_likelihood:checkpoint={tiny_vlms['blip_captioner']}",
        "-b",
        "sugarcrepe:version=custom",
        data_root=sample_root,
    )
    assert out.exit_code == 0, out.output
    assert out.output.count("i2t_accuracy_macro=") == 2
