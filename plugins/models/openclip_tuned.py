"""Compositionality-tuned CLIP checkpoints (NegCLIP, CE-CLIP, DAC, FSC-CLIP) loaded into open_clip.

These checkpoints are files written by the authors' forks of open_clip's training code, not
open_clip pretrained tags: an open_clip training checkpoint (``{"epoch", "name", "state_dict",
"optimizer"}``, keys prefixed ``module.`` when trained with DistributedDataParallel), or a bare
state dict; LoRA fine-tunes (DAC, FSC-CLIP ``-lora``) also hold their low-rank factors. The
plugin reads the file (``torch.load(weights_only=True)``: nothing but tensors and plain values is
accepted), maps it onto open_clip's module names and loads it strictly into ``arch``.

``params``:

* ``arch``: the open_clip model name the checkpoint loads into (``ViT-B-32``), or an inline model
  config dict as for ``open_clip``.
* ``checkpoint``: the file. A relative path is resolved under the run's data root
  (``run_config.data_root``: ``--data-root``, else ``$VLC_HARNESS_DATA``);
  ``hf-hub:<org>/<repo>/<file>`` names a file of a Hugging Face repository
  (resolved to a commit, downloaded once). Files published only on Google Drive are never
  fetched by the harness: the registry entry's ``meta.download`` says where to get them.
* ``sha256``: the file's published sha256, when there is one; a different file is refused.
* ``layout``: ``open_clip`` (open_clip's own names) or ``open_clip_lora`` (the same plus LoRA
  factors, merged as the authors' layers compute them: ``W + (alpha / r) * B @ A`` for ``Linear``
  (``<name>.lora_A`` ``[r, in]``, ``<name>.lora_B`` ``[out, r]``) and for attention's packed input
  projection (``in_proj_weight_lora_A``/``_B``), and ``(B @ A).view(W.shape)`` for the patch
  ``Conv2d`` (``lora_A`` ``[r*k, in*k]``, ``lora_B`` ``[out*k, r*k]``); ``r`` is read from the
  factors' shapes, ``alpha`` is ``lora_alpha``).
* ``lora_alpha``: LoRA's alpha (1 in DAC's and FSC-CLIP's layers, which never set it).
* ``quick_gelu``: QuickGELU activations, as the OpenAI CLIP these checkpoints were fine-tuned from
  (default ``true``). The ARO and SugarCrepe evaluation scripts loaded NegCLIP and CE-CLIP as
  ``ViT-B-32`` with open_clip's default ``nn.GELU``; ``quick_gelu: false`` reproduces that, and
  their registry entries name it in ``meta.paper_params`` (what ``vlc-harness verify`` compares
  with the paper rows; the board keeps QuickGELU).
* ``precision``: ``fp32``, or ``fp16``/``bf16`` autocast on CUDA.

Scoring is the ``open_clip`` type's: the raw caption through the architecture's tokenizer, its
eval image transform, cosine similarity of L2-normalised embeddings.
"""

from __future__ import annotations

import pickle
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Literal

from vlc_harness import hookimpl
from vlc_harness.errors import WeightsUnavailable
from vlc_harness.kit.precision import check_precision
from vlc_harness.kit.weights import file_identity, hub_identity, pinned_revision
from vlc_harness.models import Identity
from vlc_harness.reasons import Reason
from vlc_harness_builtins.models.openclip import OpenClip, causal_argmax_text_tower
from vlc_harness_builtins.models.openclip_repos import check_text_repos
from vlc_harness_builtins.models.versions import require_open_clip_model

HUB_PREFIX = "hf-hub:"
LORA_SUFFIXES = ("lora_A", "lora_B")


@dataclass(frozen=True)
class OpenClipTunedParams:
    """Which architecture, which checkpoint file, how its keys map, which activation."""

    arch: str | dict
    checkpoint: str
    sha256: str | None = None
    layout: Literal["open_clip", "open_clip_lora"] = "open_clip"
    lora_alpha: float = 1.0
    quick_gelu: bool = True
    precision: Literal["fp32", "fp16", "bf16"] = "fp32"


def checkpoint_path(checkpoint: str, data_root: Path) -> Path:
    """A local checkpoint: the path itself if absolute, else below the run's data root."""
    path = Path(checkpoint).expanduser()
    return path if path.is_absolute() else data_root / path


