"""Entries labelled ``scoring: t2v_metrics`` (and the ``prompt: t2v_metrics`` variants) feed their models
what t2v_metrics 3.0 feeds them, token for token, and score what it scores.

t2v_metrics is installed with ``--no-deps`` and never imported (it pins torch 2.5.1 and transformers
4.49): :mod:`tests.plugins.models.t2v_metrics_source` reads its defaults with ``ast`` and runs its
own prompt formats and image-token tokenizers compiled from its source. Both sides tokenize with the
same real tokenizer class (Llama, T5, Qwen2; :mod:`tests.plugins.models.t2v_tokenizers`) on tiny
random checkpoints (:mod:`tests.plugins.models.t2v_checkpoints`). The entries as they stood before
(llava-hf's chat template, InstructBLIP's ``Yes``) fail the same comparisons (tests below).
Image tensors: ``test_upstream_t2v_metrics_images.py``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from tests.plugins.models.t2v_metrics_source import MODELS, constants, defaults, definition, run_functions, unparsed
from vlc_harness.models import PairGroup
from vlc_harness.params import build
from vlc_harness.testing import require

require("transformers")
require("sentencepiece")

CAPTIONS = (
    "a red cat",
    'the "big" dog chasing a white horse.',
    "A man holding 3 cups, left of 12 tables",
    "two cats  and a dog ",
    "café au lait on the table?",
)
LLAVA = {"scoring": "t2v_metrics", "prompt": "t2v_metrics"}
INSTRUCTBLIP = LLAVA | {
    "question_template": 'Question: Does this figure show "{}"? Please answer yes or no.',
    "answer": "yes",
}
QWEN2_VL = {"scoring": "p_yes", "prompt": "t2v_metrics", "question_template": 'Does this image show "{}"?'}
LLAVA_OV = QWEN2_VL | {"question_template": 'Does this image show "{}"? Answer the question with Yes or No'}
LLAVA_NEXT_QWEN_1_5 = {
    "system": "<|im_start|>system\nYou are a helpful assistant.",
    "roles": ("<|im_start|>user", "<|im_start|>assistant"),
    "sep": "<|im_end|>",
}
"""LLaVA-NeXT's ``conv_qwen`` (``llava/conversation.py:443-451``, commit df179663), as data."""


@pytest.fixture(scope="module")
def t2v():
    """t2v_metrics' constants and its pure functions, compiled from its installed source."""
    import torch
    from PIL import Image

    base = constants("constants.py")
    mm = run_functions(
        f"{MODELS}/mm_utils.py",
        ("tokenizer_image_token", "t5_tokenizer_image_token", "expand2square"),
        {"IMAGE_TOKEN_INDEX": base["IMAGE_TOKEN_INDEX"], "torch": torch, "Image": Image},
    )
    formats = {"SYSTEM_MSG": base["SYSTEM_MSG"], "DEFAULT_IMAGE_TOKEN": base["DEFAULT_IMAGE_TOKEN"]}
    llava = run_functions(f"{MODELS}/llava_model.py", ("format_question", "format_answer"), formats)
    clip_t5 = run_functions(f"{MODELS}/clip_t5_model.py", ("format_question", "format_answer"), formats)
    return {"base": base, "mm": mm, "llava": llava, "clip_t5": clip_t5}


@pytest.fixture(scope="module")
def checkpoints(tmp_path_factory):
    """The tiny checkpoints, and a CLIP-FlanT5 folder scored with the T5 tokenizer."""
    from tests.plugins.models import t2v_checkpoints as c
    from tests.plugins.models.t2v_tokenizers import t5_tokenizer
    from vlc_harness_builtins.testing.tiny_clip_flant5 import save_tiny_clip_flant5

    root = tmp_path_factory.mktemp("t2v")
    t5_tokenizer(root / "flan_t5_tokenizer")
    return {
        "llava": c.tiny_llava(root / "llava"),
        "llava_legacy": c.tiny_llava(root / "llava_legacy", legacy=True),
        "instructblip": c.tiny_instructblip_t5(root / "instructblip"),
        "qwen2_vl": c.tiny_qwen2_vl(root / "qwen2_vl"),
        "llava_onevision": c.tiny_llava_onevision(root / "llava_onevision"),
        "clip_flant5": save_tiny_clip_flant5(root / "clip_flant5", extra_rows=400),
        "flan_t5_tokenizer": root / "flan_t5_tokenizer",
    }


def _image(width: int = 45, height: int = 30, seed: int = 0):
    import numpy as np
    from PIL import Image

    return Image.fromarray(np.random.default_rng(seed).integers(0, 256, (height, width, 3), dtype=np.uint8))


