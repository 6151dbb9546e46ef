"""What t2v_metrics 3.0 feeds each model family it scores with VQAScore: the recipes behind the
generative types' ``prompt: t2v_metrics`` (no hooks: a table the VQAScore types read).

A recipe is everything that decides the score besides the weights, each mirrored from the
t2v_metrics 3.0 wheel on PyPI (``t2v_metrics/models/vqascore_models/``, file and line below):

* ``conversation``: the prompt around the question, with ``<image>`` where the image goes, exactly
  as t2v_metrics builds it (system message included); empty: the checkpoint's own chat template
  (image first, then the question), which t2v_metrics renders through the processor.
* ``chunks``: t2v_metrics' ``tokenizer_image_token`` (``mm_utils.py:142``): each side of ``<image>``
  is tokenized on its own, the first with the tokenizer's special tokens; a later side drops its
  first token when the first side began with BOS. ``trailing_space``: the question ends with a
  space whose token is not part of the prompt (``llava_model.py:248-251``: the labels start one
  token earlier, where the answer's own leading-space token begins).
* ``question_template`` / ``answer``: t2v_metrics' defaults for the family.
* ``scoring``: ``t2v_metrics`` is ``exp(-mean cross-entropy)`` over the answer's tokens and EOS (the
  label mask of ``forward``); ``p_yes`` is the probability of the answer's first (only) token at
  the next position, read from ``generate(max_new_tokens=1, output_scores=True)``.
* ``image``: ``pad_square`` (``expand2square`` with the processor's mean colour, then the processor),
  ``resize_crop`` (InstructBLIP's torchvision ``Resize`` of the short side, bicubic, centre crop,
  CLIP mean and std), ``qwen_vl_utils`` (``process_vision_info``: a PIL bicubic resize to
  ``smart_resize``'s size, then the processor), ``processor`` (the processor alone),
  ``anyres_frames`` (LLaVA-OneVision: the processor's any-resolution crops, base view first, fed
  as the frames of a video; see :data:`LLAVA_ONEVISION`). t2v_metrics pins transformers 4.49, whose
  image processors are the PIL ones: the recipes use the PIL backend.
* ``generation``: the score is read from ``generate``'s processed logits, so the checkpoint's
  ``generation_config`` repetition penalty applies to the prompt's tokens (t2v_metrics calls
  ``generate`` with ``input_ids``; LLaVA-NeXT's ``generate`` passes embeddings only, so its
  penalty has no tokens to act on).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

T2V_METRICS_VERSION = "3.0"
SYSTEM_MSG = (
    "A chat between a curious user and an artificial intelligence assistant. "
    "The assistant gives helpful, detailed, and polite answers to the user's questions."
)
"""``t2v_metrics/constants.py:5``."""
QWEN_1_5_CONVERSATION = (
    "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n<|im_start|>user\n<image>\n{question}<|im_end|>\n"
    "<|im_start|>assistant\n"
)
"""LLaVA-NeXT's ``conv_templates["qwen_1_5"]`` (``llava/conversation.py:443-451``, CHATML rendering at
lines 85-95, LLaVA-VL/LLaVA-NeXT commit df179663) with t2v_metrics' message ``<image>\\n{question}``."""
CLIP_MEAN = (0.48145466, 0.4578275, 0.40821073)
CLIP_STD = (0.26862954, 0.26130258, 0.27577711)
QWEN_IMAGE_FACTOR, QWEN_MIN_PIXELS, QWEN_MAX_PIXELS = 28, 4 * 28 * 28, 16384 * 28 * 28
"""qwen-vl-utils 0.0.10 ``vision_process.py:25-27`` (QwenLM/Qwen2.5-VL commit f0af2996)."""


@dataclass(frozen=True)
class T2vRecipe:
    """How t2v_metrics 3.0 scores one family: prompt, tokenization, answer, scoring rule, image."""

    name: str
    conversation: str
    chunks: bool
    trailing_space: bool
    question_template: str
    answer: str
    scoring: str
    image: str
    generation: bool
    source: str