def split_hub_file(checkpoint: str) -> tuple[str, str]:
    """``hf-hub:org/repo/path/to/file`` -> (``org/repo``, ``path/to/file``)."""
    parts = checkpoint[len(HUB_PREFIX) :].split("/")
    if len(parts) < 3 or not all(parts):
        raise ValueError(f"{checkpoint!r} is not hf-hub:<org>/<repo>/<file>")
    return "/".join(parts[:2]), "/".join(parts[2:])


def unwrap_state_dict(raw: Any) -> dict[str, Any]:
    """The tensors of a checkpoint: the ``state_dict`` of an open_clip training checkpoint or the
    mapping itself, with DistributedDataParallel's ``module.`` prefix removed."""
    if not isinstance(raw, Mapping):
        raise ValueError(f"the checkpoint holds a {type(raw).__name__}, not a state dict")
    state = raw["state_dict"] if isinstance(raw.get("state_dict"), Mapping) else raw
    state = dict(state)
    if state and all(k.startswith("module.") for k in state):
        state = {k[len("module.") :]: v for k, v in state.items()}
    not_tensors = sorted(k for k, v in state.items() if not hasattr(v, "shape"))
    if not_tensors:
        raise ValueError(f"the checkpoint's state dict holds non-tensors: {', '.join(not_tensors[:5])}")
    return state


def _lora_target(key: str) -> tuple[str, str] | None:
    """(weight key, factor) for a LoRA factor key, else ``None``."""
    for factor in LORA_SUFFIXES:
        if key.endswith("." + factor):  # Linear / Conv2d: <module>.lora_A -> <module>.weight
            return key[: -len(factor) - 1] + ".weight", factor
        if key.endswith("_" + factor):  # attention: <attn>.in_proj_weight_lora_A -> <attn>.in_proj_weight
            return key[: -len(factor) - 1], factor
    return None


def merge_lora(state: Mapping[str, Any], alpha: float) -> dict[str, Any]:
    """The state dict with every LoRA pair merged into its weight and the factors removed."""
    pairs: dict[str, dict[str, Any]] = {}
    merged: dict[str, Any] = {}
    for key, tensor in state.items():
        target = _lora_target(key)
        if target is None:
            merged[key] = tensor
        else:
            pairs.setdefault(target[0], {})[target[1]] = (key, tensor)
    if not pairs:
        raise ValueError("layout open_clip_lora, but the checkpoint holds no LoRA factors")
    for weight_key, factors in sorted(pairs.items()):
        if set(factors) != set(LORA_SUFFIXES):
            raise ValueError(f"{weight_key}: LoRA factor {sorted(factors)} without its pair")
        if weight_key not in merged:
            raise ValueError(f"LoRA factors {factors['lora_A'][0]} have no weight {weight_key}")
        weight = merged[weight_key]
        a, b = factors["lora_A"][1], factors["lora_B"][1]
        kernel = int(weight.shape[-1]) if weight.dim() == 4 else 1
        rank = int(a.shape[0]) // kernel
        delta = (b.float() @ a.float()) * (alpha / rank)
        if delta.numel() != weight.numel():
            raise ValueError(
                f"{weight_key}: LoRA factors {tuple(b.shape)} @ {tuple(a.shape)} do not fit {tuple(weight.shape)}"
            )
        merged[weight_key] = (weight.float() + delta.view(weight.shape)).to(weight.dtype)
    return merged


def remap_state_dict(raw: Any, layout: str, lora_alpha: float = 1.0) -> dict[str, Any]:
    """A published checkpoint's contents as open_clip's state dict for ``layout``."""
    state = unwrap_state_dict(raw)
    if layout == "open_clip_lora":
        return merge_lora(state, lora_alpha)
    lora = sorted(k for k in state if _lora_target(k) is not None)
    if lora:
        raise ValueError(f"the checkpoint holds LoRA factors ({lora[0]}, ...): use layout open_clip_lora")
    return state


