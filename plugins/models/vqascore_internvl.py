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
from typing import Any

from vlc_harness import hookimpl
from vlc_harness_builtins.models.generative import VlmScorer
from vlc_harness_builtins.models.vqascore_family import FamilyVqaScore


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


@hookimpl
def register_models(register: Any) -> None:
    """Register the InternVL VQAScore type."""
    register(VqaScoreInternVl)
