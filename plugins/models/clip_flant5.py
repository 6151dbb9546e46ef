"""CLIP-FlanT5 (the VQAScore paper's model) rebuilt from transformers classes.

The published checkpoints ``zhiqiulin/clip-flant5-xl`` and ``zhiqiulin/clip-flant5-xxl`` hold a
``CLIPT5ForConditionalGeneration`` from t2v_metrics: a ``T5ForConditionalGeneration`` (Flan-T5)
with two extra modules, a LLaVA-style CLIP vision tower and an MLP projector. Here the same
computation is assembled from ``CLIPVisionModel``, an ``nn.Sequential`` projector and
``T5ForConditionalGeneration``, and the checkpoint's state dict is mapped onto them.

The checkpoint's layout (key names, config fields) and its loading are
:mod:`vlc_harness_builtins.models.clip_flant5_weights`.

Prompt (t2v_metrics ``clip_t5_model.py``, conversation ``t5_chat``):
``<system message> USER: <image>\\n<question> ASSISTANT: `` where each side of ``<image>`` is
tokenized separately with its own ``</s>`` (``t5_tokenizer_image_token``); images are padded to a
square with the processor's mean colour (``image_aspect_ratio: pad``) and go through the CLIP
image processor with the PIL backend (transformers 4.49's, which t2v_metrics pins); the decoder is
teacher-forced on the answer's tokens (``Yes</s>``). Scoring definitions as in
:mod:`vlc_harness_builtins.models.vqascore`. t2v_metrics runs the model in bf16; ``precision: fp32``
is the default here.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from vlc_harness import hookimpl
from vlc_harness.kit.precision import autocast, check_precision
from vlc_harness.kit.weights import checkpoint_identity, hub_identity, pinned_revision
from vlc_harness.models import Identity, PairGroup
from vlc_harness_builtins.models.clip_flant5_weights import (
    CLIP_T5_DEFAULTS,
    build_modules,
    checkpoint_folder,
    cut_vocabulary,
    load_published,
    materialize_position_ids,
    read_state_dict,
)
from vlc_harness_builtins.models.generative import GenerativePairModel, Request, VlmScorer, answer_score
from vlc_harness_builtins.models.t2v_metrics_inputs import expand_to_square, pil_image_processor
from vlc_harness_builtins.models.t2v_metrics_recipes import SYSTEM_MSG as SYSTEM_MESSAGE
from vlc_harness_builtins.models.t2v_metrics_recipes import T2V_METRICS_VERSION
from vlc_harness_builtins.models.versions import require_pil_backend
from vlc_harness_builtins.models.vqascore import DEFAULT_QUESTION, SCORING_RULES

__all__ = [
    "CLIP_T5_DEFAULTS",
    "IMAGE_SLOT",
    "SYSTEM_MESSAGE",
    "ClipFlanT5",
    "ClipFlanT5Params",
    "ClipFlanT5Scorer",
    "ClipFlanT5Source",
    "build_modules",
    "expand_to_square",
    "load_published",
]

IMAGE_SLOT = -200  # t2v_metrics' IMAGE_TOKEN_INDEX: where the projected patches go


@dataclass(frozen=True)
class ClipFlanT5Params:
    """Which CLIP-FlanT5 checkpoint, which question, and the scoring definition."""

    checkpoint: str = "zhiqiulin/clip-flant5-xxl"
    revision: str | None = None
    tokenizer: str = "google/flan-t5-xxl"
    vision_tower: str | None = None
    question_template: str = DEFAULT_QUESTION
    answer: str = "Yes"
    scoring: Literal["p_yes", "t2v_metrics"] = "t2v_metrics"
    system_message: str = SYSTEM_MESSAGE
    precision: Literal["fp32", "fp16", "bf16"] = "fp32"


class ClipFlanT5Scorer(VlmScorer):
    """CLIP vision tower, MLP projector and Flan-T5 behind the :class:`VlmScorer` interface."""

    def __init__(
        self,
        folder: Path,
        tokenizer: str,
        tokenizer_revision: str | None,
        vision_tower: str,
        vision_revision: str | None,
        device: str,
        precision: str,
        system_message: str,
    ) -> None:
        import torch
        from transformers import AutoTokenizer, CLIPVisionConfig, CLIPVisionModel

        config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
        hub_revision = vision_revision or "main"  # None: a local folder, where no revision is read
        vision_config = CLIPVisionConfig.from_pretrained(vision_tower, revision=hub_revision)
        with torch.device("meta"):
            t5, projector, vision = build_modules(config, vision_config)
        if load_published(t5, projector, vision, read_state_dict(folder), assign=True):
            materialize_position_ids(vision)
        else:
            vision = CLIPVisionModel.from_pretrained(vision_tower, revision=hub_revision)
        self.tokenizer = AutoTokenizer.from_pretrained(tokenizer, revision=tokenizer_revision)
        cut_vocabulary(t5, len(self.tokenizer))
        self.image_processor = pil_image_processor(vision_tower, vision_revision)  # transformers 4.49's, as t2v_metrics
        self.fill = tuple(int(x * 255) for x in self.image_processor.image_mean)
        self.model = self.runner = t5.to(device).eval()
        self.projector, self.vision = projector.to(device).eval(), vision.to(device).eval()
        self.select_layer = int(config.get("mm_vision_select_layer", -2))
        self.keep_cls = config.get("mm_vision_select_feature", "patch") == "cls_patch"
        self.family, self.device, self.precision, self.torch = "clip_flant5", device, precision, torch
        self.image_token_id, self.blip, self.seq2seq, self.text_conditioned = IMAGE_SLOT, False, True, False
        self.rope, self.pad_id = None, int(self.tokenizer.pad_token_id or 0)
        self.system_message = system_message

    def render(self, question: str, prompt: str = "auto") -> str:
        """t2v_metrics' ``t5_chat`` conversation around the question."""
        return f"{self.system_message} USER: <image>\n{question} ASSISTANT: "

    def answer_ids(self, text: str, eos: bool) -> tuple[int, ...]:
        """The answer's tokens; T5's tokenizer ends them with ``</s>`` (kept only when ``eos``)."""
        ids = list(self.tokenizer(text).input_ids)
        if ids and ids[-1] == self.tokenizer.eos_token_id and not eos:
            ids = ids[:-1]
        if not ids:
            raise ValueError(f"answer {text!r} has no tokens")
        return tuple(ids)

    def prompt_ids(self, prompt: str, n_image: int) -> list[int]:
        """Each side of ``<image>`` tokenized on its own (each ends with ``</s>``), the image's
        ``n_image`` slots between them."""
        before, after = prompt.split("<image>", 1)
        return [*self.tokenizer(before).input_ids, *[IMAGE_SLOT] * n_image, *self.tokenizer(after).input_ids]

    def preprocess(self, image: Any) -> dict[str, Any]:
        """Pad to a square with the mean colour, then the CLIP image processor (PIL backend)."""
        square = expand_to_square(image.convert("RGB"), self.fill)
        pixels = self.image_processor(images=square, return_tensors="pt")["pixel_values"]
        return {"pil": image, "tensors": {"pixel_values": pixels}}

    def _features(self, images: Sequence[dict[str, Any]], owners: Any = None, texts: Sequence[str] = ()) -> list[Any]:
        """Projected patch features of hidden state ``mm_vision_select_layer``, one per image."""
        pixels = self._batch(images)["pixel_values"]
        hidden = self.vision(pixel_values=pixels, output_hidden_states=True).hidden_states[self.select_layer]
        return list(self.projector(hidden if self.keep_cls else hidden[:, 1:]))

    def reference_logprobs(self, image: dict[str, Any], requests: Sequence[Request]) -> list[list[float]]:
        """Per pair, as t2v_metrics' forward: one sequence of embeddings through T5 with labels."""
        torch = self.torch
        out = []
        with torch.no_grad(), autocast(self.precision):
            feats = self._features([image])[0]
            for r in requests:
                ids = torch.tensor([self.prompt_ids(r.prompt, feats.shape[0])], device=self.device)
                embeds = self._embed(ids, [feats])
                labels = torch.tensor([r.answer], device=self.device)
                logits = self.model(inputs_embeds=embeds, labels=labels, return_dict=True).logits[0]
                lp = torch.log_softmax(logits.float(), dim=-1)
                out.append(lp[torch.arange(len(r.answer)), labels[0]].double().cpu().tolist())
        return out


