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
query tokens first anyway); ``t2v_metrics`` is t2v_metrics 3.0's own recipe for the checkpoint's
family (:mod:`vlc_harness_builtins.models.t2v_metrics_recipes`: LLaVA-1.5's system message and
``USER: <image>\\n... ASSISTANT:`` tokenized around the image, images padded to a square;
InstructBLIP-FlanT5's ``Question: ...`` and ``yes``, resized and centre-cropped; Qwen2-VL and
Qwen2.5-VL's chat template, qwen-vl-utils' resize and ``generate``'s repetition penalty), which
also fixes the scoring rule; ``question_template`` and ``answer`` are set in the entry (the
recipe's defaults are tested against the installed t2v_metrics); any other value is a format
string with ``{question}`` (and the family's image placeholder, e.g. ``USER: <image>\\n{question}
ASSISTANT:`` for LLaVA-1.5).

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
from vlc_harness_builtins.models.t2v_metrics_inputs import check_t2v_answer, t2v_metrics_scorer
from vlc_harness_builtins.models.t2v_metrics_recipes import (
    T2V_METRICS_VERSION,
    T2vRecipe,
    check_recipe_params,
    recipe_for,
    recipe_prompt,
)
from vlc_harness_builtins.models.versions import require_pil_backend, require_transformers_model

DEFAULT_QUESTION = 'Does this figure show "{}"? Please answer yes or no.'
T2V_PROMPT = "t2v_metrics"
"""The ``prompt`` value that selects t2v_metrics' recipe for the checkpoint's family."""
CHAT_TEMPLATES = {
    "llava": "USER: <image>\\n{question} ASSISTANT:",
    "qwen2_vl": "<|im_start|>system\\nYou are a helpful assistant.<|im_end|>\\n<|im_start|>user\\n"
    "<|vision_start|><|image_pad|><|vision_end|>{question}<|im_end|>\\n<|im_start|>assistant\\n",
    "blip-2": "{question}",
    "instructblip": "{question}",
}
"""What the published checkpoints' chat templates render with ``prompt: auto`` (shown on model pages)."""
SCORING_RULES = {
    "p_yes": "P(answer) over the whole vocabulary at the answer position (its tokens' product; no end-of-sequence)",
    "t2v_metrics": "exp(-mean cross-entropy) over the answer's tokens and the end-of-sequence token",
}


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


def open_scorer(params: Any, device: str, identity: str | None, recipe: T2vRecipe | None = None) -> VlmScorer:
    """The scorer over ``params.checkpoint`` (fp32 weights unless ``params.precision`` says otherwise),
    following t2v_metrics' ``recipe`` when one is given."""
    check_precision(params.precision, device)
    identity = identity or checkpoint_identity(params.checkpoint, params.revision)
    family = checkpoint_family(params.checkpoint, params.family, identity)
    revision = pinned_revision(identity)
    if recipe is not None:
        return t2v_metrics_scorer(VlmScorer, recipe, params.checkpoint, revision, family, device, params.precision)
    return VlmScorer(params.checkpoint, revision, family, device, params.precision)


def t2v_recipe(params: Any, model_type: str, config: dict[str, Any]) -> T2vRecipe | None:
    """t2v_metrics' recipe when ``prompt`` asks for it (refused where the family or scoring differ)."""
    if params.prompt != T2V_PROMPT:
        return None
    recipe = recipe_for(model_type, config)
    check_recipe_params(recipe, params.scoring)
    require_pil_backend()  # the recipe's image processor is the PIL one: unavailable, never silently another
    return recipe


def prompt_details(template: str, params: Any, recipe: T2vRecipe | None) -> dict[str, str]:
    """The prompt, answer and scoring rule as a model page shows them (never fingerprinted)."""
    question = params.question_template.replace("{}", "{caption}")
    rule = SCORING_RULES[params.scoring]
    if recipe is not None:
        template = recipe_prompt(recipe, template)
        rule += f"; t2v_metrics {T2V_METRICS_VERSION}'s {recipe.name} recipe"
        if recipe.generation:
            rule += " (read from generate()'s first scores, the checkpoint's repetition penalty applied)"
    prompt = template.replace("{question}", question).replace("\n", "\\n")
    return {"prompt": prompt, "answer": params.answer, "scoring": rule}


class VqaScore(GenerativePairModel):
    """VQAScore over transformers VLMs: P("Yes") to a yes/no question about the caption."""

    type_name = "vqascore"
    Params = VqaScoreParams

    def identify(self) -> Identity:
        """Resolved hub commit or local folder hash; the protocol names the scoring definition (and
        t2v_metrics' recipe where ``prompt`` asks for it)."""
        self._identity = checkpoint_identity(self.params.checkpoint, self.params.revision)
        config = checkpoint_config(self.params.checkpoint, self._identity)
        model_type = str(config.get("model_type", ""))
        require_transformers_model(model_type)
        family = resolve_family(self.params.family, model_type)
        self._recipe = t2v_recipe(self.params, model_type, config)
        protocol = f"score_pairs/vqascore/{self.params.scoring}/{family}"
        if self._recipe is not None:
            protocol += f"/t2v_metrics-{T2V_METRICS_VERSION}"
        if self.params.prompt in ("auto", T2V_PROMPT):
            template = CHAT_TEMPLATES.get(model_type, f"<{model_type} chat template: the image, then> {{question}}")
        else:
            template = self.params.prompt
        details = prompt_details(template, self.params, self._recipe)
        return Identity(self._identity, self.params.precision, protocol, details)

    def load(self, device: str) -> None:
        """The model (fp32 weights), its processor, and the answer's tokens."""
        if not hasattr(self, "_recipe"):
            self.identify()
        self._scorer = open_scorer(self.params, device, self._identity, self._recipe)
        self._answer = self._scorer.answer_ids(self.params.answer, eos=self.params.scoring == "t2v_metrics")
        if self._recipe is not None:
            check_t2v_answer(self._recipe, self._answer)

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


@hookimpl
def register_models(register: Any) -> None:
    """Register the VQAScore model type."""
    register(VqaScore)