def _model(cls_path: str, params: dict):
    import importlib

    from vlc_harness_builtins.models.generative import GenerativeRun

    module, name = cls_path.rsplit(".", 1)
    cls = getattr(importlib.import_module(module), name)
    model = cls(build(cls.Params, params), GenerativeRun())
    model.identify()
    model.load("cpu")
    return model


def _vqascore(folder, params):
    return _model("vlc_harness_builtins.models.vqascore.VqaScore", {"checkpoint": str(folder), **params})


def _ours(model, caption: str, image=None) -> tuple[list[int], list[int], int]:
    """What our scorer feeds the model: prompt ids (image slots expanded), answer ids, slot count."""
    scorer = model._scorer
    (request,) = model._requests([PairGroup("k", None, [caption])])
    pixels = model.preprocess(image or _image())
    n_image = scorer._request_features([pixels], [request], "vision")[0].shape[0]
    return scorer.prompt_ids(request.prompt, n_image), list(request.answer), n_image


def _expand(ids: list[int], slot: int, n_image: int, image_index: int = -200) -> list[int]:
    """t2v_metrics' one image placeholder as the model sees it: ``n_image`` feature slots."""
    return [x for t in ids for x in ([slot] * n_image if t == image_index else [t])]


# -- LLaVA-1.5 --------------------------------------------------------------------------------------


def _t2v_llava(t2v, tokenizer, caption: str, slot: int, n_image: int) -> tuple[list[int], list[int]]:
    """``LLaVAModel.forward``'s input ids and its unmasked labels (``llava_model.py:236-251``)."""
    llava = constants(f"{MODELS}/llava_model.py")
    style = llava["LLAVA_MODELS"]["llava-v1.5-7b"]["model"]["conversation"]
    qs = t2v["llava"]["format_question"](llava["default_question_template"].format(caption), conversation_style=style)
    ans = t2v["llava"]["format_answer"](llava["default_answer_template"].format(caption), conversation_style=style)
    ids = t2v["mm"]["tokenizer_image_token"](qs + ans, tokenizer)
    masked = len(t2v["mm"]["tokenizer_image_token"](qs, tokenizer)) - (1 if qs[-1] == " " else 0)
    return _expand(ids[:masked], slot, n_image), ids[masked:]


def test_llava_label_mask_is_the_rule_mirrored(t2v):
    source = unparsed(definition(f"{MODELS}/llava_model.py", "forward", "LLaVAModel"))
    for rule in (
        "tokenized_len = len(tokenizer_image_token(qs, self.tokenizer))",
        "if qs[-1] == ' ':",
        "tokenized_len -= 1",
        "label[:tokenized_len] = IGNORE_INDEX",
        "loss_fct = torch.nn.CrossEntropyLoss(reduction='mean')",
        "lm_prob[k] = (-loss_fct(shift_logits[k], shift_labels[k])).exp()",
    ):
        assert rule in source, rule


@pytest.mark.parametrize("checkpoint", ["llava", "llava_legacy"])
@pytest.mark.parametrize("caption", CAPTIONS)
def test_llava_1_5_tokens_are_t2v_metrics(t2v, checkpoints, caption, checkpoint):
    """Either setting of the Llama tokenizer's ``legacy`` flag (text after a special token)."""
    model = _vqascore(checkpoints[checkpoint], LLAVA)
    prompt, answer, n_image = _ours(model, caption)
    scorer = model._scorer
    assert (prompt, answer) == _t2v_llava(t2v, scorer.tokenizer, caption, scorer.image_token_id, n_image)
    assert scorer.tokenizer.convert_ids_to_tokens(answer) == ["▁Yes", "</s>"]


def test_the_previous_llava_entry_fails_the_comparison(t2v, checkpoints):
    """The entry as it was (llava-hf's chat template, no system message) is not t2v_metrics' input."""
    model = _vqascore(checkpoints["llava"], {"scoring": "t2v_metrics"})
    prompt, answer, n_image = _ours(model, CAPTIONS[0])
    expected = _t2v_llava(t2v, model._scorer.tokenizer, CAPTIONS[0], model._scorer.image_token_id, n_image)
    assert answer == expected[1] and prompt != expected[0]


def test_llava_score_is_exp_minus_mean_cross_entropy_over_the_unmasked_labels(t2v, checkpoints):
    import torch

    model = _vqascore(checkpoints["llava"], LLAVA)
    image = _image()
    (score,) = model.score_pairs([PairGroup("k", model.preprocess(image), [CAPTIONS[1]])])[0]
    scorer = model._scorer
    prompt, answer, _ = _ours(model, CAPTIONS[1], image)
    ids = torch.tensor([prompt + answer])
    labels = torch.tensor([[-100] * len(prompt) + answer])
    pixels = model.preprocess(image)["tensors"]["pixel_values"]
    with torch.no_grad():
        loss = scorer.model(input_ids=ids, pixel_values=pixels, attention_mask=torch.ones_like(ids), labels=labels).loss
    assert score == pytest.approx(math.exp(-float(loss)), rel=1e-5)