LLAVA_1_5 = T2vRecipe(
    name="LLaVA-1.5",
    conversation=SYSTEM_MSG + " USER: <image>\n{question} ASSISTANT: ",
    chunks=True,
    trailing_space=True,
    question_template='Does this figure show "{}"? Please answer yes or no.',
    answer="Yes",
    scoring="t2v_metrics",
    image="pad_square",
    generation=False,
    source="llava_model.py:10-11 (templates), 13-37 (chat, answer + </s>), 213-216 (pad), 243-301 (labels, mean CE)",
)
INSTRUCTBLIP = T2vRecipe(
    name="InstructBLIP (Flan-T5)",
    conversation="{question}",
    chunks=False,
    trailing_space=False,
    question_template='Question: Does this figure show "{}"? Please answer yes or no.',
    answer="yes",
    scoring="t2v_metrics",
    image="resize_crop",
    generation=False,
    source="instructblip_model.py:11-12 (templates), 44-50 (transform), 87-142 (Q-Former and T5 inputs, mean CE)",
)
QWEN2_VL = T2vRecipe(
    name="Qwen2-VL / Qwen2.5-VL",
    conversation="",
    chunks=False,
    trailing_space=False,
    question_template='Does this image show "{}"?',
    answer="Yes",
    scoring="p_yes",
    image="qwen_vl_utils",
    generation=True,
    source="qwen2vl_model.py:159-201 (templates, chat template, process_vision_info, generate, first token)",
)
LLAVA_ONEVISION = T2vRecipe(
    name="LLaVA-OneVision",
    conversation=QWEN_1_5_CONVERSATION,
    chunks=True,
    trailing_space=False,
    question_template='Does this image show "{}"? Answer the question with Yes or No',
    answer="Yes",
    scoring="p_yes",
    image="anyres_frames",
    generation=False,
    source="llavaov_model.py:22 (qwen_1_5), 84-86 (image_tensor[0] of process_images: crops as a 4-D tensor), "
    "97-144 (templates, tokenizer_image_token, video branch, generate, first token), 180-184",
)
"""t2v_metrics keeps ``image_tensor[0]`` of LLaVA-NeXT's ``process_images`` (``llavaov_model.py:84-86``): the
any-resolution crops (base view first, ``mm_utils.py:243-293`` at LLaVA-VL/LLaVA-NeXT df179663) as one
4-D tensor, so ``forward`` (lines 116-121) passes ``modalities=["video"]`` and LLaVA-NeXT treats the crops
as frames: each crop's features 2x2-pooled (``get_2dPool``, ``llava_arch.py:171-190, 286-289``: bilinear
to ceil(27/2) = 14 per side for the 384-pixel, patch-14 SigLIP), the frames flattened and one newline
token appended (``mm_newline_position`` one_token, lines 337-345). transformers' LLaVA-OneVision video
path (``get_video_features``: projector, ``apply_pooling``'s bilinear ceil-halving, one ``image_newline``)
is that layout: the recipe feeds the crops there."""
RECIPES = {
    "llava": LLAVA_1_5,
    "instructblip": INSTRUCTBLIP,
    "qwen2_vl": QWEN2_VL,
    "qwen2_5_vl": QWEN2_VL,
    "llava_onevision": LLAVA_ONEVISION,
}
"""Recipes by the checkpoint's ``model_type``."""
NOT_COVERED = {
    "qwen3_vl": "t2v_metrics 3.0 has no Qwen3-VL scorer (qwen2vl_model.py loads Qwen2-VL and Qwen2.5-VL only)",
    "internvl": "t2v_metrics 3.0 scores InternVL2/2.5 through their remote code (internvl_model.py), not InternVL3",
    "blip-2": "t2v_metrics 3.0 has no BLIP-2 VQAScore model",
}


def recipe_for(model_type: str, config: Mapping[str, Any]) -> T2vRecipe:
    """t2v_metrics' recipe for a checkpoint's ``model_type`` (its ``config.json`` checks the variant);
    a family t2v_metrics does not score is refused, naming why."""
    if model_type in NOT_COVERED:
        raise ValueError(f"prompt t2v_metrics: {NOT_COVERED[model_type]}")
    if model_type not in RECIPES:
        raise ValueError(f"prompt t2v_metrics: t2v_metrics {T2V_METRICS_VERSION} has no recipe for {model_type!r}")
    text_type = str((config.get("text_config") or {}).get("model_type", ""))
    if model_type == "instructblip" and text_type != "t5":
        raise ValueError(f"prompt t2v_metrics: t2v_metrics scores InstructBLIP with Flan-T5 only, not {text_type!r}")
    return RECIPES[model_type]


def check_recipe_params(recipe: T2vRecipe, scoring: str) -> None:
    """Refuse a scoring rule other than the one t2v_metrics uses for the family."""
    if scoring != recipe.scoring:
        raise ValueError(
            f"prompt t2v_metrics: t2v_metrics scores {recipe.name} with scoring {recipe.scoring}, not {scoring}"
        )


def recipe_prompt(recipe: T2vRecipe, chat_template: str) -> str:
    """The recipe's prompt with ``{question}`` (``chat_template`` stands in for the checkpoint's own)."""
    return recipe.conversation or chat_template
