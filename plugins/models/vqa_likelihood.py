"""Answer questions by likelihood: the option a transformers VLM finds likeliest after the question.

For ``vqa`` questions (NaturalBench), with the checkpoints and families of ``vqascore``: each
option's log P(option tokens | image, question) is summed over its tokens (no end-of-sequence
token, as ``vqascore``'s ``p_yes``), and the likeliest option is the answer. Two options exactly
as likely (a tie) give no answer, which counts wrong. The question is rendered as VQAScore renders
its own (``prompt``: the checkpoint's chat template with the image first, or a format string).
Checkpoints of the families with a scorer of their own (Qwen2.5-VL and Qwen3-VL, InternVL3,
LLaVA-OneVision: the ``vqascore_*`` types) load with that scorer when ``family`` is ``auto``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from vlc_harness import hookimpl
from vlc_harness.kit.precision import check_precision
from vlc_harness.kit.weights import checkpoint_config, checkpoint_identity, pinned_revision
from vlc_harness.models import ChoiceAnswer, ChoiceModel, ChoiceQuestion, Identity
from vlc_harness.requires import TRANSFORMERS
from vlc_harness_builtins.models.generative import GenerativeRun, Request, VlmScorer
from vlc_harness_builtins.models.versions import require_transformers_model
from vlc_harness_builtins.models.vqascore import checkpoint_family, open_scorer


@dataclass(frozen=True)
class VqaLikelihoodParams:
    """Which checkpoint, its family, the prompt and the compute precision."""

    checkpoint: str
    revision: str | None = None
    family: Literal["auto", "llava", "blip2", "instructblip", "image_text_to_text"] = "auto"
    prompt: str = "auto"
    precision: Literal["fp32", "fp16", "bf16"] = "fp32"


class VqaLikelihood(ChoiceModel):
    """Answers ``vqa`` questions with the likeliest option under a transformers VLM."""

    type_name = "vqa_likelihood"
    requires = TRANSFORMERS
    question_kinds = ("vqa",)
    Params = VqaLikelihoodParams
    Run = GenerativeRun
    run: GenerativeRun

    def identify(self) -> Identity:
        """Resolved hub commit or local folder hash; the protocol names the family (or model type)."""
        self._identity = checkpoint_identity(self.params.checkpoint, self.params.revision)
        model_type = self._own_scorer(self._identity)[0]
        family = model_type or checkpoint_family(self.params.checkpoint, self.params.family, self._identity)
        return Identity(self._identity, self.params.precision, f"choose/vqa-likelihood/{family}")

    def load(self, device: str) -> None:
        """The model and its processor (through its family's own scorer where it has one)."""
        identity = getattr(self, "_identity", None) or checkpoint_identity(self.params.checkpoint, self.params.revision)
        model_type, scorer = self._own_scorer(identity)
        if scorer is None:
            self._scorer = open_scorer(self.params, device, identity)
            return
        check_precision(self.params.precision, device)
        require_transformers_model(model_type)
        revision = pinned_revision(identity)
        self._scorer = scorer(self.params.checkpoint, revision, "image_text_to_text", device, self.params.precision)

    def _own_scorer(self, identity: str) -> tuple[str, type[VlmScorer] | None]:
        """``(model_type, scorer class)`` for a family with a scorer of its own, else ``("", None)``."""
        if self.params.family != "auto":
            return "", None
        model_type = str(checkpoint_config(self.params.checkpoint, identity).get("model_type", ""))
        scorer = family_scorers().get(model_type)
        return (model_type, scorer) if scorer is not None else ("", None)

    def preprocess(self, image: Any) -> Any:
        """The scorer's image tensors for one image."""
        return self._scorer.preprocess(image)

    def choose(self, questions: list[ChoiceQuestion]) -> list[ChoiceAnswer]:
        """Each question's likeliest option (its summed log-probabilities kept as the raw reply)."""
        scorer = self._scorer
        requests = [
            Request(g, scorer.render(q.question, self.params.prompt), scorer.answer_ids(option, eos=False))
            for g, q in enumerate(questions)
            for option in q.texts
        ]
        images = [q.images[0] for q in questions]
        logprobs = scorer.token_logprobs(images, requests, self.run.reuse)
        if self.run.self_check and not getattr(self, "_checked", False):
            first = [k for k, r in enumerate(requests) if r.group == 0]
            scorer.self_check(images[0], [requests[k] for k in first], [logprobs[k] for k in first])
            self._checked = True
        answers, k = [], 0
        for q in questions:
            totals = [sum(lp) for lp in logprobs[k : k + len(q.texts)]]
            k += len(q.texts)
            best = [i for i, total in enumerate(totals) if total == max(totals)]
            raw = "; ".join(f"{option}: {total:.6g}" for option, total in zip(q.texts, totals))
            answers.append(ChoiceAnswer(best[0] if len(best) == 1 else None, raw=raw))
        return answers


def family_scorers() -> dict[str, type[VlmScorer]]:
    """The scorer class of each model type whose ``vqascore_*`` type has its own (imported on use)."""
    from vlc_harness_builtins.models.vqascore_internvl import VqaScoreInternVl
    from vlc_harness_builtins.models.vqascore_llava_onevision import VqaScoreLlavaOnevision
    from vlc_harness_builtins.models.vqascore_qwen_vl import VqaScoreQwenVl

    return {**VqaScoreQwenVl.model_types, **VqaScoreInternVl.model_types, **VqaScoreLlavaOnevision.model_types}


@hookimpl
def register_models(register: Any) -> None:
    """Register the likelihood answerer."""
    register(VqaLikelihood)