# -- InstructBLIP (Flan-T5) -------------------------------------------------------------------------


def test_instructblip_inputs_are_the_rule_mirrored(t2v):
    source = unparsed(definition(f"{MODELS}/instructblip_model.py", "forward", "InstructBLIPModel"))
    for rule in (
        "question_text_Qformer = self.model.tokenizer(questions,",
        "question_text_t5 = self.model.t5_tokenizer(questions,",
        "answer_text_t5 = self.model.t5_output_tokenizer(answers,",
        "inputs_embeds = torch.cat([t5_input, inputs_embeds], dim=1)",
        "lm_prob[k] = (-loss_fct(outputs.logits[k], labels[k])).exp()",
    ):
        assert rule in source, rule


@pytest.mark.parametrize("caption", CAPTIONS)
def test_instructblip_tokens_are_t2v_metrics(checkpoints, caption):
    ib = constants(f"{MODELS}/instructblip_model.py")
    model = _vqascore(checkpoints["instructblip"], INSTRUCTBLIP)
    prompt, answer, n_query = _ours(model, caption)
    (request,) = model._requests([PairGroup("k", None, [caption])])
    tokenizer, question = model._scorer.tokenizer, ib["default_question_template"].format(caption)
    assert request.prompt == question  # what the Q-Former reads, too
    assert prompt == [model._scorer.image_token_id] * n_query + tokenizer(question).input_ids
    assert answer == tokenizer(ib["default_answer_template"].format(caption)).input_ids


def test_the_previous_instructblip_entry_fails_the_comparison(checkpoints):
    ib = constants(f"{MODELS}/instructblip_model.py")
    model = _vqascore(checkpoints["instructblip"], {"scoring": "t2v_metrics"})
    prompt, answer, n_query = _ours(model, CAPTIONS[0])
    tokenizer, question = model._scorer.tokenizer, ib["default_question_template"].format(CAPTIONS[0])
    assert prompt[n_query:] != tokenizer(question).input_ids
    assert answer != tokenizer(ib["default_answer_template"]).input_ids


def test_instructblip_score_is_exp_minus_mean_cross_entropy(checkpoints):
    import torch

    model = _vqascore(checkpoints["instructblip"], INSTRUCTBLIP)
    image = _image()
    (score,) = model.score_pairs([PairGroup("k", model.preprocess(image), [CAPTIONS[0]])])[0]
    prompt, answer, _ = _ours(model, CAPTIONS[0], image)
    (request,) = model._requests([PairGroup("k", None, [CAPTIONS[0]])])
    scorer = model._scorer
    q = scorer.processor.qformer_tokenizer([request.prompt], return_tensors="pt")
    ids = torch.tensor([prompt])
    with torch.no_grad():
        loss = scorer.model(
            input_ids=ids,
            attention_mask=torch.ones_like(ids),
            pixel_values=model.preprocess(image)["tensors"]["pixel_values"],
            qformer_input_ids=q["input_ids"],
            qformer_attention_mask=q["attention_mask"],
            labels=torch.tensor([answer]),
        ).loss
    assert score == pytest.approx(math.exp(-float(loss)), rel=1e-5)


# -- CLIP-FlanT5 ------------------------------------------------------------------------------------


def test_clip_flant5_inputs_and_labels_are_the_rule_mirrored():
    c5 = constants(f"{MODELS}/clip_t5_model.py")["CLIP_T5_MODELS"]
    assert {c5[name]["model"]["image_aspect_ratio"] for name in ("clip-flant5-xxl", "clip-flant5-xl")} == {"pad"}
    source = unparsed(definition(f"{MODELS}/clip_t5_model.py", "forward", "CLIPT5Model"))
    for rule in (
        "input_ids = [t5_tokenizer_image_token(qs, self.tokenizer, return_tensors='pt') for qs in questions]",
        "labels = [t5_tokenizer_image_token(ans, self.tokenizer, return_tensors='pt') for ans in answers]",
        "decoder_attention_mask = labels.ne(IGNORE_INDEX)",
        "lm_prob[k] = (-loss_fct(logits[k], labels[k])).exp()",
    ):
        assert rule in source, rule


