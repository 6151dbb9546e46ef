"""Ranks and order: per index metric, 1 + the models significantly better on the same resamples;
rows by mean headline rank; whether an image-blind model beats the median model (hackable).

Only cells over the same instances with the same resample count are compared (paired bootstrap,
:func:`vlc_harness.results.significance` on the stored replicates). A value whose outcomes are at
least half ties is ranked on its ``<metric>_ties_half`` replicates. Baselines are references:
never ranked.
"""

from __future__ import annotations

import statistics
from dataclasses import replace

import numpy as np

from vlc_harness.results import pairable, pairing_key, ranks_from, replicates, significance
from vlc_leaderboard.columns import BenchmarkColumn
from vlc_leaderboard.rows import CellView, Overall, Row


def _replicates(cv: CellView, metric: str, category: str = "all") -> tuple[np.ndarray | None, bool]:
    """The stored replicates a value is ranked on, and whether they are the ties-half ones."""
    if cv.cell is None:
        return None, False
    value = cv.values.get(metric) if category == "all" else cv.drill.get(category)
    if cv.tie_heavy or (value is not None and value.tie_heavy):
        half = replicates(cv.cell, metric + "_ties_half", category)
        if half is not None:
            return half, True
    return replicates(cv.cell, metric, category), False


def rank_column(col: BenchmarkColumn, rows: list[Row]) -> None:
    """Per index metric: 1 + the number of models significantly better on the same resamples
    (paired bootstrap; only cells over the same instances with the same resamples are compared).
    Tie-heavy values are ranked on their ties-half replicates."""
    for mc in col.metrics:
        groups: dict[tuple[str, int], list[tuple[Row, np.ndarray, bool]]] = {}
        for row in rows:
            cv = row.cells.get(col.id)
            if cv is None or not cv.published or cv.cell is None or row.kind == "baseline":
                continue
            if mc.metric not in cv.values or not cv.cell.metrics_version:
                continue
            reps, on_half = _replicates(cv, mc.metric)
            if reps is not None and pairable(reps):
                groups.setdefault(pairing_key(cv.cell, reps), []).append((row, reps, on_half))
        for group in groups.values():
            matrix = np.stack([reps for _, reps, _ in group])
            direction = mc.higher_is_better
            for (row, _, on_half), rank in zip(group, ranks_from(significance(matrix, direction))):
                cv = row.cells[col.id]
                cv.values[mc.metric] = replace(
                    cv.values[mc.metric], rank=int(rank), ranked_on_ties_half=on_half, ranked_among=len(group)
                )


def order_rows(rows: list[Row], columns: list[BenchmarkColumn]) -> list[Row]:
    """Rows by the overall column: complete models by mean headline rank, then the others by how
    many benchmarks they have (then their mean rank), then baselines and unranked models."""
    counted = [c for c in columns if c.ranked]
    for row in rows:
        if row.kind == "baseline":
            row.overall = None
            continue
        ranks = {}
        for col in counted:
            cv = row.cells.get(col.id)
            value = cv.values.get(col.metrics[0].metric) if cv is not None and cv.published else None
            if value is not None and value.rank:
                ranks[col.id] = value.rank
        row.overall = Overall(ranks, len(counted))
    complete = sorted((r for r in rows if r.overall and r.overall.complete), key=lambda r: r.overall.mean_rank or 0)
    for position, row in enumerate(complete, 1):
        assert row.overall is not None
        row.overall.position = position
    partial = [r for r in rows if r.overall and not r.overall.complete and r.overall.k]
    partial.sort(key=lambda r: (-r.overall.k, r.overall.mean_rank or 0) if r.overall else (0, 0.0))
    ranked = {r.id for r in complete + partial}
    return complete + partial + [r for r in rows if r.id not in ranked]


def hackable(col: BenchmarkColumn, rows: list[Row]) -> bool:
    """A blind model (ties counted half) beats the median vision-language model on the headline."""
    if not col.metrics:
        return False
    headline = col.metrics[0]
    vlm = [r.cells[col.id].values[headline.metric].value for r in rows if _has(r, col, headline.metric, "model")]
    blind = [r.cells[col.id].values[headline.metric].ties_half for r in rows if _has(r, col, headline.metric, "blind")]
    if not vlm or not blind:
        return False
    median = statistics.median(vlm)
    return any((b > median) if headline.higher_is_better else (b < median) for b in blind)


def _has(row: Row, col: BenchmarkColumn, metric: str, kind: str) -> bool:
    cv = row.cells.get(col.id)
    return row.kind == kind and cv is not None and cv.published and metric in cv.values
