"""Caption log-likelihood under a causal language model, as an image-blind score.

``params``:

* ``checkpoint``: a hub name (default ``openai-community/gpt2``) or a local folder written by
  ``save_pretrained`` (a causal LM and its tokenizer).
* ``reduction``: the named protocol. ``sum``: the caption's total log-probability, ``sum_k log
  p(x_k | x_<k)`` in nats (favours short captions). ``mean``: that sum divided by the number of
  scored tokens (per-token mean log-probability, length-normalised).
* ``prepend_bos``: BOS handling. The caption is tokenised WITHOUT the tokenizer's own special
  tokens (so a tokenizer that adds BOS itself never doubles it), then, with ``prepend_bos: true``
  (default), the tokenizer's BOS token, or its EOS token where it has no BOS (GPT-2's
  ``<|endoftext|>`` is both), is put in front and EVERY caption token is scored. A tokenizer with
  neither is refused. With ``prepend_bos: false`` nothing is added and the first caption token is
  context only (not scored); a one-token caption then scores 0.0. No end-of-sequence token is
  appended or scored.
* ``precision``: ``fp32`` (default), ``bf16``, or ``fp16`` (CUDA only); log-softmax is in float32.
* ``max_length``: caption tokens beyond this many (BOS included) are cut off before scoring.

Batches are right-padded with an attention mask, which leaves every scored position's logits as
in the unpadded caption (causal attention).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from vlc_harness import hookimpl
from vlc_harness.models import Identity, TextOnlyModel
from vlc_harness.requires import BLIND_TRANSFORMERS
from vlc_harness_builtins.models.blind_hf import checkpoint_identity, load_checked, load_source, torch_dtype

DEFAULT_CHECKPOINT = "openai-community/gpt2"


@dataclass(frozen=True)
class CausalLMParams:
    """Which language model, which reduction (sum or mean), BOS handling, precision."""

    checkpoint: str = DEFAULT_CHECKPOINT
    reduction: Literal["sum", "mean"] = "sum"
    prepend_bos: bool = True
    precision: Literal["fp32", "bf16", "fp16"] = "fp32"
    max_length: int = 512


class CausalLMLogLikelihood(TextOnlyModel):
    """Image-blind: a caption's log-likelihood under a causal LM (``sum`` or per-token ``mean``)."""

    type_name = "blind_causal_lm"
    requires = BLIND_TRANSFORMERS
    Params = CausalLMParams

    def identify(self) -> Identity:
        """The checkpoint's hub commit or folder digest; the protocol names reduction and BOS rule."""
        self._weights = checkpoint_identity(self.params.checkpoint)
        bos = "prepend-bos-or-eos" if self.params.prepend_bos else "no-bos-first-token-unscored"
        protocol = (
            f"score_texts/causal-lm-logprob/{self.params.reduction}/{bos}/no-special-tokens/"
            f"max-len={self.params.max_length}"
        )
        return Identity(weights=self._weights, dtype=self.params.precision, protocol=protocol)

    def load(self, device: str) -> None:
        """Tokenizer and causal LM (at the identified commit); resolves the start token."""
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        source, pin = load_source(self.params.checkpoint, getattr(self, "_weights", None))
        dtype = torch_dtype(self.params.precision, device)
        self._tokenizer = AutoTokenizer.from_pretrained(source, **pin)
        self._model = load_checked(AutoModelForCausalLM, source, dtype, device, **pin)
        self._start: int | None = None
        if self.params.prepend_bos:
            tok = self._tokenizer
            start = tok.bos_token_id if tok.bos_token_id is not None else tok.eos_token_id
            if start is None:
                raise ValueError(
                    f"{self.params.checkpoint}'s tokenizer has neither a BOS nor an EOS token; use prepend_bos: false"
                )
            self._start = int(start)
        self._device = device
        self._torch = torch

    def token_ids(self, text: str) -> list[int]:
        """The ids the model sees for a caption: [start token] + caption tokens, cut to max_length."""
        ids = list(self._tokenizer(text, add_special_tokens=False)["input_ids"])
        if self._start is not None:
            ids = [self._start, *ids]
        return ids[: self.params.max_length]

    def score_texts(self, texts: list[str]) -> list[float]:
        """Sum or mean log-probability (nats) of each caption's scored tokens."""
        torch = self._torch
        rows = [self.token_ids(t) for t in texts]
        width = max([1, *(len(r) for r in rows)])
        ids = torch.zeros((len(rows), width), dtype=torch.long)
        mask = torch.zeros((len(rows), width), dtype=torch.long)
        for k, r in enumerate(rows):
            ids[k, : len(r)] = torch.tensor(r, dtype=torch.long)
            mask[k, : len(r)] = 1
        ids, mask = ids.to(self._device), mask.to(self._device)
        with torch.no_grad():
            logits = self._model(input_ids=ids, attention_mask=mask).logits.float()
            logprobs = torch.log_softmax(logits[:, :-1], dim=-1)
            target = logprobs.gather(-1, ids[:, 1:, None]).squeeze(-1)
            scored = mask[:, 1:].to(target.dtype)
            total = (target * scored).sum(dim=1)
            count = scored.sum(dim=1)
        out = []
        for s, n in zip(total.double().cpu().tolist(), count.cpu().tolist()):
            if self.params.reduction == "mean":
                out.append(s / n if n > 0 else 0.0)
            else:
                out.append(s)
        return out


@hookimpl
def register_models(register: Any) -> None:
    """Register the causal-LM log-likelihood scorer."""
    register(CausalLMLogLikelihood)