def vision_tower_name(checkpoint: str, identity: str, override: str | None) -> str:
    """The vision tower a checkpoint names in ``mm_vision_tower`` (or the override)."""
    if override:
        return override
    path = Path(checkpoint).expanduser()
    if path.is_dir():
        file = path / "config.json"
    else:
        from huggingface_hub import hf_hub_download

        file = Path(hf_hub_download(checkpoint, "config.json", revision=pinned_revision(identity)))
    tower = json.loads(file.read_text(encoding="utf-8")).get("mm_vision_tower")
    if not tower:
        raise ValueError(f"{checkpoint} names no mm_vision_tower; give vision_tower")
    return str(tower)


@dataclass(frozen=True)
class ClipFlanT5Source:
    """Where a CLIP-FlanT5's parts come from: checkpoint, vision tower and tokenizer identities."""

    checkpoint: str
    checkpoint_id: str
    vision_tower: str
    vision_tower_id: str
    tokenizer: str
    tokenizer_id: str

    @property
    def weights(self) -> str:
        """The fingerprinted weights string: all three parts."""
        return f"{self.checkpoint_id}+vision:{self.vision_tower_id}+tokenizer:{self.tokenizer_id}"

    @classmethod
    def resolve(
        cls, checkpoint: str, revision: str | None, tokenizer: str, vision_tower: str | None
    ) -> ClipFlanT5Source:
        """Identify the three parts (hub commits or local folder hashes) without loading weights."""
        checkpoint_id = checkpoint_identity(checkpoint, revision)
        tower = vision_tower_name(checkpoint, checkpoint_id, vision_tower)
        tower_id = _repo_identity(tower, ("preprocessor_config.json", "config.json"))
        tokenizer_id = _repo_identity(tokenizer, ("tokenizer_config.json", "spiece.model", "tokenizer.json"))
        return cls(checkpoint, checkpoint_id, tower, tower_id, tokenizer, tokenizer_id)

    def scorer(self, device: str, precision: str, system_message: str = SYSTEM_MESSAGE) -> ClipFlanT5Scorer:
        """Download (once) and load the model."""
        folder = checkpoint_folder(self.checkpoint, pinned_revision(self.checkpoint_id))
        return ClipFlanT5Scorer(
            folder,
            self.tokenizer,
            pinned_revision(self.tokenizer_id),
            self.vision_tower,
            pinned_revision(self.vision_tower_id),
            device,
            precision,
            system_message,
        )


