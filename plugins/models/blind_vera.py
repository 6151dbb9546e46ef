"""Vera (Liu et al., 2023) commonsense plausibility as an image-blind caption score (SugarCrepe's Vera).

``params``:

* ``checkpoint``: a hub name (default ``liujch1998/vera``, a T5-v1.1-XXL encoder of about 4.9 B
  parameters) or a local folder written by ``save_pretrained`` holding a T5 encoder checkpoint
  and its tokenizer.
* ``precision``: ``fp32`` (default), ``bf16``, or ``fp16`` (CUDA only). SugarCrepe loaded the
  checkpoint with ``torch_dtype='auto'``, i.e. in its stored dtype; pick that one to reproduce it.
* ``max_length``: token limit of the tokenizer's truncation (default 128, as upstream).

Scoring (exactly as Vera's model card and SugarCrepe's ``text_model_eval.py``): the statement
through the checkpoint's T5 tokenizer (``</s>`` appended, truncated to ``max_length``), the T5
encoder, and the last token's hidden state ``h`` (the ``</s>``; with padded batches the last
attended position). The head is built from the input embedding matrix ``E`` (``shared``):
``logit = h . E[32099] + E[32098, 0]``, the temperature is ``t = E[32097, 0]``, and the score is
``sigmoid(logit / t)`` in [0, 1], all in the model's dtype. The score depends on the text only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from vlc_harness import hookimpl
from vlc_harness.models import Identity, TextOnlyModel
from vlc_harness.requires import BLIND_TRANSFORMERS
from vlc_harness_builtins.models.blind_hf import checkpoint_identity, load_checked, load_source, torch_dtype

DEFAULT_CHECKPOINT = "liujch1998/vera"


@dataclass(frozen=True)
class VeraParams:
    """Which Vera checkpoint, which precision, which truncation length."""

    checkpoint: str = DEFAULT_CHECKPOINT
    precision: Literal["fp32", "bf16", "fp16"] = "fp32"
    max_length: int = 128


class Vera(TextOnlyModel):
    """Image-blind: Vera's calibrated plausibility ``sigmoid((h . E[32099] + E[32098,0]) / E[32097,0])``."""

    type_name = "blind_vera"
    requires = BLIND_TRANSFORMERS
    Params = VeraParams
    weight_row: ClassVar[int] = 32099
    """Embedding row used as the linear head's weight vector."""
    bias_row: ClassVar[int] = 32098
    """Embedding row whose first entry is the head's bias."""
    temperature_row: ClassVar[int] = 32097
    """Embedding row whose first entry is the calibration temperature."""

    def identify(self) -> Identity:
        """The checkpoint's hub commit or folder digest; the protocol names the head rows."""
        self._weights = checkpoint_identity(self.params.checkpoint)
        protocol = (
            f"score_texts/vera/t5-encoder-last-token/head=E[{self.weight_row}],E[{self.bias_row},0]"
            f"/calibrated-sigmoid-t=E[{self.temperature_row},0]/max-len={self.params.max_length}"
        )
        return Identity(weights=self._weights, dtype=self.params.precision, protocol=protocol)

    def load(self, device: str) -> None:
        """Tokenizer and T5 encoder (at the identified commit); builds the head from the embeddings."""
        import torch
        from transformers import AutoTokenizer, T5EncoderModel

        source, pin = load_source(self.params.checkpoint, getattr(self, "_weights", None))
        dtype = torch_dtype(self.params.precision, device)
        self._tokenizer = AutoTokenizer.from_pretrained(source, **pin)
        self._model = load_checked(T5EncoderModel, source, dtype, device, **pin)
        embedding = self._model.shared.weight
        if embedding.shape[0] <= self.weight_row:
            raise ValueError(
                f"{self.params.checkpoint} has {embedding.shape[0]} embedding rows; "
                f"Vera's head needs row {self.weight_row}"
            )
        with torch.no_grad():
            self._head_weight = embedding[self.weight_row, :].detach().clone()
            self._head_bias = embedding[self.bias_row, 0].detach().clone()
            self._temperature = float(embedding[self.temperature_row, 0].item())
        self._device = device
        self._torch = torch

    def score_texts(self, texts: list[str]) -> list[float]:
        """Calibrated plausibility per text, from the last attended token's encoder state."""
        torch = self._torch
        batch = self._tokenizer(
            texts, padding="longest", truncation=True, max_length=self.params.max_length, return_tensors="pt"
        ).to(self._device)
        with torch.no_grad():
            hidden = self._model(input_ids=batch.input_ids, attention_mask=batch.attention_mask).last_hidden_state
            last = batch.attention_mask.sum(dim=1) - 1
            h = hidden[torch.arange(hidden.shape[0], device=hidden.device), last]
            logits = h @ self._head_weight + self._head_bias
            scores = torch.sigmoid(logits / self._temperature)
        return [float(s) for s in scores.float().cpu()]


@hookimpl
def register_models(register: Any) -> None:
    """Register the Vera plausibility scorer."""
    register(Vera)
