"""``vlc-harness plan --format json``: the plan as one JSON document, numbered by its schema.

``plan --diff REF`` reads REF's document, printed by REF's own code, so the fields a diff compares
are a contract between revisions: :data:`PLAN_SCHEMA` numbers it (raise it when one of
:data:`MODEL_FIELDS` or :data:`BENCHMARK_FIELDS` changes meaning or goes), and
:func:`base_problem` refuses a document that does not keep it.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from vlc_harness.planview.grid import GridPlan

PLAN_SCHEMA = 1
"""The number of the document's schema (1: the first to carry every field a diff compares)."""
MODEL_FIELDS = ("id", "fingerprint", "declared", "weights", "unknown", "failed", "not_identified")
"""What a diff reads of each model (and ``stack`` where both documents have it: a revision from before
the scoring stack entered the fingerprint has none, and its fingerprints all differ)."""
BENCHMARK_FIELDS = ("id", "declared", "data_version", "manifest", "metrics_version")
"""What a diff reads of each benchmark."""


def plan_json(plan: GridPlan) -> dict[str, Any]:
    """The plan as JSON: ``{schema, store_note, models, benchmarks, cells, gpu, constraints, off_pin}``."""
    return {
        "schema": PLAN_SCHEMA,
        "store_note": plan.store_note,
        "models": [asdict(m) for m in plan.models],
        "benchmarks": plan.benchmarks,
        "cells": [asdict(c) for c in plan.cells],
        "gpu": plan.gpu,
        "constraints": plan.constraints,
        "off_pin": plan.off_pin,
    }


def base_problem(doc: Any, ref: str) -> str | None:
    """Why REF's document cannot be compared with this checkout's (in one line), else ``None``."""
    what = f"{ref}'s plan --format json"
    if not isinstance(doc, dict) or "schema" not in doc:
        return f"{what} has no schema: it predates plan schema {PLAN_SCHEMA}"
    schema = doc["schema"]
    if not isinstance(schema, int) or schema < PLAN_SCHEMA:
        return f"{what} has schema {schema!r}: it predates plan schema {PLAN_SCHEMA}"
    if schema > PLAN_SCHEMA:
        return f"{what} has schema {schema}, newer than this checkout's ({PLAN_SCHEMA}): update this checkout"
    for key, fields in (("models", MODEL_FIELDS), ("benchmarks", BENCHMARK_FIELDS)):
        entries = doc.get(key)
        if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
            return f"{what} has no list of {key}, which plan schema {PLAN_SCHEMA} requires"
        for field in fields:
            if any(field not in e for e in entries):
                return f"{what} has no {key}[].{field}, which plan schema {PLAN_SCHEMA} requires"
    return None


__all__ = ["BENCHMARK_FIELDS", "MODEL_FIELDS", "PLAN_SCHEMA", "base_problem", "plan_json"]
