"""Any Hugging Face sequence classifier as an image-blind acceptability scorer (SugarCrepe's Grammar).

``params``:

* ``checkpoint``: a hub name (default ``textattack/distilbert-base-uncased-CoLA``, the CoLA
  classifier SugarCrepe used) or a local folder written by ``save_pretrained`` (a path that is
  absolute, starts with ``./``, ``../`` or ``~``, or exists as a folder).
* ``label_index``: the output class whose probability is the score (default 1: CoLA's
  ``LABEL_1``, "acceptable").
* ``precision``: ``fp32`` (default), ``bf16``, or ``fp16`` (CUDA only).
* ``max_length``: captions longer than this many tokens are truncated (the default 512 is
  DistilBERT's limit; captions are far shorter).

Scoring: the raw caption through the checkpoint's own tokenizer (with its special tokens), the
classifier's logits, and ``softmax(logits)[label_index]`` in float32, as the ``text-classification``
pipeline computes it. SugarCrepe's ``text_model_eval.py`` takes the pipeline's top label and uses
``score`` if it is ``LABEL_1`` else ``1 - score``: for two classes that is the same P(LABEL_1).
The score depends on the text only, so every image gets the same score and text-to-image choices
tie (and ties are wrong).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from vlc_harness import hookimpl
from vlc_harness.models import Identity, TextOnlyModel
from vlc_harness.requires import BLIND_TRANSFORMERS
from vlc_harness_builtins.models.blind_hf import checkpoint_identity, load_checked, load_source, torch_dtype

DEFAULT_CHECKPOINT = "textattack/distilbert-base-uncased-CoLA"


@dataclass(frozen=True)
class ClassifierParams:
    """Which classifier, which class counts as acceptable, which precision."""

    checkpoint: str = DEFAULT_CHECKPOINT
    label_index: int = 1
    precision: Literal["fp32", "bf16", "fp16"] = "fp32"
    max_length: int = 512


class SequenceClassifierScorer(TextOnlyModel):
    """Image-blind: score = P(class ``label_index``) of a HF sequence classifier (CoLA grammar)."""

    type_name = "blind_classifier"
    requires = BLIND_TRANSFORMERS
    Params = ClassifierParams

    def identify(self) -> Identity:
        """The checkpoint's hub commit or folder digest; protocol names the class index."""
        self._weights = checkpoint_identity(self.params.checkpoint)
        protocol = f"score_texts/seq-classifier/softmax-p[{self.params.label_index}]/max-len={self.params.max_length}"
        return Identity(weights=self._weights, dtype=self.params.precision, protocol=protocol)

    def load(self, device: str) -> None:
        """Tokenizer and classifier (at the identified commit); checks the label index exists."""
        import torch
        from transformers import AutoModelForSequenceClassification, AutoTokenizer

        source, pin = load_source(self.params.checkpoint, getattr(self, "_weights", None))
        dtype = torch_dtype(self.params.precision, device)
        self._tokenizer = AutoTokenizer.from_pretrained(source, **pin)
        self._model = load_checked(AutoModelForSequenceClassification, source, dtype, device, **pin)
        n_labels = int(self._model.config.num_labels)
        if not 0 <= self.params.label_index < n_labels:
            raise ValueError(f"label_index {self.params.label_index} is out of range: the classifier has {n_labels}")
        self._device = device
        self._torch = torch

    def score_texts(self, texts: list[str]) -> list[float]:
        """P(label_index) per text (float32 softmax over the classifier's logits)."""
        import numpy as np

        batch = self._tokenizer(
            texts, padding=True, truncation=True, max_length=self.params.max_length, return_tensors="pt"
        ).to(self._device)
        with self._torch.no_grad():
            logits = self._model(**batch).logits.float().cpu().numpy()
        shifted = np.exp(logits - logits.max(axis=-1, keepdims=True))
        probs = shifted / shifted.sum(axis=-1, keepdims=True)
        return [float(p) for p in probs[:, self.params.label_index]]


@hookimpl
def register_models(register: Any) -> None:
    """Register the sequence-classifier acceptability scorer."""
    register(SequenceClassifierScorer)
