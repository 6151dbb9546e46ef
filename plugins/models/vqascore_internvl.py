"""VQAScore with InternVL3 through transformers (the ``-hf`` checkpoints, ``OpenGVLab/InternVL3-*-hf``).

P("Yes") to ``Does this figure show "{caption}"? Please answer yes or no.`` as
:mod:`vlc_harness_builtins.models.vqascore` computes it. InternVL's processor cuts an image into up to 12
448x448 tiles plus a thumbnail (``crop_to_patches``); each tile becomes ``image_seq_length`` (256)
tokens after pixel shuffle and the MLP projector, and the image's tokens are wrapped in ``<img>``
... ``</img>``. The scorer runs the vision tower once per image over its tiles and places
``<img>``, the image's tokens and ``</img>`` where the prompt has its ``<IMG_CONTEXT>``
placeholder, exactly as the processor expands it (the self-check compares with the model's own
forward pass on the first batch).

Prompt template (``prompt: auto``, the checkpoint's chat template, image before the question)::

    <|im_start|>user\\n<IMG_CONTEXT>\\n{question}<|im_end|>\\n<|im_start|>assistant\\n

(preceded by a system turn where the checkpoint's template adds one). Needs transformers >= 4.52.1
(the first release with ``InternVLForConditionalGeneration``); an older one makes the cells
``unavailable``. The original ``OpenGVLab/InternVL3-*`` repositories hold remote code and are not
loaded.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from vlc_harness import hookimpl
from vlc_harness_builtins.models.generative import VlmScorer
from vlc_harness_builtins.models.vqascore_family import FamilyVqaScore, chat_template

INTERNVL_TOKENS = {
    "start_image_token": "<img>",
    "end_image_token": "</img>",
    "context_image_token": "<IMG_CONTEXT>",
    "video_token": "<video>",
}


class InternVlScorer(VlmScorer):
    """:class:`VlmScorer` for InternVL: tiles per image, ``<img>``/``</img>`` around its tokens."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.start_id = int(self.tokenizer.convert_tokens_to_ids(self.processor.start_image_token))
        self.end_id = int(self.tokenizer.convert_tokens_to_ids(self.processor.end_image_token))

    def preprocess(self, image: Any) -> dict[str, Any]:
        """The image processor's tiles of one image (and how many)."""
        out = self.processor.image_processor(images=image, return_tensors="pt")
        return {"pil": image, "tensors": {"pixel_values": out["pixel_values"]}, "tiles": int(out["num_patches"][0])}

    def _features(
        self, images: Sequence[dict[str, Any]], owners: Sequence[int] | None = None, texts: Sequence[str] = ()
    ) -> list[Any]:
        """The projected tokens of each image's tiles, concatenated per image, in tile order."""
        torch = self.torch
        pixels = torch.cat([im["tensors"]["pixel_values"] for im in images]).to(self.device)
        pooled = self.model.get_image_features(pixel_values=pixels, return_dict=True).pooler_output
        per_image = torch.split(pooled, [im["tiles"] for im in images])
        return [f.reshape(-1, f.shape[-1]) for f in per_image]

    def prompt_ids(self, prompt: str, n_image: int) -> list[int]:
        """Prompt tokens with ``<IMG_CONTEXT>`` expanded to ``<img>``, the image's tokens, ``</img>``."""
        ids = super().prompt_ids(prompt, n_image)
        first = ids.index(self.image_token_id)
        return [*ids[:first], self.start_id, *ids[first : first + n_image], self.end_id, *ids[first + n_image :]]


class VqaScoreInternVl(FamilyVqaScore):
    """VQAScore with InternVL3 (-hf checkpoints): P("Yes"), tiled images, ``<img>``-wrapped tokens."""

    type_name = "vqascore_internvl"
    model_types = {"internvl": InternVlScorer}
    prompt_template = "<|im_start|>user\\n<IMG_CONTEXT>\\n{question}<|im_end|>\\n<|im_start|>assistant\\n"

    @classmethod
    def conformance_example(cls, tmp_path: Any) -> dict[str, Any]:
        """A tiny InternVL (28x28 tiles, up to 4 plus a thumbnail) with random weights, saved locally."""
        return {"checkpoint": str(save_tiny_internvl(tmp_path / "tiny_internvl"))}


def save_tiny_internvl(folder: Path, seed: int = 0) -> Path:
    """A 2-layer ``InternVLForConditionalGeneration`` (Qwen2 decoder, 28x28 tiles of 2x2 patches,
    pixel shuffle to 1 token per tile) with a word-level tokenizer and InternVL's processor."""
    import torch
    from transformers import (
        GotOcr2ImageProcessor,
        InternVLConfig,
        InternVLForConditionalGeneration,
        InternVLProcessor,
        InternVLVideoProcessor,
        PreTrainedTokenizerFast,
    )

    from vlc_harness_builtins.models.tiny_generative import _llama, generative_tokenizer, randomize_tiny_inits

    if (folder / "config.json").is_file():
        return folder
    markers = ("<|im_start|>", "<|im_end|>", *INTERNVL_TOKENS.values())
    generative_tokenizer(folder, bos=None, eos="<|im_end|>", add_bos=False, extra_special=markers)
    tok = PreTrainedTokenizerFast.from_pretrained(folder, extra_special_tokens=INTERNVL_TOKENS)
    tok.save_pretrained(folder)
    text = {"model_type": "qwen2", **_llama(tok), "bos_token_id": None}
    vision = {"hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 2, "num_attention_heads": 2}
    vision |= {"image_size": [28, 28], "patch_size": [14, 14]}
    config = InternVLConfig(
        vision_config=vision,
        text_config=text,
        image_token_id=tok.context_image_token_id,
        downsample_ratio=0.5,
        vision_feature_layer=-1,
        vision_feature_select_strategy="default",
    )
    torch.manual_seed(seed)
    randomize_tiny_inits(InternVLForConditionalGeneration(config)).save_pretrained(folder)
    size = {"height": 28, "width": 28}
    images = GotOcr2ImageProcessor(size=size, crop_to_patches=True, min_patches=1, max_patches=4)
    processor = InternVLProcessor(
        image_processor=images,
        tokenizer=tok,
        video_processor=InternVLVideoProcessor(size=size),
        image_seq_length=1,
        chat_template=chat_template("<IMG_CONTEXT>\n"),
    )
    processor.save_pretrained(folder)
    return folder


@hookimpl
def register_models(register: Any) -> None:
    """Register the InternVL VQAScore type."""
    register(VqaScoreInternVl)