@pytest.mark.parametrize("caption", CAPTIONS)
def test_clip_flant5_tokens_are_t2v_metrics(t2v, checkpoints, caption):
    c5 = constants(f"{MODELS}/clip_t5_model.py")
    style = c5["CLIP_T5_MODELS"]["clip-flant5-xxl"]["model"]["conversation"]
    params = {"checkpoint": str(checkpoints["clip_flant5"]), "tokenizer": str(checkpoints["flan_t5_tokenizer"])}
    model = _model("vlc_harness_builtins.models.clip_flant5.ClipFlanT5", params)
    prompt, answer, n_image = _ours(model, caption)
    tokenizer = model._scorer.tokenizer
    qs = t2v["clip_t5"]["format_question"](c5["default_question_template"].format(caption), conversation_style=style)
    ans = t2v["clip_t5"]["format_answer"](c5["default_answer_template"].format(caption), conversation_style=style)
    assert prompt == _expand(t2v["mm"]["t5_tokenizer_image_token"](qs, tokenizer), -200, n_image)
    assert answer == t2v["mm"]["t5_tokenizer_image_token"](ans, tokenizer)


# -- Qwen2-VL -------------------------------------------------------------------------------------


def test_qwen2_vl_scoring_is_the_rule_mirrored():
    forward = definition(f"{MODELS}/qwen2vl_model.py", "forward", "Qwen2VLModel")
    source = unparsed(forward)
    for rule in (
        "messages = [{'role': 'user', 'content': [data, {'type': 'text', 'text': question}]}]",
        "text = self.processor.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)",
        "image_inputs, video_inputs = process_vision_info(messages)",
        "max_new_tokens=1, do_sample=False, output_scores=True, return_dict_in_generate=True",
        "probs = torch.nn.functional.softmax(scores, dim=-1)",
        "ans_token_id = self.processor.tokenizer.encode(answer)[0]",
    ):
        assert rule in source, rule
    assert (defaults(forward)["question_template"], defaults(forward)["answer_template"]) == (
        QWEN2_VL["question_template"],
        "Yes",
    )


def _qwen_upstream(folder, caption: str, image) -> dict:
    """What t2v_metrics' Qwen2VLModel.forward hands ``generate``: the processor (its image processor
    with the PIL backend, as transformers 4.49's) on the chat template around its question and on
    qwen-vl-utils' resized image."""
    from transformers import AutoImageProcessor, AutoProcessor

    from vlc_harness_builtins.models.t2v_metrics_inputs import qwen_vl_utils_image

    processor = AutoProcessor.from_pretrained(folder)
    processor.image_processor = AutoImageProcessor.from_pretrained(folder, backend="pil")
    question = QWEN2_VL["question_template"].format(caption)
    content = [{"type": "image"}, {"type": "text", "text": question}]
    text = processor.apply_chat_template(
        [{"role": "user", "content": content}], tokenize=False, add_generation_prompt=True
    )
    return dict(processor(text=[text], images=[qwen_vl_utils_image(image)], return_tensors="pt"))


@pytest.mark.parametrize("caption", CAPTIONS[:3])
def test_qwen2_vl_tokens_are_t2v_metrics(checkpoints, caption):
    model = _vqascore(checkpoints["qwen2_vl"], QWEN2_VL)
    image = _image(61, 40)
    prompt, answer, _ = _ours(model, caption, image)
    upstream = _qwen_upstream(checkpoints["qwen2_vl"], caption, image)
    assert prompt == upstream["input_ids"][0].tolist() and answer == [model._scorer.tokenizer.encode("Yes")[0]]
    assert model.preprocess(image)["tensors"]["pixel_values"].equal(upstream["pixel_values"])
    old = _vqascore(checkpoints["qwen2_vl"], {"scoring": "p_yes"})  # the p_yes entry's question
    assert _ours(old, caption, image)[0] != upstream["input_ids"][0].tolist()


def test_qwen2_vl_score_is_generates_first_token_probability_with_its_repetition_penalty(checkpoints):
    """transformers' ``generate`` (its logits processors, the checkpoint's repetition penalty 1.05)
    against our grouped scorer; without the penalty the probability differs."""
    import torch

    model = _vqascore(checkpoints["qwen2_vl"], QWEN2_VL)
    image = _image(61, 40)
    (score,) = model.score_pairs([PairGroup("k", model.preprocess(image), [CAPTIONS[2]])])[0]
    inputs = _qwen_upstream(checkpoints["qwen2_vl"], CAPTIONS[2], image)
    scorer, yes = model._scorer, model._scorer.tokenizer.encode("Yes")[0]
    with torch.no_grad():
        out = scorer.model.generate(
            **inputs, max_new_tokens=1, do_sample=False, output_scores=True, return_dict_in_generate=True
        )
        raw = scorer.model(**inputs)
    reference = float(torch.softmax(out.scores[0].float(), dim=-1)[0, yes])
    unpenalised = float(torch.softmax(raw.logits[0, -1].float(), dim=-1)[yes])
    assert scorer.model.generation_config.repetition_penalty == 1.05
    assert score == pytest.approx(reference, rel=1e-5)
    assert abs(unpenalised - reference) > 1e-4 * reference  # ten times the tolerance above


