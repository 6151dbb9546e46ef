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
token's probability): :mod:`vlc_harness_builtins.models.t2v_metrics_recipes`. Its image goes in as
t2v_metrics' does: the processor's any-resolution crops (base view first, PIL backend) as the frames
of a video, each crop's features 2x2-pooled, flattened, one newline token (640x480: 5 crops, 981
visual tokens at 384 pixels where the anyres path packs 2,929). t2v_metrics runs the original
``lmms-lab`` checkpoint through LLaVA-NeXT in fp16; this type runs llava-hf's port of the same
weights, in the entry's precision.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from vlc_harness import hookimpl
from vlc_harness_builtins.models.generative import VlmScorer
from vlc_harness_builtins.models.vqascore_family import FamilyVqaScore, pad_to


class LlavaOnevisionScorer(VlmScorer):
    """:class:`VlmScorer` for LLaVA-OneVision: a batch's images may have different crop counts."""

    def _features(
        self, images: Sequence[dict[str, Any]], owners: Sequence[int] | None = None, texts: Sequence[str] = ()
    ) -> list[Any]:
        """Per image: its any-resolution features, or (``prompt: t2v_metrics``, crops given as
        ``pixel_values_videos``) its crops as video frames: each crop's projected features 2x2-pooled
        (bilinear), the frames flattened, one newline token (transformers' video path)."""
        if "pixel_values_videos" not in images[0]["tensors"]:
            return super()._features(images, owners, texts)
        out = []
        for image in images:  # crop counts differ: one video per image
            frames = image["tensors"]["pixel_values_videos"].to(self.device)
            out.append(self.model.get_video_features(pixel_values_videos=frames).pooler_output[0])
        return out

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
    scoring_version = "2"  # 2: prompt t2v_metrics feeds the crops as video frames, as t2v_metrics 3.0 does
    model_types = {"llava_onevision": LlavaOnevisionScorer}
    prompt_template = "<|im_start|>user <image>\\n{question}<|im_end|><|im_start|>assistant\\n"


@hookimpl
def register_models(register: Any) -> None:
    """Register the LLaVA-OneVision VQAScore type."""
    register(VqaScoreLlavaOnevision)
