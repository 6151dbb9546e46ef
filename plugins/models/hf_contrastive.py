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
* ``text_padding``: ``max_length`` pads every caption to the text tower's length; ``longest`` pads
  to the batch's longest caption (exact for CLIP's causal tower with end-of-text pooling); ``auto``
  picks ``max_length`` for SigLIP and SigLIP 2 and ``longest`` otherwise.
* ``precision``: ``fp32`` (the only choice on CPU), or ``fp16``/``bf16`` autocast on CUDA.
* ``pipeline``: ``processor`` (default): images through the checkpoint's own image processor,
  captions through its tokenizer as they are; ``open_clip`` (CLIP only, the protocol says so):
  open_clip's preprocessing of the same sizes, for an entry whose ``paper_match`` is an open_clip
  pipeline (``hf-openai-clip-vit-base-patch32``: SugarCrepe's ``main_eval.py``). ``CLIPImageProcessor``
  crops at floor((h - 224) / 2) where torchvision's ``CenterCrop`` rounds, resizes with its
  torchvision backend (up to 2/255 a pixel from PIL's), and its tokenizer skips open_clip's ftfy fix
  and ``html.unescape``: on tiny random weights the two pipelines differ by up to 1.2e-2 in cosine
  (0.10 with curly quotes and ``&amp;`` in the captions), no verdict of 300 flipped.

Captions are scored without a template.

What each text tower is fed:

* CLIP (and any other non-SigLIP model): the tokenizer's ``input_ids`` and ``attention_mask`` as it
  returns them, as ``CLIPProcessor(text=..., padding=True)`` feeds ``CLIPModel`` (transformers'
  documented usage); the causal tower pools at the first end-of-text token, so the padding after it
  changes nothing.
* SigLIP and SigLIP 2 (``model_type`` ``siglip`` or ``siglip2``): ``input_ids`` only, padded on the
  right to the tower's ``max_position_embeddings`` (64 for the published checkpoints), truncated
  there. Both were trained that way in big_vision: the bidirectional tower attends to the padding
  and pools at the last position. This is what transformers' converters set for the published
  tokenizers (``convert_siglip_to_hf.py``: ``SiglipTokenizer(..., model_input_names=["input_ids"])``;
  ``convert_siglip2_to_hf.py`` ``get_siglip2_tokenizer``: ``padding_side="right"``,
  ``model_input_names=["input_ids"]``, "the original one doesn't require it"; huggingface/transformers
  at 0c85c9ae42dc3e4ab1d194f9d5b4f02963cf983b, lines 80-91) and what the model cards call
  (``processor(text=..., padding="max_length", max_length=64)``). The plugin asks for right
  padding and no mask itself, so a tokenizer saved with other defaults (``Siglip2Tokenizer`` and
  ``GemmaTokenizer`` pad on the left and return a mask) cannot change the scores.
* Text normalization: a ``SiglipTokenizer`` (SigLIP) canonicalizes each caption itself (lower-case
  when ``do_lower_case``, punctuation removed, whitespace collapsed: its ``canonicalize_text``, after
  big_vision's ``prompt_engineering.py``). Any other tokenizer of a SigLIP-family checkpoint is
  SigLIP 2's Gemma tokenizer, and captions are lower-cased first (``str.lower``), as SigLIP 2 was
  trained (transformers' SigLIP 2 docs; its ``Siglip2Tokenizer`` lower-cases, ``GemmaTokenizer``,
  which fixed-resolution SigLIP 2 checkpoints name, does not).

SigLIP 2 NaFlex checkpoints (``model_type: siglip2``, transformers >= 4.50) keep each image's
aspect ratio: their processor returns patches, a patch mask and the patch grid's shape, which are
passed on as they are. (Fixed-resolution SigLIP 2 checkpoints are ``SiglipModel`` checkpoints.)
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from vlc_harness import hookimpl
from vlc_harness.errors import Unavailable
from vlc_harness.kit.precision import autocast, check_precision
from vlc_harness.kit.weights import checkpoint_config, checkpoint_identity, pinned_revision
from vlc_harness.models import EmbeddingModel, Identity
from vlc_harness.requires import TRANSFORMERS
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
    pipeline: Literal["processor", "open_clip"] = "processor"
    """``processor``: the checkpoint's image processor and tokenizer, as ``CLIPProcessor`` feeds the model;
    ``open_clip`` (CLIP only): open_clip's own preprocessing of the same sizes, for an entry whose
    ``paper_match`` names an open_clip pipeline (:func:`open_clip_image_transform`, :func:`open_clip_clean`)."""


class HfContrastive(EmbeddingModel):
    """A transformers dual encoder scored by cosine similarity or SigLIP's logit."""

    type_name = "hf_contrastive"
    requires = TRANSFORMERS
    Params = HfContrastiveParams

    def identify(self) -> Identity:
        """Resolved hub commit or local folder hash; the protocol names similarity and padding."""
        self._identity = checkpoint_identity(self.params.checkpoint, self.params.revision)
        model_type = self._model_type()
        require_transformers_model(model_type)
        similarity, padding = self._protocol(model_type)
        if model_type in SIGLIP_TYPES:  # right padding, no mask, the family's text normalization
            text = f"pad-{padding}-right/input-ids-only/siglip-text"
        else:
            text = f"pad-{padding}/raw-caption"
        if self.params.pipeline == "open_clip":
            if model_type in SIGLIP_TYPES:
                raise ValueError("pipeline open_clip is open_clip's CLIP preprocessing, not a SigLIP checkpoint's")
            text = f"pad-{padding}/open_clip-clean/open_clip-image-transform"
        return Identity(self._identity, self.params.precision, f"embed/{similarity}/{text}")

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
        model_type = self._model.config.model_type
        self._similarity, self._padding = self._protocol(model_type)
        self._siglip = model_type in SIGLIP_TYPES
        self._naflex = model_type == "siglip2"
        # SiglipTokenizer canonicalizes captions itself; SigLIP 2's Gemma tokenizers may not lower-case
        self._lowercase = self._siglip and not hasattr(self._tokenizer, "canonicalize_text")
        self._text_length = self._tower_length()
        if self._similarity == "siglip_logit":
            self._scale = float(self._model.logit_scale.detach().exp())
            self._bias = float(self._model.logit_bias.detach())
        self._device = device
        self._torch = torch
        self._open_clip = None
        if self.params.pipeline == "open_clip":
            if importlib.util.find_spec("ftfy") is None or importlib.util.find_spec("torchvision") is None:
                raise Unavailable("pipeline open_clip needs ftfy and torchvision: pip install 'vlc-harness[openclip]'")
            self._open_clip = open_clip_image_transform(self._processor)

    def preprocess(self, image: Any) -> Any:
        """The checkpoint's image processor (resize, crop, normalise) for one image; for SigLIP 2
        NaFlex, its patches, patch mask and patch-grid shape; with ``pipeline: open_clip``, open_clip's."""
        if self._open_clip is not None:
            return self._open_clip(image)
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

    def _tower_length(self) -> int:
        """SigLIP: the text tower's positions (it pools at the last one). Others: the tokenizer's
        maximum, at most the tower's positions (SigLIP 2's Gemma tokenizer claims more) and 512."""
        positions = getattr(getattr(self._model.config, "text_config", None), "max_position_embeddings", None)
        if self._siglip:
            if positions is None:
                raise ValueError(f"{self.params.checkpoint}: its text config names no max_position_embeddings")
            return int(positions)
        limit = min(int(getattr(self._tokenizer, "model_max_length", 77) or 77), 512)
        return min(limit, int(positions)) if positions else limit

    def _text_inputs(self, texts: list[str]) -> dict[str, Any]:
        """SigLIP: input ids only, right-padded, after the family's normalization; others: what the
        tokenizer returns (ids and mask)."""
        padding: Any = "max_length" if self._padding == "max_length" else True
        common = {"padding": padding, "truncation": True, "max_length": self._text_length, "return_tensors": "pt"}
        if not self._siglip:
            captions = [open_clip_clean(t) for t in texts] if self._open_clip is not None else list(texts)
            encoded = self._tokenizer(captions, **common)
            return {k: v for k, v in encoded.items() if k in ("input_ids", "attention_mask")}
        captions = [t.lower() for t in texts] if self._lowercase else list(texts)
        encoded = self._tokenizer(captions, padding_side="right", return_attention_mask=False, **common)
        return {"input_ids": encoded["input_ids"]}

    def embed_texts(self, texts: list[str]) -> np.ndarray:
        """Text features of the captions, fed as the family's official pipeline feeds them."""
        torch = self._torch
        inputs = {k: v.to(self._device) for k, v in self._text_inputs(texts).items()}
        with torch.no_grad(), autocast(self.params.precision):
            return _features(self._model.get_text_features(**inputs)).float().cpu().numpy()

    def pair_scores(self, image_vecs: np.ndarray, text_vecs: np.ndarray) -> np.ndarray:
        """Cosine, or SigLIP's pre-sigmoid logit ``exp(logit_scale) * cos + logit_bias``."""
        cosine = super().pair_scores(image_vecs, text_vecs)
        if self._similarity == "siglip_logit":
            return cosine * self._scale + self._bias
        return cosine


def open_clip_image_transform(processor: Any) -> Any:
    """open_clip's inference transform (``open_clip/transform.py`` ``image_transform``, resize mode
    ``shortest``: lines 422-439 of open-clip-torch 3.3.0) at the processor's sizes: torchvision's
    ``Resize(short side, BICUBIC)`` and ``CenterCrop`` on the PIL image (PIL resampling; the crop offset
    rounded, where ``CLIPImageProcessor`` floors it), ``ToTensor``, ``Normalize``."""
    from torchvision import transforms  # type: ignore[import-untyped]

    short = int(processor.size["shortest_edge"])
    crop = (int(processor.crop_size["height"]), int(processor.crop_size["width"]))
    return transforms.Compose(
        [
            transforms.Resize(short, interpolation=transforms.InterpolationMode.BICUBIC),
            transforms.CenterCrop(crop),
            transforms.ToTensor(),
            transforms.Normalize(list(processor.image_mean), list(processor.image_std)),
        ]
    )


def open_clip_clean(text: str) -> str:
    """open_clip's tokenizer clean (``tokenizer.py:66-85``, ``_clean_lower``): ftfy's ``fix_text``,
    ``html.unescape`` twice, whitespace collapsed, lower-cased; transformers' ``CLIPTokenizer`` does
    neither the ftfy fix nor the unescape."""
    import html

    import ftfy

    text = html.unescape(html.unescape(ftfy.fix_text(text))).strip()
    return " ".join(text.split()).lower()


def _features(out: Any) -> Any:
    """transformers 5 returns a model output whose ``pooler_output`` is projected; 4.x a tensor."""
    return out if hasattr(out, "dim") else out.pooler_output


@hookimpl
def register_models(register: Any) -> None:
    """Register the transformers contrastive model type."""
    register(HfContrastive)
