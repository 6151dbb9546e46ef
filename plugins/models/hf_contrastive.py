"""Contrastive dual encoders through transformers: CLIPModel, SiglipModel, Siglip2Model, or any
model with ``get_image_features`` and ``get_text_features`` (loaded with ``AutoModel``).

``params``:

* ``checkpoint``: a hub repo id (``openai/clip-vit-base-patch32``, ``google/siglip-base-patch16-224``,
  ``google/siglip2-so400m-patch16-naflex``) or a local folder written by ``save_pretrained`` (model,
  tokenizer and image processor).
* ``revision``: hub branch, tag or commit; the resolved commit is fingerprinted and loaded.
* ``similarity``: ``cosine``, or ``siglip_logit`` (SigLIP's pre-sigmoid logit,
  ``exp(logit_scale) * cos + logit_bias``, so that no score saturates into a tie); ``auto`` picks
  ``siglip_logit`` for SigLIP and SigLIP 2 checkpoints and ``cosine`` otherwise.
* ``text_padding``: ``max_length`` pads every caption to the text tower's length (the tokenizer's
  maximum, at most the tower's position embeddings: 64 for SigLIP and SigLIP 2, which were trained
  that way and whose bidirectional towers see the padding); ``longest`` pads to the batch's longest
  caption (exact for CLIP's causal tower with end-of-text pooling); ``auto`` picks ``max_length``
  for SigLIP and SigLIP 2 and ``longest`` otherwise.
* ``precision``: ``fp32`` (the only choice on CPU), or ``fp16``/``bf16`` autocast on CUDA.

Images go through the checkpoint's own image processor; captions are scored raw (no template).
SigLIP 2 NaFlex checkpoints (``model_type: siglip2``, transformers >= 4.50) keep each image's
aspect ratio: their processor returns patches, a patch mask and the patch grid's shape, which are
passed on as they are; their tokenizer lower-cases, as SigLIP 2 was trained. (Fixed-resolution
SigLIP 2 checkpoints are ``SiglipModel`` checkpoints and go the SigLIP way.)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from vlc_harness import hookimpl
from vlc_harness.kit.precision import autocast, check_precision
from vlc_harness.kit.weights import checkpoint_config, checkpoint_identity, pinned_revision
from vlc_harness.models import EmbeddingModel, Identity
from vlc_harness_builtins.models.versions import require_transformers_model

SIGLIP_TYPES = ("siglip", "siglip2")
NAFLEX_INPUTS = ("pixel_values", "pixel_attention_mask", "spatial_shapes")
"""What a SigLIP 2 NaFlex image processor returns per image, all passed to ``get_image_features``."""


@dataclass(frozen=True)
class HfContrastiveParams:
    """Which checkpoint, and how its embeddings become a score."""

    checkpoint: str
    revision: str | None = None
    similarity: Literal["auto", "cosine", "siglip_logit"] = "auto"
    text_padding: Literal["auto", "longest", "max_length"] = "auto"
    precision: Literal["fp32", "fp16", "bf16"] = "fp32"


class HfContrastive(EmbeddingModel):
    """A transformers dual encoder scored by cosine similarity or SigLIP's logit."""

    type_name = "hf_contrastive"
    Params = HfContrastiveParams

    def identify(self) -> Identity:
        """Resolved hub commit or local folder hash; the protocol names similarity and padding."""
        self._identity = checkpoint_identity(self.params.checkpoint, self.params.revision)
        model_type = self._model_type()
        require_transformers_model(model_type)
        similarity, padding = self._protocol(model_type)
        return Identity(self._identity, self.params.precision, f"embed/{similarity}/pad-{padding}/raw-caption")

    def _model_type(self) -> str:
        return str(checkpoint_config(self.params.checkpoint, self._identity).get("model_type", ""))

    def _protocol(self, model_type: str) -> tuple[str, str]:
        siglip = model_type in SIGLIP_TYPES
        similarity = self.params.similarity
        if similarity == "auto":
            similarity = "siglip_logit" if siglip else "cosine"
        padding = self.params.text_padding
        if padding == "auto":
            padding = "max_length" if siglip else "longest"
        return similarity, padding

    def load(self, device: str) -> None:
        """Model in fp32 (autocast for half precision), tokenizer and image processor."""
        import torch
        from transformers import AutoImageProcessor, AutoModel, AutoTokenizer

        check_precision(self.params.precision, device)
        identity = getattr(self, "_identity", None) or checkpoint_identity(self.params.checkpoint, self.params.revision)
        self._identity = identity
        revision = pinned_revision(identity)
        self._model = AutoModel.from_pretrained(self.params.checkpoint, revision=revision).to(device).eval()
        self._tokenizer = AutoTokenizer.from_pretrained(self.params.checkpoint, revision=revision)
        self._processor = AutoImageProcessor.from_pretrained(self.params.checkpoint, revision=revision)
        self._similarity, self._padding = self._protocol(self._model.config.model_type)
        self._naflex = self._model.config.model_type == "siglip2"
        if self._similarity == "siglip_logit":
            self._scale = float(self._model.logit_scale.detach().exp())
            self._bias = float(self._model.logit_bias.detach())
        self._device = device
        self._torch = torch

    def preprocess(self, image: Any) -> Any:
        """The checkpoint's image processor (resize, crop, normalise) for one image; for SigLIP 2
        NaFlex, its patches, patch mask and patch-grid shape."""
        out = self._processor(images=image, return_tensors="pt")
        if self._naflex:
            return {k: out[k][0] for k in NAFLEX_INPUTS}
        return out["pixel_values"][0]

    def embed_images(self, batch: list[Any]) -> np.ndarray:
        """Image features (normalised later, in :meth:`pair_scores`)."""
        torch = self._torch
        if isinstance(batch[0], dict):
            inputs = {k: torch.stack([b[k] for b in batch]).to(self._device) for k in batch[0]}
        else:
            inputs = {"pixel_values": torch.stack(batch).to(self._device)}
        with torch.no_grad(), autocast(self.params.precision):
            return _features(self._model.get_image_features(**inputs)).float().cpu().numpy()

    def embed_texts(self, texts: list[str]) -> np.ndarray:
        """Text features of the raw captions, padded as the protocol says."""
        torch = self._torch
        limit = min(int(getattr(self._tokenizer, "model_max_length", 77) or 77), 512)
        positions = getattr(getattr(self._model.config, "text_config", None), "max_position_embeddings", None)
        if positions:  # a tokenizer may claim more than the text tower holds (SigLIP 2's Gemma tokenizer)
            limit = min(limit, int(positions))
        padding: Any = "max_length" if self._padding == "max_length" else True
        encoded = self._tokenizer(texts, padding=padding, truncation=True, max_length=limit, return_tensors="pt")
        inputs = {k: v.to(self._device) for k, v in encoded.items() if k in ("input_ids", "attention_mask")}
        with torch.no_grad(), autocast(self.params.precision):
            return _features(self._model.get_text_features(**inputs)).float().cpu().numpy()

    def pair_scores(self, image_vecs: np.ndarray, text_vecs: np.ndarray) -> np.ndarray:
        """Cosine, or SigLIP's pre-sigmoid logit ``exp(logit_scale) * cos + logit_bias``."""
        cosine = super().pair_scores(image_vecs, text_vecs)
        if self._similarity == "siglip_logit":
            return cosine * self._scale + self._bias
        return cosine

    @classmethod
    def conformance_example(cls, tmp_path: Any) -> dict[str, Any]:
        """A tiny CLIP with random weights, saved with the real CLIP tokenizer's vocabulary."""
        from vlc_harness_builtins.models.tiny_hf import save_tiny_clip

        return {"checkpoint": str(save_tiny_clip(tmp_path / "tiny_hf_clip"))}


def _features(out: Any) -> Any:
    """transformers 5 returns a model output whose ``pooler_output`` is projected; 4.x a tensor."""
    return out if hasattr(out, "dim") else out.pooler_output


@hookimpl
def register_models(register: Any) -> None:
    """Register the transformers contrastive model type."""
    register(HfContrastive)