class ClipFlanT5(GenerativePairModel):
    """VQAScore with CLIP-FlanT5 (CLIP ViT-L/14-336, MLP projector, Flan-T5 XL or XXL)."""

    type_name = "clip_flant5"
    Params = ClipFlanT5Params
    _scorer: ClipFlanT5Scorer

    def identify(self) -> Identity:
        """The checkpoint, its vision tower (image processor, maybe weights) and the tokenizer."""
        p = self.params
        require_pil_backend()  # its image processor is the PIL one (t2v_metrics'): unavailable, never another
        self._source = ClipFlanT5Source.resolve(p.checkpoint, p.revision, p.tokenizer, p.vision_tower)
        protocol = f"score_pairs/clip_flant5/{p.scoring}/t5_chat/t2v_metrics-{T2V_METRICS_VERSION}"
        prompt = f"{p.system_message} USER: <image>\\n{p.question_template.replace('{}', '{caption}')} ASSISTANT: "
        details = {"prompt": prompt, "answer": p.answer, "scoring": SCORING_RULES[p.scoring]}
        return Identity(self._source.weights, p.precision, protocol, details)

    def load(self, device: str) -> None:
        """Build the modules, map the published state dict onto them, load tokenizer and processor."""
        check_precision(self.params.precision, device)
        if not hasattr(self, "_source"):
            self.identify()
        self._scorer = self._source.scorer(device, self.params.precision, self.params.system_message)
        self._answer = self._scorer.answer_ids(self.params.answer, eos=self.params.scoring == "t2v_metrics")

    def _requests(self, groups: list[PairGroup]) -> list[Request]:
        render = self._scorer.render
        template = self.params.question_template
        return [
            Request(g, render(template.format(t)), self._answer) for g, group in enumerate(groups) for t in group.texts
        ]

    def _score(self, requests: Sequence[Request], logprobs: Sequence[Sequence[float]]) -> list[float]:
        n_core = len(self._answer) - (self.params.scoring == "t2v_metrics")
        return [answer_score(lp, self.params.scoring, n_core) for lp in logprobs]


def _repo_identity(name: str, files: tuple[str, ...]) -> str:
    """A local folder's hash or a hub repo's resolved commit."""
    if Path(name).expanduser().is_dir():
        return checkpoint_identity(name)
    return hub_identity(name, files)


@hookimpl
def register_models(register: Any) -> None:
    """Register the CLIP-FlanT5 model type."""
    register(ClipFlanT5)
