"""The published CLIP-FlanT5 checkpoints' layout, mapped onto transformers modules.

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
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

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
