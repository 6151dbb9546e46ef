"""VQAScore with LLaVA-OneVision through transformers (``llava-hf/llava-onevision-qwen2-*-ov-hf``).

P("Yes") to ``Does this figure show "{caption}"? Please answer yes or no.`` as
:mod:`vlc_harness_builtins.models.vqascore` computes it. LLaVA-OneVision's processor picks a grid of 384x384
crops for the image's aspect ratio (``anyres_max_9``) plus a base view; the model packs the crops'
SigLIP features with a learned newline token per row, so every image has its own number of image
tokens. Images with different crop counts are zero-padded to a common count inside a batch (the
model reads only each image's own crops, from its size); features are computed once per image
and placed where the prompt's ``<image>`` placeholder is, as the processor expands it (the
self-check compares with the model's own forward pass on the first batch).

Prompt template (``prompt: auto``, the checkpoint's chat template, image before the question)::

    <|im_start|>user <image>\\n{question}<|im_end|><|im_start|>assistant\\n

Needs transformers >= 4.45.0; an older one makes the cells ``unavailable``.

``prompt: t2v_metrics`` is t2v_metrics 3.0's input instead (LLaVA-NeXT's ``qwen_1_5`` conversation
with its system turn, tokenized around ``<image>`` as ``tokenizer_image_token`` does, the first
token's probability): :mod:`vlc_harness_builtins.models.t2v_metrics_recipes`. t2v_metrics runs the
original ``lmms-lab`` checkpoint through LLaVA-NeXT (fp16, its own any-resolution image code);
this type runs llava-hf's port of the same weights with transformers' image processor.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from vlc_harness import hookimpl
from vlc_harness_builtins.models.generative import VlmScorer
from vlc_harness_builtins.models.vqascore_family import FamilyVqaScore, pad_to


class LlavaOnevisionScorer(VlmScorer):
    """:class:`VlmScorer` for LLaVA-OneVision: a batch's images may have different crop counts."""

    def _batch(self, images: Sequence[dict[str, Any]]) -> dict[str, Any]:
        """The images' tensors stacked, ``pixel_values`` zero-padded to the most crops."""
        torch = self.torch
        out = {}
        for key in images[0]["tensors"]:
            parts = [im["tensors"][key] for im in images]
            if key == "pixel_values":
                parts = pad_to(parts, dim=1)
            out[key] = torch.cat(parts).to(self.device)
        return out


class VqaScoreLlavaOnevision(FamilyVqaScore):
    """VQAScore with LLaVA-OneVision: P("Yes"), any-resolution crops packed with newline tokens."""

    type_name = "vqascore_llava_onevision"
    model_types = {"llava_onevision": LlavaOnevisionScorer}
    prompt_template = "<|im_start|>user <image>\\n{question}<|im_end|><|im_start|>assistant\\n"


@hookimpl
def register_models(register: Any) -> None:
    """Register the LLaVA-OneVision VQAScore type."""
    register(VqaScoreLlavaOnevision)
