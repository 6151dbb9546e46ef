"""Shared plumbing of the generative scorers (VQAScore, captioning likelihood, CLIP-FlanT5): a
transformers VLM's per-token answer log-probabilities, computed once per image group.

No hooks: a helper module the generative model plugins import. The scorer is
:mod:`.generative_scorer` (its forward passes :mod:`.generative_forward`).

Reuse (run option ``reuse``, never a score change): pairs come grouped by image. ``vision`` computes
each image's vision features once and reuses them for all its texts; ``prefix`` (default) also
reuses, in decoder-only models, the key/value cache of the token prefix the texts share (the image
tokens and the question up to the caption), so each text only runs its own suffix; ``none`` is
per-pair scoring (the baseline of ``bench/generative_reuse.py``). Encoder-decoder language models
(T5) see the caption in a bidirectional encoder, so only the vision features are shared; InstructBLIP's
Q-Former reads the question, so its query tokens (and any prefix after them) depend on the text.
On the first batch the scores of one image are checked once against the model's own forward pass
over the processor's inputs (run option ``self_check``); a mismatch raises instead of scoring.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from vlc_harness.models import PairGroup, PairScoringModel, RunOptions
from vlc_harness.requires import TRANSFORMERS
from vlc_harness_builtins.models.generative_scorer import Request, VlmScorer

__all__ = [
    "GenerativePairModel",
    "GenerativeRun",
    "Request",
    "VlmScorer",
    "answer_score",
    "resolve_family",
]

FAMILY_OF_MODEL_TYPE = {"llava": "llava", "blip-2": "blip2", "instructblip": "instructblip"}
PREFIX_LM_TYPES = ("paligemma", "gemma3")  # bidirectional attention over the image needs token types
Reuse = Literal["prefix", "vision", "none"]


@dataclass(frozen=True)
class GenerativeRun(RunOptions):
    """Run options of the generative scorers (none of them changes a score)."""

    reuse: Reuse = "prefix"
    """``prefix``: vision features and the shared key/value prefix once per image; ``vision``: vision
    features once per image; ``none``: every pair from scratch (per-pair baseline)."""
    self_check: bool = True
    """Compare one image's scores with the model's own forward pass before scoring the first batch."""


OWN_SCORERS = {"qwen3_vl": "vqascore_qwen_vl"}
"""Model types with a scorer of their own (a plugin file beside this one)."""


def resolve_family(family: str, model_type: str) -> str:
    """The family of a checkpoint (``auto`` reads its ``model_type``); prefix-LM models are refused."""
    if model_type in PREFIX_LM_TYPES:
        raise ValueError(f"{model_type} attends bidirectionally over its image prefix; it is not supported here")
    if model_type in OWN_SCORERS:  # the generic path would drop what these feed the decoder (Qwen3-VL's DeepStack)
        raise ValueError(f"{model_type} checkpoints need the {OWN_SCORERS[model_type]} model type, not vqascore")
    if family != "auto":
        return family
    return FAMILY_OF_MODEL_TYPE.get(model_type, "image_text_to_text")


def answer_score(logprobs: Sequence[float], scoring: str, n_core: int) -> float:
    """``p_yes``: exp of the summed log-probabilities of the answer's own tokens (no EOS);
    ``t2v_metrics``: exp of the mean log-probability over the answer's tokens and EOS."""
    import math

    if scoring == "p_yes":
        return math.exp(sum(logprobs[:n_core]))
    return math.exp(sum(logprobs) / len(logprobs))


class GenerativePairModel(PairScoringModel):
    """Shared plumbing of the generative pair scorers: loading, preprocessing, grouping, self-check."""

    requires = TRANSFORMERS

    Run = GenerativeRun
    run: GenerativeRun
    _scorer: VlmScorer
    """Built by the subclass's :meth:`load`."""

    def _requests(self, groups: list[PairGroup]) -> list[Request]:
        raise NotImplementedError

    def _score(self, requests: Sequence[Request], logprobs: Sequence[Sequence[float]]) -> list[float]:
        raise NotImplementedError

    def preprocess(self, image: Any) -> Any:
        """The scorer's image tensors for one image."""
        return self._scorer.preprocess(image)

    def score_pairs(self, groups: list[PairGroup]) -> list[list[float]]:
        """Score every text of every group, sharing the work of an image as ``run.reuse`` says."""
        import math

        requests = self._requests(groups)
        images = [g.image for g in groups]
        logprobs = self._scorer.token_logprobs(images, requests, self.run.reuse)
        if self.run.self_check and not getattr(self, "_checked", False):
            mine = [k for k, r in enumerate(requests) if r.group == 0]
            self._scorer.self_check(images[0], [requests[k] for k in mine], [logprobs[k] for k in mine])
            self._checked = True
        flat = self._score(requests, logprobs)
        if not all(math.isfinite(s) for s in flat):
            raise ValueError("a generative score is not finite")
        out, start = [], 0
        for group in groups:
            out.append(flat[start : start + len(group.texts)])
            start += len(group.texts)
        return out
