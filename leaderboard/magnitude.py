"""One number per model: how far above chance and how close to human it is (issue 41, item 2).

Per benchmark the headline value ``s`` (the one it is ranked on: ties broken at random where ties
dominate) is placed between chance ``c`` and the human value ``h``: ``(s - c) / (h - c)``, 0 at chance
and 1 at human level, in the metric's direction (for a lower-is-better metric ``h < c`` and the
formula reads the same way). Where the benchmark has no human value on the board's data version the
metric's best possible value stands in (1 for a fraction where higher is better, 0 where lower is
better), and the board says on which benchmarks it did. A benchmark whose headline declares no chance
level, or whose values are raw model scores, has no place on that scale and is left out.

The model's magnitude is the unweighted mean over the benchmarks it has; its 95% interval is the
percentile interval of the same mean over the stored bootstrap replicates (replicate ``r`` of every
benchmark taken together: the benchmarks' resamples are independent, so this draws from their joint
distribution). Without replicates on one of its benchmarks the magnitude has no interval, and says so.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from vlc_harness.results import pairable, replicates
from vlc_leaderboard.columns import BenchmarkColumn
from vlc_leaderboard.fmt import metric_unit
from vlc_leaderboard.rows import Row


@dataclass
class Magnitude:
    """A model's place between chance (0) and human (1), averaged over its benchmarks."""

    value: float
    ci95: tuple[float, float] | None
    benchmarks: list[str] = field(default_factory=list)
    """The benchmark ids it averages over."""
    stand_ins: list[str] = field(default_factory=list)
    """Those of :attr:`benchmarks` without a human value: the metric's best value stands in."""
    no_interval: str = ""
    """Why :attr:`ci95` is ``None``."""


def scale(col: BenchmarkColumn) -> tuple[float, float, bool] | None:
    """(chance, human or the metric's best value, whether the best value stands in) of a column's headline;
    ``None`` where it has no place on the scale (no chance level, raw scores, or human at chance)."""
    if not col.metrics:
        return None
    head = col.metrics[0]
    if head.chance is None or metric_unit(head.metric) != "percent":
        return None
    stand_in = head.human is None
    top = (1.0 if head.higher_is_better else 0.0) if stand_in else float(head.human)  # type: ignore[arg-type]
    if top == head.chance:
        return None
    return float(head.chance), top, stand_in


def magnitude(row: Row, columns: Sequence[BenchmarkColumn]) -> Magnitude | None:
    """The row's magnitude over the ``columns`` it has a published headline on (``None``: none)."""
    points: list[float] = []
    reps: list[np.ndarray | None] = []
    used: list[str] = []
    stand_ins: list[str] = []
    for col in columns:
        cv = row.cells.get(col.id)
        found = scale(col)
        if found is None or cv is None or not cv.published:
            continue
        shown = cv.values.get(col.metrics[0].metric)
        if shown is None:
            continue
        chance, top, stand_in = found
        on_half = shown.ranked_on_ties_half or shown.ties_broken_first
        point = shown.shown if on_half else shown.value
        points.append((point - chance) / (top - chance))
        metric = col.metrics[0].metric + ("_ties_half" if on_half else "")
        array = replicates(cv.cell, metric) if cv.cell is not None else None
        reps.append((array - chance) / (top - chance) if array is not None and pairable(array) else None)
        used.append(col.id)
        if stand_in:
            stand_ins.append(col.id)
    if not points:
        return None
    value = float(np.mean(points))
    if any(r is None for r in reps):
        return Magnitude(value, None, used, stand_ins, "a benchmark it has stores no bootstrap replicates")
    length = min(len(r) for r in reps if r is not None)
    joint = np.mean(np.stack([r[:length] for r in reps if r is not None]), axis=0)
    if not np.isfinite(joint).all():
        return Magnitude(value, None, used, stand_ins, "a benchmark it has stores replicates that are not all numbers")
    low, high = np.percentile(joint, [2.5, 97.5])
    return Magnitude(value, (float(low), float(high)), used, stand_ins)


def at_glance(rows: Sequence[Row], columns: Sequence[BenchmarkColumn], top: int = 10) -> dict[str, object]:
    """The top of the board for the first screen: the first ``top`` ranked models in the overall order
    with their magnitude, and the titles of the benchmarks whose maximum stands in for a human value
    (``stand_ins``) or that have no place on the scale (``left_out``)."""
    ranked = [r for r in rows if r.overall is not None and r.overall.place is not None][:top]
    counted = [c for c in columns if c.ranked]
    return {
        "rows": ranked,
        "stand_ins": [c.title for c in counted if (s := scale(c)) is not None and s[2]],
        "left_out": [c.title for c in counted if scale(c) is None],
    }