def test_qwen2_5_vl_follows_the_same_recipe(tmp_path):
    """t2v_metrics' Qwen2VLModel loads Qwen2.5-VL with the same code: the vqascore_qwen_vl type takes the recipe."""
    from vlc_harness_builtins.testing.tiny_vqascore import save_tiny_qwen_vl

    folder = save_tiny_qwen_vl(tmp_path / "qwen2_5_vl", "qwen2_5_vl")
    model = _model(
        "vlc_harness_builtins.models.vqascore_qwen_vl.VqaScoreQwenVl", {"checkpoint": str(folder), **QWEN2_VL}
    )
    assert model.identify().protocol == "score_pairs/vqascore/p_yes/qwen2_5_vl/t2v_metrics-3.0"
    image = _image(61, 40)
    prompt, answer, _ = _ours(model, CAPTIONS[0], image)
    assert prompt == _qwen_upstream(folder, CAPTIONS[0], image)["input_ids"][0].tolist() and len(answer) == 1
    scores = model.score_pairs([PairGroup("k", model.preprocess(image), list(CAPTIONS))])  # the self-check runs
    assert all(0 < x < 1 for x in scores[0])


# -- LLaVA-OneVision --------------------------------------------------------------------------------


def test_llava_onevision_format_is_the_rule_mirrored():
    ov = constants(f"{MODELS}/llavaov_model.py")
    assert ov["LLAVA_OV_MODELS"]["llava-onevision-qwen2-7b-ov"]["model"]["conversation"] == "qwen_1_5"
    source = unparsed(definition(f"{MODELS}/llavaov_model.py", "format_question", "LLaVAOneVisionModel"))
    assert "conv.append_message(conv.roles[0], DEFAULT_IMAGE_TOKEN + '\\n' + question)" in source
    assert "conv.append_message(conv.roles[1], None)" in source
    forward = definition(f"{MODELS}/llavaov_model.py", "forward", "LLaVAOneVisionModel")
    assert defaults(forward)["question_template"] == LLAVA_OV["question_template"]
    assert "yes_token_id = self.tokenizer.encode(answer)[0]" in unparsed(forward)


def _chatml(question: str) -> str:
    """LLaVA-NeXT's CHATML ``get_prompt`` (``llava/conversation.py:85-95``) over t2v_metrics' two messages."""
    conv = LLAVA_NEXT_QWEN_1_5
    text = conv["system"] + conv["sep"] + "\n"
    text += conv["roles"][0] + "\n" + "<image>\n" + question + conv["sep"] + "\n"
    return text + conv["roles"][1] + "\n"


ISSUE_39_TOKENS = {(640, 480): 981, (500, 375): 589, (224, 224): 393}
"""t2v_metrics' visual tokens for llava-onevision-qwen2-7b-ov (issue 39's golden values); llava-hf's anyres
path, which the entry fed before, packs 2,929, 1,728 and 1,485."""


def _llava_next_best_grid(width: int, height: int, pinpoints) -> tuple[int, int]:
    """LLaVA-NeXT's ``select_best_resolution`` (``llava/mm_utils.py:119-149``, df179663), restated."""
    best, best_effective, best_wasted = (0, 0), 0, math.inf
    for w, h in pinpoints:
        scale = min(w / width, h / height)
        effective = min(int(width * scale) * int(height * scale), width * height)
        wasted = w * h - effective
        if effective > best_effective or (effective == best_effective and wasted < best_wasted):
            best, best_effective, best_wasted = (w, h), effective, wasted
    return best


