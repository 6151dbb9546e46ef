"""A stored cell's values as records: each metric's number, interval and counts, and its replicates.

The engine writes a cell's metrics as rows (``metric``, ``category``, ``value``, ``ci95``, ``n``,
``ties``, ``tie_rule``, ``averaging``, ``headline``; :func:`vlc_harness.metrics.cell.cell_metrics`)
and its bootstrap replicates per (metric, category). These functions read them back without
computing anything: a value is what was stored, an interval the stored one.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from vlc_harness.records import CellRecord
from vlc_harness.status import Status


@dataclass(frozen=True)
class StoredValue:
    """One stored metric value of a cell, as the engine wrote it."""

    metric: str
    category: str
    value: float
    ci95: tuple[float, float] | None
    """The stored 95% percentile interval; ``None`` when the cell has none (no resamples)."""
    n: int
    ties: int
    tie_rule: str
    averaging: str
    headline: bool
    record: Mapping[str, Any]
    """The stored row itself, for exports that keep every field as stored (never modify it)."""

    @classmethod
    def of(cls, row: Mapping[str, Any]) -> StoredValue:
        """The value of one stored metric row."""
        ci = row.get("ci95")
        return cls(
            str(row["metric"]),
            str(row["category"]),
            float(row["value"]),
            tuple(ci) if ci else None,
            int(row.get("n") or 0),
            int(row.get("ties") or 0),
            row.get("tie_rule", ""),
            row.get("averaging", ""),
            bool(row.get("headline")),
            row,
        )


def is_published(cell: CellRecord) -> bool:
    """A complete cell (``ok``): the only kind whose numbers a board shows."""
    return cell.status == Status.OK and cell.complete


def stored_values(cell: CellRecord, category: str | None = None) -> list[StoredValue]:
    """Every stored value of ``cell`` in its stored order (only ``category``'s, when given)."""
    return [StoredValue.of(m) for m in cell.metrics if category is None or m["category"] == category]


def stored_value(cell: CellRecord, metric: str, category: str = "all") -> StoredValue | None:
    """One stored value of ``cell``, or ``None`` when it has no such metric and category."""
    for m in cell.metrics:
        if m["metric"] == metric and m["category"] == category:
            return StoredValue.of(m)
    return None


def replicates(cell: CellRecord, metric: str, category: str = "all") -> np.ndarray | None:
    """The value's bootstrap replicates as stored, or ``None`` where the cell holds none for it:
    replicates not loaded (``with_replicates``), none stored for the value, or a v0.1 cell (no
    metrics version: its resamples are not the engine's, so they pair with no other cell's)."""
    if not cell.metrics_version:
        return None
    found = (cell.replicates or {}).get((metric, category))
    return None if found is None else np.asarray(found, dtype=np.float64)


def pairable(reps: np.ndarray | None) -> bool:
    """Replicates that can be compared: one value per resample (a 1-D array, not empty)."""
    return reps is not None and reps.ndim == 1 and len(reps) > 0


def pairing_key(cell: CellRecord, reps: np.ndarray) -> tuple[str, int]:
    """Replicates of two cells pair up (the same resamples) when these keys are equal: the same
    instances (manifest hash) and the same resample count
    (:mod:`vlc_harness.metrics.bootstrap`)."""
    return cell.manifest_hash, len(reps)
