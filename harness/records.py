"""The records a store gives back: a cell (:class:`CellRecord`) and one instance's outcome (:class:`Outcome`).

Plain data, apart from the database code that reads and writes them (:mod:`vlc_harness.store`), so that a
reader of results (the board, a board bundle's renderer) needs no database library to hold them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from vlc_harness.status import Status

__all__ = ["CellRecord", "Outcome"]


@dataclass
class CellRecord:
    """The record of one (model, benchmark) evaluation.

    ``status`` is one of ``ok``, ``partial`` (``--limit`` or interrupted), ``failed``,
    ``unavailable`` (data or weights cannot be had here) and ``skipped`` (a
    :class:`~vlc_harness.status.Status`; a string given is read as one); a cell that is not ``ok``
    says why in ``error`` (for people) and ``reason_code`` (a :class:`~vlc_harness.reasons.Reason`
    value, for the board).
    """

    model_id: str
    benchmark_id: str
    benchmark_type: str
    status: Status
    fingerprint: str = ""
    data_version: str = ""
    manifest_hash: str = ""
    n_instances: int = 0
    n_scored: int = 0
    n_failed: int = 0
    instance_limit: int | None = None
    complete: bool = False
    error: str | None = None
    reason_code: str | None = None
    metrics: list[dict[str, Any]] = field(default_factory=list)
    provenance: dict[str, Any] = field(default_factory=dict)
    run_id: int | None = None
    created_at: str = ""
    id: int | None = None
    metrics_version: str | None = None
    """What the metrics were computed under (:func:`vlc_harness.metrics.cell.metrics_version`);
    ``None`` for a v0.1 cell, which is rebuilt from its stored scores."""
    inputs_hash: str | None = None
    """sha256 of the sorted (image key, text) pairs (or question keys) the cell read."""
    replicates: dict[tuple[str, str], Any] | None = None
    """Every value's bootstrap replicates, by (metric, category); loaded only on request."""
    reused: bool = False
    """Set on a stored cell that a run reused as it was (not stored: a property of the run)."""

    def __post_init__(self) -> None:
        self.status = Status(self.status)  # type: ignore[call-arg]  # a lookup by value; mypy reads __new__


@dataclass(frozen=True)
class Outcome:
    """One instance of a cell: its score matrix (or its answers), or the error that kept it out.

    ``text_scores[a][b]`` is the text-text score of texts ``a`` and ``b`` where the benchmark's
    metrics read one (SugarCrepe++'s text-only task), else ``None``.
    """

    instance_id: str
    category: str
    scores: list[list[float | None]] | None
    error: str | None = None
    answers: list[dict[str, Any]] | None = None
    text_scores: list[list[float | None]] | None = None