def _llava_next_visual_tokens(width: int, height: int, pinpoints, side: int = 384, patch: int = 14) -> int:
    """Visual tokens LLaVA-NeXT gives t2v_metrics' image, from its rules: the best grid's crops plus the
    base view (``process_anyres_image``, ``mm_utils.py:243-293``), each crop a frame of the video branch
    pooled to ceil(n/2) patches a side (``get_2dPool``, ``llava_arch.py:171-190``, bilinear; called at
    286-289), the frames flattened, one newline token (one_token, 337-345)."""
    w, h = _llava_next_best_grid(width, height, pinpoints)
    crops = 1 + (w // side) * (h // side)
    pooled = math.ceil((side // patch) / 2)
    return crops * pooled * pooled + 1


def test_llava_next_rules_give_the_issues_token_counts():
    from tests.plugins.models.t2v_checkpoints import OV_PINPOINTS

    for (width, height), tokens in ISSUE_39_TOKENS.items():
        assert _llava_next_visual_tokens(width, height, OV_PINPOINTS) == tokens


def test_llava_onevision_forward_takes_the_video_branch_as_the_rule_mirrored():
    source = unparsed(definition(f"{MODELS}/llavaov_model.py", "load_images", "LLaVAOneVisionModel"))
    assert "image_tensor = process_images([image], self.processor, self.model.config)" in source
    assert "processed_data.append(image_tensor[0])" in source
    forward = unparsed(definition(f"{MODELS}/llavaov_model.py", "forward", "LLaVAOneVisionModel"))
    assert "if isinstance(data, torch.Tensor) and data.dim() == 4:" in forward
    assert "modalities = ['video']" in forward


@pytest.fixture(scope="module")
def ov_published(tmp_path_factory):
    """The tiny LLaVA-OneVision with the 7B checkpoint's image geometry (384-pixel crops, patch 14)."""
    from tests.plugins.models.t2v_checkpoints import tiny_llava_onevision

    return tiny_llava_onevision(tmp_path_factory.mktemp("ov") / "published", published_geometry=True)


def test_llava_onevision_visual_tokens_are_t2v_metrics(ov_published):
    """Counted from LLaVA-NeXT's rules, not from our code; the anyres path (before) gives 2,929 for 640x480."""
    from tests.plugins.models.t2v_checkpoints import OV_PINPOINTS

    path = "vlc_harness_builtins.models.vqascore_llava_onevision.VqaScoreLlavaOnevision"
    model = _model(path, {"checkpoint": str(ov_published), **LLAVA_OV})
    for (width, height), tokens in ISSUE_39_TOKENS.items():
        assert _ours(model, CAPTIONS[0], _image(width, height))[2] == tokens
        assert _llava_next_visual_tokens(width, height, OV_PINPOINTS) == tokens
    anyres = _model(path, {"checkpoint": str(ov_published), "scoring": "p_yes"})
    assert _ours(anyres, CAPTIONS[0], _image(640, 480))[2] == 2929  # the issue's count for the anyres path


def _llava_next_crops(image, pinpoints, side: int) -> np.ndarray:
    """``process_anyres_image`` (``mm_utils.py:152-210, 243-293``) with LLaVA-NeXT's ``SigLipImageProcessor``
    (``siglip_encoder.py:34-67``: x / 255 in float64 to float32, mean and std 0.5), restated: ``[N, 3, s, s]``."""
    from PIL import Image

    width, height = image.size
    tw, th = _llava_next_best_grid(width, height, pinpoints)
    if tw / width < th / height:
        nw, nh = tw, min(math.ceil(height * tw / width), th)
    else:
        nw, nh = min(math.ceil(width * th / height), tw), th
    padded = Image.new("RGB", (tw, th), (0, 0, 0))
    padded.paste(image.resize((nw, nh)), ((tw - nw) // 2, (th - nh) // 2))
    crops = [padded.crop((j, i, j + side, i + side)) for i in range(0, th, side) for j in range(0, tw, side)]
    views = [image.resize((side, side)), *crops]
    pixels = np.stack([np.asarray(v.convert("RGB"), dtype=np.float64) * (1 / 255) for v in views]).astype(np.float32)
    return ((pixels - 0.5) / 0.5).transpose(0, 3, 1, 2)


def _llava_next_video_features(model, crops):
    """LLaVA-NeXT's video branch over one image's crops: ``encode_images`` (vision tower, projector;
    ``llava_arch.py:192-196``), ``get_2dPool`` (171-190: bilinear to ceil(n/2) a side), flattened with
    one newline token (337-345)."""
    import torch

    inner = model.model
    hidden = inner.vision_tower(crops, output_hidden_states=True).hidden_states[-1]
    feats = inner.multi_modal_projector(hidden)
    frames, tokens, dim = feats.shape
    n = int(math.isqrt(tokens))
    grid = feats.view(frames, n, n, dim).permute(0, 3, 1, 2)
    pooled = torch.nn.functional.interpolate(grid, size=[math.ceil(n / 2), math.ceil(n / 2)], mode="bilinear")
    pooled = pooled.permute(0, 2, 3, 1).reshape(frames, -1, dim)
    return torch.cat([pooled.flatten(0, 1), inner.image_newline[None]], dim=0)


def test_llava_onevision_crops_and_features_are_llava_next_video_branch(ov_published):
    import torch

    from tests.plugins.models.t2v_checkpoints import OV_PINPOINTS

    path = "vlc_harness_builtins.models.vqascore_llava_onevision.VqaScoreLlavaOnevision"
    model = _model(path, {"checkpoint": str(ov_published), **LLAVA_OV})
    scorer = model._scorer
    for width, height in ((640, 480), (500, 375), (61, 40)):
        image = _image(width, height)
        pixels = model.preprocess(image)["tensors"]["pixel_values_videos"][0]
        upstream = _llava_next_crops(image, OV_PINPOINTS, 384)
        assert pixels.shape == upstream.shape and np.abs(pixels.numpy() - upstream).max() < 1e-6
        with torch.no_grad():
            ours = scorer._request_features(
                [model.preprocess(image)], model._requests([PairGroup("k", None, [CAPTIONS[0]])]), "vision"
            )[0]
            expected = _llava_next_video_features(scorer.model, torch.from_numpy(upstream))
        assert ours.shape == expected.shape and torch.allclose(ours, expected, atol=1e-5)


@pytest.mark.parametrize("caption", CAPTIONS[:3])
def test_llava_onevision_tokens_are_t2v_metrics(t2v, checkpoints, caption):
    """t2v_metrics' ids with its one ``<image>`` expanded to the count LLaVA-NeXT's rules give (the tiny
    checkpoint's 28-pixel crops of 14-pixel patches: 1 token a crop), not to our own count."""
    from vlc_harness_builtins.testing.tiny_vqascore import ANYRES_PINPOINTS

    path = "vlc_harness_builtins.models.vqascore_llava_onevision.VqaScoreLlavaOnevision"
    model = _model(path, {"checkpoint": str(checkpoints["llava_onevision"]), **LLAVA_OV})
    prompt, answer, _ = _ours(model, caption)  # _image(): 45x30
    scorer = model._scorer
    upstream = t2v["mm"]["tokenizer_image_token"](
        _chatml(LLAVA_OV["question_template"].format(caption)), scorer.tokenizer
    )
    tokens = _llava_next_visual_tokens(45, 30, ANYRES_PINPOINTS, side=28)
    assert prompt == _expand(upstream, scorer.model.config.video_token_id, tokens)
    assert answer == [scorer.tokenizer.encode("Yes")[0]]
    old = _model(path, {"checkpoint": str(checkpoints["llava_onevision"]), "scoring": "p_yes"})
    assert _ours(old, caption)[0] != prompt


def test_llava_onevision_t2v_metrics_scores_pass_the_self_check_on_the_video_path(ov_published):
    """The grouped scorer against the model's own forward over ``pixel_values_videos`` (the self-check)."""
    path = "vlc_harness_builtins.models.vqascore_llava_onevision.VqaScoreLlavaOnevision"
    model = _model(path, {"checkpoint": str(ov_published), **LLAVA_OV})
    groups = [
        PairGroup(str(k), model.preprocess(_image(w, h, k)), list(CAPTIONS[:3]))
        for k, (w, h) in enumerate(((640, 480), (224, 224)))
    ]
    scores = model.score_pairs(groups)
    assert model._checked and all(0 < x < 1 for row in scores for x in row)


# -- the registry and the recipes -----------------------------------------------------------------

UPSTREAM_DEFAULTS = {
    "llava-hf/llava-1.5-7b-hf": ("llava_model.py", None),
    "Salesforce/instructblip-flan-t5-xl": ("instructblip_model.py", None),
    "Qwen/Qwen2-VL-7B-Instruct": ("qwen2vl_model.py", "Qwen2VLModel"),
    "Qwen/Qwen2.5-VL-7B-Instruct": ("qwen2vl_model.py", "Qwen2VLModel"),
    "llava-hf/llava-onevision-qwen2-7b-ov-hf": ("llavaov_model.py", "LLaVAOneVisionModel"),
}


def _upstream_defaults(checkpoint: str) -> tuple[str, str]:
    file, owner = UPSTREAM_DEFAULTS[checkpoint]
    if owner is None:
        c = constants(f"{MODELS}/{file}")
        return c["default_question_template"], c["default_answer_template"]
    d = defaults(definition(f"{MODELS}/{file}", "forward", owner))
    return d["question_template"], d["answer_template"]


def test_registry_t2v_metrics_entries_use_t2v_metrics_recipes_and_templates(vlc_plugins):
    from pathlib import Path

    from vlc_harness.registry import load_registry

    models = load_registry([Path(__file__).parents[3] / "registry.yaml"], vlc_plugins).models
    labelled = [m for m in models.values() if getattr(m.params, "scoring", None) == "t2v_metrics"]
    assert labelled
    for entry in labelled:
        assert entry.type == "clip_flant5" or entry.params.prompt == "t2v_metrics", entry.id
    faithful = [m for m in models.values() if getattr(m.params, "prompt", None) == "t2v_metrics"]
    assert {m.params.checkpoint for m in faithful} == set(UPSTREAM_DEFAULTS)
    for entry in faithful:
        question, answer = _upstream_defaults(entry.params.checkpoint)
        assert (entry.params.question_template, entry.params.answer) == (question, answer), entry.id


def test_the_recipes_hold_t2v_metrics_constants(t2v):
    from vlc_harness_builtins.models import t2v_metrics_recipes as r

    assert r.SYSTEM_MSG == t2v["base"]["SYSTEM_MSG"]
    assert r.LLAVA_1_5.conversation == t2v["llava"]["format_question"]("{question}", conversation_style="chat")
    assert r.QWEN_1_5_CONVERSATION == _chatml("{question}")
    for recipe, checkpoint in (
        (r.LLAVA_1_5, "llava-hf/llava-1.5-7b-hf"),
        (r.INSTRUCTBLIP, "Salesforce/instructblip-flan-t5-xl"),
        (r.QWEN2_VL, "Qwen/Qwen2-VL-7B-Instruct"),
        (r.LLAVA_ONEVISION, "llava-hf/llava-onevision-qwen2-7b-ov-hf"),
    ):
        assert (recipe.question_template, recipe.answer) == _upstream_defaults(checkpoint), recipe.name


def test_families_and_rules_t2v_metrics_does_not_use_are_refused(checkpoints, tmp_path):
    from vlc_harness_builtins.models.vqascore_qwen_vl import VqaScoreQwenVl
    from vlc_harness_builtins.testing.tiny_vqascore import save_tiny_qwen_vl

    qwen3 = save_tiny_qwen_vl(tmp_path / "qwen3", "qwen3_vl")
    model = VqaScoreQwenVl(build(VqaScoreQwenVl.Params, {"checkpoint": str(qwen3), **QWEN2_VL}), VqaScoreQwenVl.Run())
    with pytest.raises(ValueError, match="no Qwen3-VL"):
        model.identify()
    with pytest.raises(ValueError, match="scoring t2v_metrics, not p_yes"):
        _vqascore(checkpoints["llava"], LLAVA | {"scoring": "p_yes"})
    with pytest.raises(ValueError, match="first token"):
        _vqascore(checkpoints["qwen2_vl"], QWEN2_VL | {"answer": "Yes please"})


def test_a_t2v_metrics_entry_runs_end_to_end_and_records_its_prompt(vlc_run, sample_root, checkpoints):
    import json

    from sqlalchemy import create_engine, text

    spec = f"vqascore:checkpoint={checkpoints['llava']},scoring=t2v_metrics,prompt=t2v_metrics"
    out = vlc_run("-m", spec, "-b", "sugarcrepe:version=custom", data_root=sample_root)
    assert out.exit_code == 0, out.output
    with create_engine(vlc_run.store_url).connect() as db:
        provenance = json.loads(db.execute(text("SELECT provenance FROM cells")).scalar_one())
    model = provenance["model"]
    assert model["protocol"] == "score_pairs/vqascore/t2v_metrics/llava/t2v_metrics-3.0"
    assert (
        model["details"]["prompt"].startswith("A chat between a curious user") and model["details"]["answer"] == "Yes"
    )


def test_entries_without_the_preset_keep_their_protocols(tmp_path):
    """``p_yes`` and chat-template entries score as before: their protocols (and params) are unchanged."""
    from vlc_harness_builtins.models.vqascore import VqaScore
    from vlc_harness_builtins.models.vqascore_qwen_vl import VqaScoreQwenVl
    from vlc_harness_builtins.testing.tiny_generative import save_tiny_llava
    from vlc_harness_builtins.testing.tiny_vqascore import save_tiny_qwen_vl

    llava, qwen = save_tiny_llava(tmp_path / "llava"), save_tiny_qwen_vl(tmp_path / "qwen", "qwen2_5_vl")
    for cls, folder, scoring, protocol in (
        (VqaScore, llava, "p_yes", "score_pairs/vqascore/p_yes/llava"),
        (VqaScore, llava, "t2v_metrics", "score_pairs/vqascore/t2v_metrics/llava"),
        (VqaScoreQwenVl, qwen, "p_yes", "score_pairs/vqascore/p_yes/qwen2_5_vl/chat_template"),
    ):
        model = cls(build(cls.Params, {"checkpoint": str(folder), "scoring": scoring}), cls.Run())
        assert model.identify().protocol == protocol


def test_the_installed_t2v_metrics_that_does_not_import_leaves_its_cells_unavailable():
    """With the real package found but not importable here, the adapter never scores: ``identify``
    raises the import error (the cells become ``unavailable``), and it offers no offline example."""
    import importlib.util

    from vlc_harness.errors import WeightsUnavailable
    from vlc_harness.models import RunOptions
    from vlc_harness_builtins.models.t2v_metrics_adapter import T2vMetrics

    require("t2v_metrics")
    assert T2vMetrics.conformance_example(None) is None
    try:
        importlib.import_module("t2v_metrics")
    except Exception as exc:  # the expected case beside this stack
        with pytest.raises(WeightsUnavailable, match=type(exc).__name__):
            T2vMetrics(build(T2vMetrics.Params, {}), RunOptions()).identify()
    else:  # pragma: no cover - only in t2v_metrics' own environment
        assert importlib.util.find_spec("t2v_metrics") is not None
