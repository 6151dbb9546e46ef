"""The site manifest (``manifest.json``): every cell a site shows, with what keys its number.

Every rendered site and every frozen release carries one at its root::

    {"schema": 1, "cells": [{"model": ..., "benchmark": ..., "model_fingerprint": ...,
      "benchmark_fingerprint": ..., "data_version": ..., "metric": ..., "value": 0.731 | null}, ...]}

sorted by (benchmark, model). ``value`` is the headline value of a published (complete) cell and
``null`` for a cell the board lists without a number (unavailable, failed, partial). The benchmark
fingerprint is the benchmark side of the cell's key: its type, instance manifest, the inputs it read
and the metrics version (metric code, params, resample count), so a value that moves with any of
them moves with a new fingerprint.

:func:`~vlc_leaderboard.manifest_rules.refusals` compares a published manifest with a new one: ``render``
refuses a site that would lose a published value, or change one whose model fingerprint, benchmark
fingerprint and data version are all unchanged (and the deploy check, :mod:`vlc_leaderboard.verify_site`,
refuses such a site again).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from vlc_harness.results import CellRecord
from vlc_harness.types import canonical_json
from vlc_leaderboard.board import Board
from vlc_leaderboard.manifest_rules import (
    FILE,
    KEYS,
    SAME_VALUE,
    SCHEMA,
    Refusal,
    changes,
    read_manifest,
    refusals,
)

__all__ = [
    "FILE",
    "KEYS",
    "SAME_VALUE",
    "SCHEMA",
    "Refusal",
    "benchmark_fingerprint",
    "cell_entries",
    "changes",
    "read_manifest",
    "refusals",
    "site_manifest",
    "write_manifest",
]


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