def load_strictly(model: Any, state: Mapping[str, Any]) -> None:
    """``model.load_state_dict(state, strict=True)`` with the mismatch named in one line."""
    own = model.state_dict()
    missing = sorted(set(own) - set(state))
    unexpected = sorted(set(state) - set(own))
    shapes = sorted(k for k in set(own) & set(state) if tuple(own[k].shape) != tuple(state[k].shape))
    if missing or unexpected or shapes:
        parts = [
            f"{label}: {', '.join(keys[:4])}{' ...' if len(keys) > 4 else ''}"
            for label, keys in (("missing", missing), ("unexpected", unexpected), ("wrong shape", shapes))
            if keys
        ]
        raise ValueError("the checkpoint does not fit the architecture; " + "; ".join(parts))
    model.load_state_dict(state, strict=True)


def read_checkpoint(path: Path) -> Any:
    """A checkpoint file's contents: safetensors, or a torch pickle of tensors and plain values."""
    import torch

    if path.suffix == ".safetensors":
        from safetensors.torch import load_file

        return load_file(str(path))
    try:
        return torch.load(path, map_location="cpu", weights_only=True)
    except pickle.UnpicklingError as exc:
        raise ValueError(
            f"refusing to load {path}: the pickle holds objects other than tensors and plain values and "
            "could run code when loaded; save its state dict as a plain file or safetensors"
        ) from exc


class OpenClipTuned(OpenClip):
    """A compositionality-tuned CLIP checkpoint (a file from the authors) in an open_clip architecture."""

    type_name = "open_clip_tuned"
    Params: ClassVar[type[Any]] = OpenClipTunedParams  # not an OpenClipParams: its own fields

    def identify(self) -> Identity:
        """sha256 of the local file (checked against ``sha256``), or the hub commit of a hub file."""
        p = self.params
        if isinstance(p.arch, str):
            require_open_clip_model(p.arch)
        check_text_repos(p.arch)
        activation = "quickgelu" if p.quick_gelu else "gelu"
        protocol = f"embed/cosine/raw-caption/{p.layout}/{activation}"
        if p.layout == "open_clip_lora":
            protocol += f"/alpha={p.lora_alpha:g}"
        if p.checkpoint.startswith(HUB_PREFIX):
            repo, filename = split_hub_file(p.checkpoint)
            weights = hub_identity(repo, [filename])
        else:
            path = checkpoint_path(p.checkpoint, self.run_config.data_root)
            if not path.is_file():
                raise WeightsUnavailable(
                    f"checkpoint {path} is not there; download it (the registry entry's meta.download says from "
                    "where) and put it at that path under the data root (--data-root, default $VLC_HARNESS_DATA)"
                )
            weights = file_identity(path)
            if p.sha256 and weights != f"sha256:{p.sha256.lower()}":
                raise WeightsUnavailable(
                    f"{path} has {weights}, not the published sha256 {p.sha256}", Reason.WEIGHTS_MISMATCH
                )
        return Identity(weights=weights, dtype=p.precision, protocol=protocol)

    def _file(self) -> Path:
        if not self.params.checkpoint.startswith(HUB_PREFIX):
            return checkpoint_path(self.params.checkpoint, self.run_config.data_root)
        from huggingface_hub import hf_hub_download

        repo, filename = split_hub_file(self.params.checkpoint)
        return Path(hf_hub_download(repo, filename, revision=pinned_revision(self.identify().weights)))

    def load(self, device: str) -> None:
        """Build ``arch`` without weights, map the checkpoint onto it and load it strictly."""
        import open_clip
        import torch

        check_precision(self.params.precision, device)
        name = self._model_name()
        model, _, preprocess = open_clip.create_model_and_transforms(
            name,
            pretrained=None,
            device="cpu",
            pretrained_text=False,
            pretrained_image=False,
            force_quick_gelu=self.params.quick_gelu,
        )
        state = remap_state_dict(read_checkpoint(self._file()), self.params.layout, self.params.lora_alpha)
        load_strictly(model, state)
        self._model = model.to(device).eval()
        self._preprocess = preprocess
        self._tokenizer = open_clip.get_tokenizer(name)
        self._device = device
        self._torch = torch
        self._truncate = self.run.truncate_text and causal_argmax_text_tower(model)


@hookimpl
def register_models(register: Any) -> None:
    """Register the compositionality-tuned open_clip checkpoint type."""
    register(OpenClipTuned)
