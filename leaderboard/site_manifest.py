"""The site manifest (``manifest.json``): every cell a site shows, with what keys its number.

Every rendered site and every frozen release carries one at its root::

    {"schema": 1, "cells": [{"model": ..., "benchmark": ..., "model_fingerprint": ...,
      "benchmark_fingerprint": ..., "data_version": ..., "metric": ..., "value": 0.731 | null}, ...]}

sorted by (benchmark, model). ``value`` is the headline value of a published (complete) cell and
``null`` for a cell the board lists without a number (unavailable, failed, partial). The benchmark
fingerprint is the benchmark side of the cell's key: its type, instance manifest, the inputs it read
and the metrics version (metric code, params, resample count), so a value that moves with any of
them moves with a new fingerprint.

:func:`refusals` compares a published manifest with a new one: ``render`` refuses a site that would
lose a published value, or change one whose model fingerprint, benchmark fingerprint and data version
are all unchanged.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vlc_harness.results import CellRecord
from vlc_harness.types import canonical_json
from vlc_leaderboard.board import Board

FILE = "manifest.json"
SCHEMA = 1
SAME_VALUE = 1e-9
"""Two values closer than this are the same number: it absorbs float summation order, and is far
below one instance's weight in any benchmark (1 / n instances)."""
KEYS = ("model_fingerprint", "benchmark_fingerprint", "data_version")
"""What keys a cell's number: a value may change only where one of these changes."""


def benchmark_fingerprint(cell: CellRecord) -> str:
    """sha256 of the benchmark side of a stored cell: type, instance manifest, inputs read, metrics version."""
    content = {
        "type": cell.benchmark_type,
        "manifest_hash": cell.manifest_hash,
        "inputs_hash": cell.inputs_hash or "",
        "metrics_version": cell.metrics_version or "",
    }
    return hashlib.sha256(canonical_json(content).encode()).hexdigest()


def cell_entries(board: Board) -> list[dict[str, Any]]:
    """One entry per (model, benchmark) the board lists with a stored cell, sorted by (benchmark, model)."""
    entries = []
    for col in board.benchmarks:
        metric = col.metrics[0].metric if col.metrics else ""
        for row in board.rows:
            cv = row.cells.get(col.id)
            if cv is None or cv.cell is None:
                continue
            shown = cv.values.get(metric) if cv.published else None
            entries.append(
                {
                    "model": row.public_id,
                    "benchmark": col.id,
                    "model_fingerprint": cv.cell.fingerprint,
                    "benchmark_fingerprint": benchmark_fingerprint(cv.cell),
                    "data_version": cv.cell.data_version,
                    "metric": metric,
                    "value": shown.value if shown is not None else None,
                }
            )
    return sorted(entries, key=lambda e: (e["benchmark"], e["model"]))


def site_manifest(board: Board) -> dict[str, Any]:
    """The manifest of a site rendered from ``board``."""
    return {"schema": SCHEMA, "cells": cell_entries(board)}


def write_manifest(board: Board, out: Path) -> Path:
    """Write ``out/manifest.json`` (stable bytes: sorted keys, one cell a line)."""
    data = site_manifest(board)
    lines = ",\n".join(json.dumps(c, sort_keys=True, ensure_ascii=True) for c in data["cells"])
    body = f'{{"schema": {SCHEMA}, "cells": [\n{lines}\n]}}\n' if lines else f'{{"schema": {SCHEMA}, "cells": []}}\n'
    path = out / FILE
    path.write_text(body, encoding="utf-8")
    return path


def read_manifest(site: Path) -> dict[str, Any] | None:
    """The manifest published in ``site``, ``None`` where it has none; ``ValueError`` when it is unreadable."""
    path = site / FILE
    if not path.exists():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ValueError(f"cannot read {path}: {exc}") from None
    if not isinstance(data, dict) or not isinstance(data.get("cells"), list):
        raise ValueError(f"{path} is not a site manifest (no list of cells)")
    return data


@dataclass(frozen=True)
class Refusal:
    """A published value the new site would lose, or change while everything that keys it stayed."""

    kind: str
    """``lost`` or ``changed``."""
    model: str
    benchmark: str
    metric: str
    old: float
    new: float | None = None

    def line(self) -> str:
        """One line for the maintainer."""
        where = f"{self.model} x {self.benchmark} ({self.metric} {self.old:.4f}"
        if self.kind == "lost":
            return f"lost: {where} no longer published)"
        return f"changed: {where} -> {self.new:.4f}, same model and benchmark fingerprints and data version)"


def refusals(published: dict[str, Any], new: dict[str, Any]) -> list[Refusal]:
    """What keeps ``new`` from replacing ``published``: values lost, and values changed without a key change."""
    after = {(c["model"], c["benchmark"]): c for c in new.get("cells", [])}
    out = []
    for old in published.get("cells", []):
        if old.get("value") is None:
            continue
        now = after.get((old["model"], old["benchmark"]))
        args = (old["model"], old["benchmark"], str(old.get("metric", "")), float(old["value"]))
        if now is None or now.get("value") is None:
            out.append(Refusal("lost", *args))
        elif all(now.get(k) == old.get(k) for k in KEYS) and not _same(now["value"], old["value"]):
            out.append(Refusal("changed", *args, float(now["value"])))
    return out


def changes(published: dict[str, Any], new: dict[str, Any]) -> dict[str, int]:
    """Counts of what ``new`` adds to ``published``: new values, and values changed with a new key."""
    before = {(c["model"], c["benchmark"]): c for c in published.get("cells", []) if c.get("value") is not None}
    added = moved = 0
    for cell in new.get("cells", []):
        if cell.get("value") is None:
            continue
        old = before.get((cell["model"], cell["benchmark"]))
        if old is None:
            added += 1
        elif not _same(cell["value"], old["value"]):
            moved += 1
    return {"new": added, "changed": moved}


def _same(a: Any, b: Any) -> bool:
    return abs(float(a) - float(b)) <= SAME_VALUE
