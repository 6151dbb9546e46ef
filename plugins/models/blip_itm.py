"""BLIP image-text matching through transformers (``BlipForImageTextRetrieval``).

Three named protocols, one per registry entry:

* ``itm``: P(match), the softmax of the ITM head's two logits (the cross-attention text encoder
  over the image's patch features).
* ``itc``: cosine of the projected, L2-normalised [CLS] features of the image and of the
  unimodal text encoder (the contrastive head).
* ``aro``: ITM match logit plus ITC cosine, as ARO's BLIP wrapper scores VG-Relation,
  VG-Attribution and the Order tasks (mertyg/vision-language-models-are-bows @81fdd20,
  ``model_zoo/blip_models.py`` ``run_scores_batched``), with its ITM input: the caption's first token
  replaced by BLIP's ``[ENC]`` (line 245 there), as BLIP's retrieval training fed the ITM head
  (salesforce/BLIP @056a169 ``models/blip_retrieval.py``); the ITC input keeps ``[CLS]``.

``checkpoint`` is a hub repo id (``Salesforce/blip-itm-base-coco``, ``-large-coco``,
``-base-flickr``, ``-large-flickr``) or a local folder written by ``save_pretrained``. Captions are
tokenized as transformers does and truncated to ``max_text_tokens`` (35 in BLIP's retrieval
configs); ``itm`` and ``itc`` keep ``[CLS]`` first, as BLIP's own ``models/blip_itm.py`` and
transformers' ``BlipForImageTextRetrieval`` feed both heads. Pairs come
grouped by image: the vision tower runs once per image and its features serve all its texts.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from vlc_harness import hookimpl
from vlc_harness.kit.precision import autocast, check_precision
from vlc_harness.kit.weights import checkpoint_identity, pinned_revision
from vlc_harness.models import Identity, PairGroup, PairScoringModel
from vlc_harness.requires import TRANSFORMERS
from vlc_harness_builtins.models.t2v_metrics_inputs import pil_image_processor


@dataclass(frozen=True)
class BlipItmParams:
    """Which checkpoint and which head(s) make the score."""

    checkpoint: str = "Salesforce/blip-itm-base-coco"
    revision: str | None = None
    protocol: Literal["itm", "itc", "aro"] = "itm"
    max_text_tokens: int = 35
    precision: Literal["fp32", "fp16", "bf16"] = "fp32"


class BlipItm(PairScoringModel):
    """BLIP retrieval model scored by its ITM head, its ITC head, or ARO's sum of both."""

    type_name = "blip_itm"
    scoring_version = "2"  # 2: the PIL image processor (BLIP and ARO resize PIL images), not torchvision's
    requires = TRANSFORMERS
    Params = BlipItmParams

    def identify(self) -> Identity:
        """Resolved hub commit or local folder hash; the protocol is the head combination."""
        self._identity = checkpoint_identity(self.params.checkpoint, self.params.revision)
        protocol = {"itm": "itm-softmax", "itc": "itc-cosine", "aro": "itm-logit+itc-cosine"}[self.params.protocol]
        first = "enc-first-itm" if self.params.protocol == "aro" else "cls-first"
        return Identity(self._identity, self.params.precision, f"score_pairs/{protocol}/{first}")

    def load(self, device: str) -> None:
        """Model (fp32 weights), tokenizer and image processor of the pinned revision; the processor's PIL
        backend, as BLIP's ``transforms.Resize((384, 384), BICUBIC)`` resizes a PIL image (salesforce/BLIP
        ``data/__init__.py``; ARO ``model_zoo/__init__.py``), where transformers 5 defaults to torchvision."""
        import torch
        from transformers import AutoTokenizer, BlipForImageTextRetrieval

        check_precision(self.params.precision, device)
        identity = getattr(self, "_identity", None) or checkpoint_identity(self.params.checkpoint, self.params.revision)
        revision = pinned_revision(identity) or "main"  # None: a local folder, where no revision is read
        model = BlipForImageTextRetrieval.from_pretrained(self.params.checkpoint, revision=revision)
        self._model = model.to(device).eval()
        self._tokenizer = AutoTokenizer.from_pretrained(self.params.checkpoint, revision=revision)
        self._processor = pil_image_processor(self.params.checkpoint, revision)
        self._enc = enc_token_id(self._tokenizer, model.config.text_config) if self.params.protocol == "aro" else None
        self._device = device
        self._torch = torch

    def preprocess(self, image: Any) -> Any:
        """The checkpoint's image processor for one image."""
        return self._processor(images=image, return_tensors="pt")["pixel_values"][0]

    def score_pairs(self, groups: list[PairGroup]) -> list[list[float]]:
        """Vision tower once per image; every text of the batch through the heads in one pass."""
        torch = self._torch
        model = self._model
        owner = [g for g, group in enumerate(groups) for _ in group.texts]
        texts = [t for group in groups for t in group.texts]
        tokens = self._tokenizer(
            texts, padding=True, truncation=True, max_length=self.params.max_text_tokens, return_tensors="pt"
        ).to(self._device)
        with torch.no_grad(), autocast(self.params.precision):
            pixels = torch.stack([g.image for g in groups]).to(self._device)
            patches = model.vision_model(pixel_values=pixels).last_hidden_state
            index = torch.tensor(owner, device=self._device)
            scores = torch.zeros(len(texts), device=self._device)
            if self.params.protocol in ("itm", "aro"):
                per_text = patches[index]
                itm_ids = tokens["input_ids"]
                if self._enc is not None:
                    itm_ids = itm_ids.clone()
                    itm_ids[:, 0] = self._enc
                hidden = model.text_encoder(
                    input_ids=itm_ids,
                    attention_mask=tokens["attention_mask"],
                    encoder_hidden_states=per_text,
                    encoder_attention_mask=torch.ones(per_text.shape[:-1], dtype=torch.long, device=self._device),
                ).last_hidden_state
                logits = model.itm_head(hidden[:, 0, :]).float()
                scores = logits.softmax(dim=-1)[:, 1] if self.params.protocol == "itm" else logits[:, 1]
            if self.params.protocol in ("itc", "aro"):
                text_cls = model.text_encoder(
                    input_ids=tokens["input_ids"], attention_mask=tokens["attention_mask"]
                ).last_hidden_state[:, 0, :]
                image_feat = torch.nn.functional.normalize(model.vision_proj(patches[:, 0, :]).float(), dim=-1)
                text_feat = torch.nn.functional.normalize(model.text_proj(text_cls).float(), dim=-1)
                scores = scores + (image_feat[index] * text_feat).sum(dim=-1)
        flat = scores.double().cpu().tolist()
        out, start = [], 0
        for group in groups:
            out.append(flat[start : start + len(group.texts)])
            start += len(group.texts)
        return out


def enc_token_id(tokenizer: Any, text_config: Any) -> int:
    """BLIP's ``[ENC]`` id: the tokenizer's own, or, where the saved tokenizer lacks it, the id BLIP
    gives it: bert-base-uncased's vocabulary plus ``[DEC]`` (the ``bos_token_id``), then ``[ENC]``
    (salesforce/BLIP @056a169, ``models/blip.py`` lines 188-190), so a vocabulary of ``bos + 2``."""
    vocab = tokenizer.get_vocab()
    if "[ENC]" in vocab:
        return int(vocab["[ENC]"])
    bos = getattr(text_config, "bos_token_id", None)
    if bos is not None and int(text_config.vocab_size) == int(bos) + 2:
        return int(bos) + 1
    raise ValueError(
        "protocol aro needs BLIP's [ENC] token: the tokenizer does not name it and the text vocabulary "
        f"({text_config.vocab_size}) is not BLIP's bert-base-uncased + [DEC] + [ENC] layout"
    )


@hookimpl
def register_models(register: Any) -> None:
    """Register the BLIP image-text matching model type."""
    register(BlipItm)
