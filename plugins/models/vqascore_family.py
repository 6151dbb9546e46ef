"""Shared base of the per-family VQAScore types (Qwen-VL, InternVL, LLaVA-OneVision): no hooks.

Each family is its own model type in its own plugin file, with the scoring of
:mod:`vlc_harness_builtins.models.vqascore` (P("Yes") to ``question_template`` filled with the caption, the same
two scoring definitions, the same image-grouped reuse and the run-time self-check against the
model's own forward pass), and with what the family needs on top: which ``model_type`` values it
accepts, the transformers version that knows them, a scorer class for the family's image inputs,
and its declared prompt template.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from vlc_harness.kit.precision import check_precision
from vlc_harness.kit.weights import checkpoint_config, checkpoint_identity, pinned_revision
from vlc_harness.models import Identity
from vlc_harness_builtins.models.generative import VlmScorer
from vlc_harness_builtins.models.t2v_metrics_inputs import check_t2v_answer, t2v_metrics_scorer
from vlc_harness_builtins.models.t2v_metrics_recipes import T2V_METRICS_VERSION
from vlc_harness_builtins.models.versions import require_transformers_model
from vlc_harness_builtins.models.vqascore import DEFAULT_QUESTION, VqaScore, prompt_details, t2v_recipe


@dataclass(frozen=True)
class FamilyVqaParams:
    """Which checkpoint of the family, which question, the scoring definition and the prompt."""

    checkpoint: str
    revision: str | None = None
    question_template: str = DEFAULT_QUESTION
    answer: str = "Yes"
    scoring: Literal["p_yes", "t2v_metrics"] = "p_yes"
    prompt: str = "auto"
    """``auto``: the checkpoint's own chat template (see the type's ``prompt_template``);
    ``t2v_metrics``: t2v_metrics 3.0's recipe for the family, where it has one
    (:mod:`vlc_harness_builtins.models.t2v_metrics_recipes`); else a format string with ``{question}``
    and the family's image placeholder."""
    precision: Literal["fp32", "fp16", "bf16"] = "fp32"


class FamilyVqaScore(VqaScore):
    """VQAScore restricted to one model family, loaded through the family's scorer class."""

    model_types: ClassVar[dict[str, type[VlmScorer]]] = {}
    """Accepted ``model_type`` values and the scorer class each loads with."""
    prompt_template: ClassVar[str] = ""
    """The prompt a published checkpoint's chat template renders (``{question}`` and the image
    placeholder) when ``prompt`` is ``auto``: the user turn holds the image, then the question."""
    Params: ClassVar[type[Any]] = FamilyVqaParams  # not a VqaScoreParams: its own fields

    def _model_type(self, identity: str) -> str:
        model_type = str(checkpoint_config(self.params.checkpoint, identity).get("model_type", ""))
        if model_type not in self.model_types:
            known = ", ".join(sorted(self.model_types))
            raise ValueError(f"{self.params.checkpoint} is a {model_type!r} checkpoint; {self.type_name} takes {known}")
        require_transformers_model(model_type)
        return model_type

    def chat_template(self, model_type: str) -> str:
        """The prompt the checkpoint's chat template renders (``prompt_template``; per model type where
        the type takes several)."""
        return self.prompt_template

    def identify(self) -> Identity:
        """Resolved hub commit or local folder hash; the protocol names scoring, family and prompt."""
        self._identity = checkpoint_identity(self.params.checkpoint, self.params.revision)
        model_type = self._model_type(self._identity)
        config = checkpoint_config(self.params.checkpoint, self._identity)
        self._recipe = t2v_recipe(self.params, model_type, config)
        if self.params.prompt == "auto":
            prompt, template = "chat_template", self.chat_template(model_type)
        elif self._recipe is not None:
            prompt, template = f"t2v_metrics-{T2V_METRICS_VERSION}", self.chat_template(model_type)
        else:
            prompt, template = "prompt:" + self.params.prompt, self.params.prompt
        protocol = f"score_pairs/vqascore/{self.params.scoring}/{model_type}/{prompt}"
        details = prompt_details(template, self.params, self._recipe)
        return Identity(self._identity, self.params.precision, protocol, details)

    def load(self, device: str) -> None:
        """The family's scorer over the checkpoint (fp32 weights), and the answer's tokens."""
        check_precision(self.params.precision, device)
        if not hasattr(self, "_recipe"):
            self.identify()
        scorer = self.model_types[self._model_type(self._identity)]
        args = (self.params.checkpoint, pinned_revision(self._identity))
        if self._recipe is None:
            self._scorer = scorer(*args, "image_text_to_text", device, self.params.precision)
        else:
            self._scorer = t2v_metrics_scorer(
                scorer, self._recipe, *args, "image_text_to_text", device, self.params.precision
            )
        self._answer = self._scorer.answer_ids(self.params.answer, eos=self.params.scoring == "t2v_metrics")
        if self._recipe is not None:
            check_t2v_answer(self._recipe, self._answer)


def pad_to(tensors: list[Any], dim: int) -> list[Any]:
    """Zero-pad tensors along ``dim`` to the longest of them (other dims must agree)."""
    import torch

    longest = max(int(t.shape[dim]) for t in tensors)
    out = []
    for t in tensors:
        missing = longest - int(t.shape[dim])
        if missing:
            shape = list(t.shape)
            shape[dim] = missing
            t = torch.cat([t, t.new_zeros(shape)], dim=dim)
        out.append(t)
    return out
