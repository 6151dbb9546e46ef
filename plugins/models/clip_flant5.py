"""CLIP-FlanT5 (the VQAScore paper's model) rebuilt from transformers classes.

The published checkpoints ``zhiqiulin/clip-flant5-xl`` and ``zhiqiulin/clip-flant5-xxl`` hold a
``CLIPT5ForConditionalGeneration`` from t2v_metrics: a ``T5ForConditionalGeneration`` (Flan-T5)
with two extra modules, a LLaVA-style CLIP vision tower and an MLP projector. Here the same
computation is assembled from ``CLIPVisionModel``, an ``nn.Sequential`` projector and
``T5ForConditionalGeneration``, and the checkpoint's state dict is mapped onto them.

Where each name comes from (t2v_metrics ``t2v_metrics/models/vqascore_models/clip_t5/``, read at
linzhiqiu/t2v_metrics and its vendored copy in modelscope/evalscope; the checkpoint's index file
could not be read here, so the names are derived from that code's module tree, and the entries
stay ``verified: false`` until a run on the real files):

* ``vision_tower.vision_tower.<CLIPVisionModel keys>``: ``CLIPT5ForConditionalGeneration.vision_tower``
  is a ``CLIPVisionTower`` (``model/multimodal_encoder/clip_encoder.py``) whose attribute
  ``vision_tower`` is ``CLIPVisionModel.from_pretrained(mm_vision_tower)`` (transformers 4.x keys
  ``vision_model.embeddings...``, ``vision_model.encoder.layers.N...``). Features: hidden state
  ``mm_vision_select_layer`` (-2), patch tokens only (``mm_vision_select_feature: patch``).
* ``mm_projector.0.{weight,bias}``, ``mm_projector.2.{weight,bias}``: ``build_vision_projector``
  (``model/multimodal_projector/builder.py``) with ``mm_projector_type: mlp2x_gelu`` is
  ``nn.Sequential(Linear(mm_hidden_size, d_model), GELU(), Linear(d_model, d_model))``.
* every other key is ``T5ForConditionalGeneration``'s own (``shared``, ``encoder.block.N...``,
  ``decoder.block.N...``, ``lm_head``); ``embed_tokens.weight`` is the alias
  ``self.embed_tokens = self.encoder.embed_tokens`` set in ``CLIPT5ForConditionalGeneration.__init__``.

If the checkpoint has no vision-tower tensors (LLaVA-style training may leave the frozen tower out),
the tower's weights come from ``mm_vision_tower`` (``openai/clip-vit-large-patch14-336``), exactly
as t2v_metrics' ``CLIPVisionTower.load_model`` loads them; its image processor always comes from
there. The tokenizer is Flan-T5's (``google/flan-t5-xxl``; t2v_metrics uses ``-xl`` for the XL model,
the same SentencePiece vocabulary) and, as t2v_metrics' ``load_pretrained_model`` does with
``resize_token_embeddings(len(tokenizer))``, the vocabulary is cut to the tokenizer's length.

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
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from vlc_harness import hookimpl
from vlc_harness.kit.precision import autocast, check_precision
from vlc_harness.kit.weights import checkpoint_identity, hub_identity, pinned_revision
from vlc_harness.models import Identity, PairGroup
from vlc_harness_builtins.models.generative import GenerativePairModel, Request, VlmScorer, answer_score
from vlc_harness_builtins.models.t2v_metrics_inputs import expand_to_square, pil_image_processor
from vlc_harness_builtins.models.t2v_metrics_recipes import SYSTEM_MSG as SYSTEM_MESSAGE
from vlc_harness_builtins.models.t2v_metrics_recipes import T2V_METRICS_VERSION
from vlc_harness_builtins.models.vqascore import DEFAULT_QUESTION, SCORING_RULES

__all__ = ["SYSTEM_MESSAGE", "expand_to_square"]
IMAGE_SLOT = -200  # t2v_metrics' IMAGE_TOKEN_INDEX: where the projected patches go
VISION_PREFIX = "vision_tower.vision_tower."
PROJECTOR_PREFIX = "mm_projector."
ALIAS_KEYS = ("embed_tokens.weight",)
CLIP_T5_DEFAULTS = {
    "mm_projector_type": "mlp2x_gelu",
    "mm_vision_select_layer": -2,
    "mm_vision_select_feature": "patch",
    "image_aspect_ratio": "pad",
    "use_mm_proj": True,
}
MM_FIELDS = ("mm_vision_tower", "mm_hidden_size", *CLIP_T5_DEFAULTS, "freeze_mm_mlp_adapter", "image_grid_pinpoints")


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


def split_published_state_dict(
    state: Mapping[str, Any], vision_keys: set[str]
) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """Split a published CLIP-FlanT5 state dict into (T5, projector, vision tower) state dicts.

    ``vision_keys`` are the vision model's own key names (transformers 5 drops the
    ``vision_model.`` level that 4.x checkpoints carry; either form is accepted). The alias
    ``embed_tokens.weight`` and ``position_ids`` buffers that older transformers saved are dropped.
    """
    t5: dict[str, Any] = {}
    projector: dict[str, Any] = {}
    vision: dict[str, Any] = {}
    for name, tensor in state.items():
        if name.endswith("position_ids") or name in ALIAS_KEYS:
            continue
        if name.startswith(VISION_PREFIX):
            key = name[len(VISION_PREFIX) :]
            if key not in vision_keys and key.startswith("vision_model."):
                key = key[len("vision_model.") :]
            vision[key] = tensor
        elif name.startswith(PROJECTOR_PREFIX):
            projector[name[len(PROJECTOR_PREFIX) :]] = tensor
        else:
            t5[name] = tensor
    return t5, projector, vision


def published_state_dict(t5: Any, projector: Any, vision: Any | None) -> dict[str, Any]:
    """The state dict under the published names (inverse of :func:`split_published_state_dict`),
    in transformers 4.x form (``vision_model.`` level, tied T5 embeddings listed). Tests and the
    tiny checkpoint builder use it."""
    state = {k: v for k, v in t5.state_dict().items()}
    state["embed_tokens.weight"] = state["shared.weight"]
    state |= {PROJECTOR_PREFIX + k: v for k, v in projector.state_dict().items()}
    if vision is not None:
        for k, v in vision.state_dict().items():
            key = k if k.startswith("vision_model.") else "vision_model." + k
            state[VISION_PREFIX + key] = v
    return state


def build_modules(config: Mapping[str, Any], vision_config: Any) -> tuple[Any, Any, Any]:
    """Empty (T5, projector, vision tower) modules for a CLIP-FlanT5 ``config.json``; build them
    under ``torch.device("meta")`` to check layouts without memory."""
    import torch
    from transformers import CLIPVisionModel, T5Config, T5ForConditionalGeneration

    if config.get("mm_projector_type", "mlp2x_gelu") != "mlp2x_gelu":
        raise ValueError(f"projector {config.get('mm_projector_type')!r} is not the published mlp2x_gelu")
    t5_fields = {k: v for k, v in config.items() if k not in MM_FIELDS and k not in ("architectures", "model_type")}
    t5 = T5ForConditionalGeneration(T5Config(**t5_fields))
    if config.get("tie_word_embeddings") is False:  # Flan-T5's own output layer (transformers 5 ties by default)
        t5.lm_head.weight = torch.nn.Parameter(torch.empty_like(t5.shared.weight))
    d_model, hidden = int(config["d_model"]), int(config["mm_hidden_size"])
    projector = torch.nn.Sequential(
        torch.nn.Linear(hidden, d_model), torch.nn.GELU(), torch.nn.Linear(d_model, d_model)
    )
    return t5, projector, CLIPVisionModel(vision_config)


def load_published(t5: Any, projector: Any, vision: Any, state: Mapping[str, Any], assign: bool = False) -> bool:
    """Load a published state dict into the modules, strictly (every name and shape must match).

    Returns whether the checkpoint held the vision tower. T5's tied input embeddings are taken
    from ``shared`` when the file lists them under their own names or not at all.
    """
    t5_sd, projector_sd, vision_sd = split_published_state_dict(state, set(vision.state_dict()))
    own = set(t5.state_dict())
    for key in ("encoder.embed_tokens.weight", "decoder.embed_tokens.weight"):
        if key in own:
            t5_sd[key] = t5_sd["shared.weight"]
    if "lm_head.weight" not in t5_sd:
        t5_sd["lm_head.weight"] = t5_sd["shared.weight"]
    head, shared = t5_sd["lm_head.weight"], t5_sd["shared.weight"]
    if t5.lm_head.weight is t5.shared.weight and not head.is_meta and not head.equal(shared):
        raise ValueError("the checkpoint has its own lm_head but its config ties it (tie_word_embeddings is not false)")
    for key in list(t5_sd):
        if key not in own and key.endswith("EncDecAttention.relative_attention_bias.weight"):
            del t5_sd[key]  # old T5 files carry it; transformers ignores it
    t5.load_state_dict(t5_sd, strict=True, assign=assign)
    projector.load_state_dict(projector_sd, strict=True, assign=assign)
    if vision_sd:
        vision.load_state_dict(vision_sd, strict=True, assign=assign)
    return bool(vision_sd)


def materialize_position_ids(module: Any) -> None:
    """Recreate the non-persistent ``position_ids`` buffers that a meta-device build leaves empty
    (the only buffers of CLIP's vision tower; T5 has none); any other empty buffer is an error."""
    import torch

    for name, buffer in list(module.named_buffers()):
        if not buffer.is_meta:
            continue
        owner_name, _, leaf = name.rpartition(".")
        if leaf != "position_ids":
            raise ValueError(f"buffer {name} has no value after loading")
        values = torch.arange(buffer.shape[-1]).expand(buffer.shape).clone()
        module.get_submodule(owner_name).register_buffer(leaf, values, persistent=False)


def read_state_dict(folder: Path) -> dict[str, Any]:
    """All tensors of a checkpoint folder: ``model.safetensors``, sharded safetensors, or
    ``pytorch_model*.bin`` (loaded with ``weights_only=True``)."""
    import torch
    from safetensors.torch import load_file

    for index_name, single in (
        ("model.safetensors.index.json", "model.safetensors"),
        ("pytorch_model.bin.index.json", "pytorch_model.bin"),
    ):
        index = folder / index_name
        files = (
            sorted(set(json.loads(index.read_text(encoding="utf-8"))["weight_map"].values()))
            if index.is_file()
            else [single]
            if (folder / single).is_file()
            else []
        )
        if files:
            state: dict[str, Any] = {}
            for name in files:
                path = folder / name
                part = load_file(str(path)) if name.endswith(".safetensors") else torch.load(path, weights_only=True)
                state.update(part)
            return state
    raise FileNotFoundError(f"no model weights in {folder}")


def checkpoint_folder(checkpoint: str, revision: str | None) -> Path:
    """A local folder with the checkpoint's config and weights (downloaded once from the hub)."""
    path = Path(checkpoint).expanduser()
    if path.is_dir():
        return path
    from huggingface_hub import snapshot_download

    folder = Path(snapshot_download(checkpoint, revision=revision, allow_patterns=["*.json"]))
    index = next(
        (
            folder / n
            for n in ("model.safetensors.index.json", "pytorch_model.bin.index.json")
            if (folder / n).is_file()
        ),
        None,
    )
    if index is not None:
        patterns = sorted(set(json.loads(index.read_text(encoding="utf-8"))["weight_map"].values()))
    else:
        patterns = ["model.safetensors", "pytorch_model.bin"]
    return Path(snapshot_download(checkpoint, revision=revision, allow_patterns=["*.json", *patterns]))


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
        vision_config = CLIPVisionConfig.from_pretrained(vision_tower, revision=vision_revision)
        with torch.device("meta"):
            t5, projector, vision = build_modules(config, vision_config)
        if load_published(t5, projector, vision, read_state_dict(folder), assign=True):
            materialize_position_ids(vision)
        else:
            vision = CLIPVisionModel.from_pretrained(vision_tower, revision=vision_revision)
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


def cut_vocabulary(t5: Any, size: int) -> None:
    """Keep the first ``size`` rows of the embeddings and of the output layer, as t2v_metrics'
    ``resize_token_embeddings(len(tokenizer))`` does; a tokenizer longer than the vocabulary is
    refused (new rows would be invented)."""
    import torch

    rows = t5.shared.weight.shape[0]
    if size > rows:
        raise ValueError(f"the tokenizer has {size} tokens but the checkpoint only {rows} embeddings")
    if size == rows:
        return
    tied = t5.lm_head.weight is t5.shared.weight
    shared = torch.nn.Parameter(t5.shared.weight.data[:size].clone())
    for module in (t5.shared, t5.encoder.embed_tokens, t5.decoder.embed_tokens):
        module.weight, module.num_embeddings = shared, size
    t5.lm_head.weight = shared if tied else torch.nn.Parameter(t5.lm_head.weight.data[:size].clone())
    t5.lm_head.out_features = size
    t5.config.vocab_size = size


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

    def identify(self) -> Identity:
        """The checkpoint, its vision tower (image processor, maybe weights) and the tokenizer."""
        p = self.params
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

    @classmethod
    def conformance_example(cls, tmp_path: Any) -> dict[str, Any]:
        """A tiny CLIP-FlanT5 folder in the published layout, with its own tokenizer."""
        from vlc_harness_builtins.models.tiny_generative import save_tiny_clip_flant5

        folder = save_tiny_clip_flant5(tmp_path / "tiny_clip_flant5")
        return {"checkpoint": str(folder), "tokenizer": str(folder / "tokenizer")}


def _repo_identity(name: str, files: tuple[str, ...]) -> str:
    """A local folder's hash or a hub repo's resolved commit."""
    if Path(name).expanduser().is_dir():
        return checkpoint_identity(name)
    return hub_identity(name, files)


@hookimpl
def register_models(register: Any) -> None:
    """Register the CLIP-FlanT5 model type."""
    register(ClipFlanT5)
