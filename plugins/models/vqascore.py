"""VQAScore: the probability that a vision-language model answers "Yes" to a question about the caption.

The question is ``question_template`` filled with the caption (t2v_metrics' default:
``Does this figure show "{}"? Please answer yes or no.``); the answer is ``answer`` (``Yes``).
``family`` picks the transformers class: ``llava`` (``LlavaForConditionalGeneration``),
``blip2`` / ``instructblip`` (``Blip2ForConditionalGeneration`` / ``InstructBlipForConditionalGeneration``,
OPT, Vicuna or Flan-T5 language models), ``image_text_to_text`` (``AutoModelForImageTextToText``,
Qwen2-VL style); ``auto`` reads the checkpoint's ``model_type``.

Two named scoring definitions (``scoring``):

* ``p_yes``: raw P(answer) over the full vocabulary at the answer position (for a multi-token
  answer, the product of its tokens' probabilities); no end-of-sequence token.
* ``t2v_metrics``: ``exp(-mean cross-entropy)`` over the answer's tokens plus the end-of-sequence
  token, as t2v_metrics scores CLIP-FlanT5 (about the geometric mean of P(Yes) and P(EOS | Yes)).

``prompt`` wraps the question: ``auto`` renders the processor's chat template with the image before
the question when the checkpoint has one, else the bare question (BLIP-2 and InstructBLIP put their
query tokens first anyway); any other value is a format string with ``{question}`` (and the
family's image placeholder, e.g. ``USER: <image>\\n{question} ASSISTANT:`` for LLaVA-1.5).

Reuse of work across the texts of an image, and the self-check, are the generative base's
(:mod:`vlc_harness_builtins.models.generative`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from vlc_harness import hookimpl
from vlc_harness.kit.precision import check_precision
from vlc_harness.kit.weights import checkpoint_config, checkpoint_identity, pinned_revision
from vlc_harness.models import Identity, PairGroup
from vlc_harness_builtins.models.generative import GenerativePairModel, Request, VlmScorer, answer_score, resolve_family

DEFAULT_QUESTION = 'Does this figure show "{}"? Please answer yes or no.'


@dataclass(frozen=True)
class VqaScoreParams:
    """Which checkpoint, which question, and how the answer's likelihood becomes a score."""

    checkpoint: str
    revision: str | None = None
    family: Literal["auto", "llava", "blip2", "instructblip", "image_text_to_text"] = "auto"
    question_template: str = DEFAULT_QUESTION
    answer: str = "Yes"
    scoring: Literal["p_yes", "t2v_metrics"] = "p_yes"
    prompt: str = "auto"
    precision: Literal["fp32", "fp16", "bf16"] = "fp32"


def checkpoint_family(checkpoint: str, family: str, identity: str) -> str:
    """The transformers family a checkpoint loads with (``auto`` reads its ``model_type``)."""
    return resolve_family(family, str(checkpoint_config(checkpoint, identity).get("model_type", "")))


def open_scorer(params: Any, device: str, identity: str | None) -> VlmScorer:
    """The scorer over ``params.checkpoint`` (fp32 weights unless ``params.precision`` says otherwise)."""
    check_precision(params.precision, device)
    identity = identity or checkpoint_identity(params.checkpoint, params.revision)
    family = checkpoint_family(params.checkpoint, params.family, identity)
    return VlmScorer(params.checkpoint, pinned_revision(identity), family, device, params.precision)


class VqaScore(GenerativePairModel):
    """VQAScore over transformers VLMs: P("Yes") to a yes/no question about the caption."""

    type_name = "vqascore"
    Params = VqaScoreParams

    def identify(self) -> Identity:
        """Resolved hub commit or local folder hash; the protocol names the scoring definition."""
        self._identity = checkpoint_identity(self.params.checkpoint, self.params.revision)
        family = checkpoint_family(self.params.checkpoint, self.params.family, self._identity)
        return Identity(self._identity, self.params.precision, f"score_pairs/vqascore/{self.params.scoring}/{family}")

    def load(self, device: str) -> None:
        """The model (fp32 weights), its processor, and the answer's tokens."""
        self._scorer = open_scorer(self.params, device, getattr(self, "_identity", None))
        self._answer = self._scorer.answer_ids(self.params.answer, eos=self.params.scoring == "t2v_metrics")

    def _requests(self, groups: list[PairGroup]) -> list[Request]:
        render = self._scorer.render
        return [
            Request(g, render(self.params.question_template.format(text), self.params.prompt), self._answer)
            for g, group in enumerate(groups)
            for text in group.texts
        ]

    def _score(self, requests: Sequence[Request], logprobs: Sequence[Sequence[float]]) -> list[float]:
        n_core = len(self._answer) - (self.params.scoring == "t2v_metrics")
        return [answer_score(lp, self.params.scoring, n_core) for lp in logprobs]

    @classmethod
    def conformance_example(cls, tmp_path: Any) -> dict[str, Any]:
        """A tiny LLaVA with random weights, saved locally."""
        from vlc_harness_builtins.models.tiny_generative import save_tiny_llava

        return {"checkpoint": str(save_tiny_llava(tmp_path / "tiny_llava"))}


@hookimpl
def register_models(register: Any) -> None:
    """Register the VQAScore model type."""
    register(VqaScore)
