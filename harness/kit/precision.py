"""Compute precision for torch models: fp32 weights, with fp16/bf16 autocast on CUDA only.

CPU autocast is refused rather than emulated: on CPUs without native bf16 it is many times
slower and changes results, so a model entry asking for it fails clearly instead.
"""

from __future__ import annotations

from typing import Any

PRECISIONS = ("fp32", "fp16", "bf16")


def check_precision(precision: str, device: str) -> None:
    """Raise ``ValueError`` for an unknown precision, or half precision off CUDA."""
    if precision not in PRECISIONS:
        raise ValueError(f"precision must be one of {', '.join(PRECISIONS)}, not {precision!r}")
    if precision != "fp32" and not device.startswith("cuda"):
        raise ValueError(f"precision {precision} needs a CUDA device (autocast); on {device} use fp32")


def autocast(precision: str) -> Any:
    """The autocast context for ``precision`` (disabled for fp32)."""
    import torch

    if precision == "fp32":
        return torch.autocast(device_type="cpu", enabled=False)
    dtype = torch.float16 if precision == "fp16" else torch.bfloat16
    return torch.autocast(device_type="cuda", dtype=dtype)
