"""``vlc-harness plan --diff REF``: what changed between two plan documents
(:mod:`vlc_harness.planview.document`), this checkout's and REF's (:mod:`vlc_harness.planview.revision`).

A cell is ``added`` (a new model or benchmark), ``changed`` (with why), ``unknown`` (the model's
identity cannot be had on a side and nothing declared changed) or unchanged (not listed); cells
of REF that this selection no longer has are ``removed``.
"""

from __future__ import annotations

from typing import Any

from vlc_harness.planview.identity import NO_FINGERPRINT, UNKNOWN
from vlc_harness.stack import stack_change


def diff_plans(
    current: dict[str, Any], base: dict[str, Any] | None, ref: str, commit: str, error: str | None
) -> dict[str, Any]:
    """Cells added, changed (with why) or undecidable (``unknown``) since ``base``, and cells removed.

    ``base`` is REF's plan document (``None`` with ``error``, why it could not be had): nothing is
    compared then, and the diff carries the error.
    """
    models = {m["id"]: m for m in current["models"]}
    benchmarks = {b["id"]: b for b in current["benchmarks"]}
    old = base if error is None else None
    compared = old is not None
    old_models = {m["id"]: m for m in old["models"]} if old is not None else {}
    old_benchmarks = {b["id"]: b for b in old["benchmarks"]} if old is not None else {}
    cells = []
    for m_id, model in models.items() if compared else ():
        for b_id, bench in benchmarks.items():
            old_m, old_b = old_models.get(m_id), old_benchmarks.get(b_id)
            if old_m is None or old_b is None:
                why = [w for w, new in (("new model", old_m is None), ("new benchmark", old_b is None)) if new]
                cells.append({"model": m_id, "benchmark": b_id, "change": "added", "why": why})
                continue
            why, unknown = _model_change(model, old_m)
            why += _benchmark_change(bench, old_b)
            if why:
                cells.append({"model": m_id, "benchmark": b_id, "change": "changed", "why": why})
            elif unknown:
                cells.append({"model": m_id, "benchmark": b_id, "change": "unknown", "why": [unknown]})
    removed = [
        {"model": m, "benchmark": b}
        for m in old_models
        for b in old_benchmarks
        if m not in models or b not in benchmarks
    ]
    return {"ref": ref, "commit": commit, "error": error, "cells": cells, "removed": removed}


def _known(model: dict[str, Any]) -> bool:
    return model["fingerprint"] not in (UNKNOWN, NO_FINGERPRINT)


def _model_change(new: dict[str, Any], old: dict[str, Any]) -> tuple[list[str], str | None]:
    stack = _stack_change(new, old)
    if _known(new) and _known(old):
        if new["fingerprint"] == old["fingerprint"]:
            return [], None
        why = []
        if new["declared"] != old["declared"]:
            why.append("model params or scoring code")
        elif new["weights"] != old["weights"]:
            why.append("model weights")
        return (why + stack) or ["model fingerprint"], None
    why = []
    if new["declared"] and old["declared"] and new["declared"] != old["declared"]:
        why.append("model params or scoring code (weights identity unknown here)")
    if why or stack:
        return why + stack, None
    reasons = [m[k] for k in ("unknown", "failed", "not_identified") for m in (new, old)]
    return [], "model identity unknown here: " + next((r for r in reasons if r), "")


def _stack_change(new: dict[str, Any], old: dict[str, Any]) -> list[str]:
    """``scoring stack (transformers 5.24.0 -> 5.25.0)`` where the two stacks differ (a revision from
    before the stack entered the fingerprint has none: every fingerprint of it differs)."""
    if new.get("stack") is None:
        return []
    if "stack" not in old:
        return ["scoring stack (the other revision's fingerprints leave it out)"]
    if old["stack"] is None or old["stack"] == new["stack"]:
        return []
    return [f"scoring stack ({stack_change(old['stack'], new['stack'])})"]


def _benchmark_change(new: dict[str, Any], old: dict[str, Any]) -> list[str]:
    why = []
    if new["manifest"] and old["manifest"]:
        if new["manifest"] != old["manifest"]:
            why.append("instances")
    elif new["declared"] != old["declared"]:
        why.append("benchmark params")
    if new["data_version"] != old["data_version"] and "instances" not in why:
        why.append("data version")
    if new["metrics_version"] and old["metrics_version"] and new["metrics_version"] != old["metrics_version"]:
        why.append("metrics")
    return why


__all__ = ["diff_plans"]
