"""Shared helpers of the image-blind Hugging Face model plugins (``blind_*``); registers nothing.

* :func:`checkpoint_identity`: ``hf:<repo>@<commit>`` for a hub checkpoint name, or
  ``local-dir:sha256:<hex>`` (a digest of every file's name and sha256) for a local folder.
* :func:`load_checked`: ``from_pretrained`` pinned to the identified commit, refusing a checkpoint
  that leaves any weight of the architecture uninitialised (a classifier head missing from a base
  model checkpoint would otherwise score with random weights).

Heavy imports (torch, transformers, tokenizers) happen inside the functions only.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from vlc_harness.kit.weights import dir_identity, hub_identity, pinned_revision

HF_WEIGHT_FILES = (
    "model.safetensors",
    "model.safetensors.index.json",
    "pytorch_model.bin",
    "pytorch_model.bin.index.json",
)
"""The weight files whose presence in the local hub cache identifies a cached checkpoint."""
PRECISIONS = ("fp32", "bf16", "fp16")


def is_local_path(checkpoint: str) -> bool:
    """True for a name that can only be a local path (absolute, ``./``, ``../``, ``~``)."""
    return checkpoint.startswith(("/", "./", "../", "~")) or Path(checkpoint).expanduser().is_dir()


def checkpoint_identity(checkpoint: str, extra_files: Sequence[str] = ()) -> str:
    """``local-dir:sha256:<hex>`` for a local folder, else ``hf:<repo>@<commit>`` of a hub name.

    A hub name is resolved online (short timeout) or from the local cache; neither raises
    :class:`~vlc_harness.errors.WeightsUnavailable`. A local path that does not exist raises
    :class:`FileNotFoundError`.
    """
    if is_local_path(checkpoint):
        path = Path(checkpoint).expanduser()
        if not path.is_dir():
            raise FileNotFoundError(f"local checkpoint folder {path} does not exist")
        return "local-dir:sha256:" + dir_identity(path)
    return hub_identity(checkpoint, [*HF_WEIGHT_FILES, *extra_files])


def load_source(checkpoint: str, weights: str | None) -> tuple[str, dict[str, Any]]:
    """What to pass to ``from_pretrained``: the folder or repo, and the pinned ``revision``.

    ``weights`` is the identity from :func:`checkpoint_identity` (``None`` if not identified);
    a hub checkpoint is then loaded at exactly the identified commit.
    """
    if is_local_path(checkpoint):
        return str(Path(checkpoint).expanduser()), {}
    revision = pinned_revision(weights or "")
    return checkpoint, ({"revision": revision} if revision else {})


def torch_dtype(precision: str, device: str) -> Any:
    """The torch dtype of a precision name; fp16 needs a CUDA device."""
    import torch

    if precision not in PRECISIONS:
        raise ValueError(f"precision must be one of {', '.join(PRECISIONS)}, got {precision!r}")
    if precision == "fp16" and not device.startswith("cuda"):
        raise ValueError(f"precision fp16 needs a CUDA device; on {device} use fp32 or bf16")
    return {"fp32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}[precision]


def load_checked(model_cls: Any, source: str, dtype: Any, device: str, **kwargs: Any) -> Any:
    """``model_cls.from_pretrained`` in eval mode on ``device``; raise if any weight is missing.

    Unexpected keys (a full T5 checkpoint loaded as its encoder) are fine; missing or
    shape-mismatched keys mean part of the model would be randomly initialised, which is refused.
    """
    model, info = model_cls.from_pretrained(source, dtype=dtype, output_loading_info=True, **kwargs)
    missing = sorted(info.get("missing_keys") or [])
    mismatched = list(info.get("mismatched_keys") or [])
    if missing or mismatched:
        shown = ", ".join([*missing[:5], *[str(m[0]) for m in mismatched[:5]]])
        raise ValueError(
            f"checkpoint {source} does not fit {model_cls.__name__}: {len(missing)} missing and "
            f"{len(mismatched)} mismatched weight(s) ({shown}); refusing to score with random weights"
        )
    return model.to(device).eval()
