"""Generative scorers on the VQAScore protocol: Qwen2.5-VL, Qwen3-VL, InternVL (-hf) and
LLaVA-OneVision, each on a tiny random config: grouped scoring equals the model's own forward pass
(the run-time self-check), in every reuse mode, with the declared prompt."""

from __future__ import annotations

import pytest

from vlc_harness.errors import WeightsUnavailable
from vlc_harness.models import PairGroup
from vlc_harness.params import build

FAMILIES = {
    "qwen2_5_vl": ("vlc_harness_builtins.models.vqascore_qwen_vl", "VqaScoreQwenVl", "save_tiny_qwen_vl"),
    "qwen3_vl": ("vlc_harness_builtins.models.vqascore_qwen_vl", "VqaScoreQwenVl", "save_tiny_qwen_vl"),
    "internvl": ("vlc_harness_builtins.models.vqascore_internvl", "VqaScoreInternVl", "save_tiny_internvl"),
    "llava_onevision": (
        "vlc_harness_builtins.models.vqascore_llava_onevision",
        "VqaScoreLlavaOnevision",
        "save_tiny_llava_onevision",
    ),
}
TEXTS = [["a red square", "a blue circle above a cat"], ["a dog"], ["two green triangles", "a cat", "a red square"]]


@pytest.fixture(scope="module")
def tiny_families(tmp_path_factory):
    import importlib

    from vlc_harness.testing import require

    require("transformers")
    out = {}
    from vlc_harness_builtins.testing import tiny_vqascore

    for model_type, (module, cls_name, builder) in FAMILIES.items():
        mod = importlib.import_module(module)
        folder = tmp_path_factory.mktemp(model_type) / "tiny"
        build_fn = getattr(tiny_vqascore, builder)
        build_fn(folder, model_type) if builder == "save_tiny_qwen_vl" else build_fn(folder)
        out[model_type] = (getattr(mod, cls_name), folder)
    return out


def _images():
    from PIL import Image

    # three aspect ratios: different token counts per image (dynamic resolution, tiles, crops)
    return [
        Image.new("RGB", (60, 40), (200, 30, 30)),
        Image.new("RGB", (28, 28), (30, 30, 200)),
        Image.new("RGB", (40, 90), (30, 200, 30)),
    ]


def _groups(model):
    return [PairGroup(f"k{i}", model.preprocess(im), TEXTS[i]) for i, im in enumerate(_images())]


@pytest.mark.parametrize("model_type", sorted(FAMILIES))
def test_grouped_scores_equal_the_models_own_forward_pass(tiny_families, model_type):
    cls, folder = tiny_families[model_type]
    scores = {}
    for reuse in ("prefix", "vision", "none"):
        model = cls(build(cls.Params, {"checkpoint": str(folder)}), build(cls.Run, {"reuse": reuse}))
        assert model.identify().protocol == f"score_pairs/vqascore/p_yes/{model_type}/chat_template"
        model.load("cpu")
        groups = _groups(model)
        scores[reuse] = model.score_pairs(groups)  # the run-time self-check runs on the first batch
        s, requests = model._scorer, model._requests(groups)
        ours = s.token_logprobs([g.image for g in groups], requests, reuse)
        for g in range(len(groups)):  # every image, not only the first, against the model's forward
            mine = [k for k, r in enumerate(requests) if r.group == g]
            reference = s.reference_logprobs(groups[g].image, [requests[k] for k in mine])
            for k, ref in zip(mine, reference, strict=True):
                assert ours[k] == pytest.approx(ref, abs=1e-5), (reuse, g)
    flat = {reuse: [x for row in rows for x in row] for reuse, rows in scores.items()}
    assert flat["prefix"] == pytest.approx(flat["none"], rel=1e-5)
    assert flat["vision"] == pytest.approx(flat["none"], rel=1e-5)
    flat = flat["none"]
    assert len(set(flat)) == len(flat)  # captions and images change the score


@pytest.mark.parametrize("model_type", sorted(FAMILIES))
def test_the_prompt_is_the_chat_template_with_the_image_first(tiny_families, model_type):
    cls, folder = tiny_families[model_type]
    model = cls(build(cls.Params, {"checkpoint": str(folder)}), cls.Run())
    model.load("cpu")
    (request,) = model._requests([PairGroup("k", None, ["a cat"])])
    image = {"qwen2_5_vl": "<|vision_start|><|image_pad|><|vision_end|>", "qwen3_vl": "<|vision_start|><|image_pad|>"}
    placeholder = image.get(model_type, "<IMG_CONTEXT>" if model_type == "internvl" else "<image>")
    prompt = request.prompt
    assert placeholder in prompt and prompt.index(placeholder) < prompt.index('"a cat"')
    assert prompt.startswith("<|im_start|>") and prompt.endswith("<|im_start|>assistant\n")
    assert ("you are a helpful assistant." in prompt) == (model_type == "qwen2_5_vl")
    declared = cls.prompt_template
    assert "{question}" in declared


def test_qwen3_vl_scores_need_the_deepstack_features(tiny_families):
    """Without DeepStack (the generic scorer) Qwen3-VL's grouped scores leave the model's own."""
    from vlc_harness_builtins.models.generative import VlmScorer

    cls, folder = tiny_families["qwen3_vl"]
    model = cls(build(cls.Params, {"checkpoint": str(folder)}), build(cls.Run, {"reuse": "none"}))
    model.load("cpu")
    groups = _groups(model)
    requests = [r for r in model._requests(groups) if r.group == 0]
    plain = VlmScorer(str(folder), None, "image_text_to_text", "cpu", "fp32")
    ours = model._scorer.token_logprobs([groups[0].image], requests, "none")
    generic = plain.token_logprobs([groups[0].image], requests, "none")
    reference = model._scorer.reference_logprobs(groups[0].image, requests)
    assert ours[0] == pytest.approx(reference[0], abs=1e-5)
    assert abs(generic[0][0] - reference[0][0]) > 1e-4


def test_a_checkpoint_of_another_family_is_refused(tiny_families):
    cls, _ = tiny_families["internvl"]
    _, qwen = tiny_families["qwen2_5_vl"]
    with pytest.raises(ValueError, match="'qwen2_5_vl' checkpoint; vqascore_internvl takes internvl"):
        cls(build(cls.Params, {"checkpoint": str(qwen)}), cls.Run()).identify()


def test_an_old_transformers_makes_qwen3_vl_unavailable(tiny_families, monkeypatch):
    from vlc_harness_builtins.models import versions

    cls, folder = tiny_families["qwen3_vl"]
    monkeypatch.setattr(versions, "installed", lambda dist: "5.23.0")
    with pytest.raises(WeightsUnavailable, match=r"Qwen3-VL .* needs transformers>=5\.24\.0 \(installed: 5\.23\.0\)"):
        cls(build(cls.Params, {"checkpoint": str(folder)}), cls.Run()).identify()
