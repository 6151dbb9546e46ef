"""The GPU-time part of ``vlc-harness plan``: each cell's and model's estimate
(:mod:`vlc_harness.gpucost`), the night's total, and their lines in the table."""

from __future__ import annotations

from typing import Any

from vlc_harness.gpucost import ESTIMATED, MEASURED, NO_GPU, GpuEstimate, duration
from vlc_harness.planview.identity import UNKNOWN


def gpu_text(seconds: float | None, bound: bool) -> str:
    """A cell's or model's GPU column: ``12 s``, ``<= 3.5 min`` (an unknown identity) or ``-``."""
    if seconds is None:
        return "-"
    return ("<= " if bound else "") + duration(seconds)


def set_gpu(row: Any, estimate: GpuEstimate, bound: bool) -> None:
    """Put an estimate on a plan row (a cell or a model): seconds, text and basis."""
    row.gpu_seconds, row.gpu_kind, row.gpu_basis = estimate.seconds, estimate.kind, estimate.basis
    if estimate.kind == NO_GPU:
        row.gpu = "no GPU"
    else:
        row.gpu = UNKNOWN if estimate.seconds is None else gpu_text(estimate.seconds, bound)


def gpu_total(models: list[Any]) -> dict[str, Any]:
    """The night's GPU seconds over the models (each model's shared inputs once), split by what
    they rest on; models with work but no number are named, and the total is then a lower bound."""
    total: dict[str, Any] = {"seconds": 0.0, "measured_s": 0.0, "estimated_s": 0.0, "devices": []}
    unknown, bounded = [], []
    for m in models:
        if m.gpu_kind == UNKNOWN:
            if m.work:
                unknown.append(m.id)
            continue
        if m.gpu_seconds is None:
            continue
        total["seconds"] += m.gpu_seconds
        if m.gpu_kind == MEASURED:
            total["measured_s"] += m.gpu_seconds
        elif m.gpu_kind == ESTIMATED:
            total["estimated_s"] += m.gpu_seconds
        if m.unknown and m.gpu_seconds:
            bounded.append(m.id)
    total["devices"] = sorted({_device(m.gpu_basis) for m in models if m.gpu_kind == MEASURED and m.gpu_seconds})
    total["no_number"] = unknown
    total["upper_bound_for"] = bounded
    return total


def _device(basis: str) -> str:
    return basis.removeprefix("measured on ").split(" (")[0]


def gpu_lines(gpu: dict[str, Any]) -> list[str]:
    """The total line (and what it leaves out) under the plan's table."""
    parts = []
    if gpu["measured_s"]:
        parts.append(f"{duration(gpu['measured_s'])} measured on {', '.join(gpu['devices'])}")
    if gpu["estimated_s"]:
        parts.append(f"{duration(gpu['estimated_s'])} estimated from parameter counts")
    floor = "at least " if gpu["no_number"] else ""
    line = f"GPU time: {floor}{duration(gpu['seconds'])} in all" + (f" ({'; '.join(parts)})" if parts else "")
    if gpu["upper_bound_for"]:
        line += f"; an upper bound for {', '.join(gpu['upper_bound_for'])} (identity unknown here)"
    lines = [line]
    if gpu["no_number"]:
        lines.append(f"  no GPU estimate (no parameter count) for: {', '.join(gpu['no_number'])}")
    return lines


__all__ = ["gpu_lines", "gpu_text", "gpu_total", "set_gpu"]
