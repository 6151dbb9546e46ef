"""Ranks and order: per index metric, 1 + the models significantly better on the same resamples;
rows by mean headline rank over the benchmarks a model has, once it has half of them, never below a model
they dominate (:data:`ORDER_RULE`, :mod:`vlc_leaderboard.order`);
whether an image-blind model beats the median model (hackable).

Only cells over the same instances with the same resample count are compared (paired bootstrap,
:func:`vlc_harness.results.significance` on the stored replicates). A value whose outcomes are at
least half ties is ranked on its ``<metric>_ties_half`` replicates. Baselines are references:
never ranked.
"""

from __future__ import annotations

import statistics
from dataclasses import replace
from fractions import Fraction

import numpy as np

from vlc_harness.results import BETTER, pairable, pairing_key, ranks_from, replicates, significance
from vlc_leaderboard.columns import BenchmarkColumn
from vlc_leaderboard.magnitude import magnitude
from vlc_leaderboard.order import dominance_order, point_values
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
            verdicts = significance(matrix, direction)
            for k, ((row, _, on_half), rank) in enumerate(zip(group, ranks_from(verdicts))):
                cv = row.cells[col.id]
                better = tuple(group[j][0].id for j in np.flatnonzero(verdicts[:, k] == BETTER))
                cv.values[mc.metric] = replace(
                    cv.values[mc.metric],
                    rank=int(rank),
                    ranked_on_ties_half=on_half,
                    ranked_among=len(group),
                    significantly_better=better,
                )


ORDER_RULE = (
    "no model is listed below one it dominates (at least as good on every benchmark both have, two or more, "
    "and better on one); otherwise a model ranked on at least half of them is ordered by its mean headline rank "
    "over the benchmarks it has (on equal means, more benchmarks first), models ranked on fewer follow, most "
    "benchmarks first, and models that dominate one another in a circle (possible when coverage differs) keep "
    "that order among themselves; baselines are not ranked"
)
"""The index's order, after "N benchmarks rank models; " (shown above the table; :func:`order_key` is the rule)."""


def order_key(overall: Overall | None) -> tuple[int, Fraction, Fraction]:
    """A row's place in the overall order, compared as a tuple (a total order; equal keys keep the
    registry's order): first the models ranked on at least :data:`~vlc_leaderboard.rows.MIN_COVERAGE` of
    the benchmarks, by exact mean rank then more benchmarks; then the others by more benchmarks then mean
    rank; then the unranked."""
    if overall is None or overall.exact_mean_rank is None:
        return (2, Fraction(0), Fraction(0))
    if overall.by_mean:
        return (0, overall.exact_mean_rank, Fraction(-overall.k))
    return (1, Fraction(-overall.k), overall.exact_mean_rank)


def order_rows(rows: list[Row], columns: list[BenchmarkColumn]) -> list[Row]:
    """Rows in the overall order (:func:`order_key`, :data:`ORDER_RULE`); each model's headline ranks
    over the benchmarks that rank anyone are its :class:`Overall`. Baselines are references: never ranked."""
    counted = [c for c in columns if c.ranked]
    for row in rows:
        row.magnitude = magnitude(row, counted)
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
    points = [{} if r.overall is None else point_values(r, counted) for r in rows]
    ordered = dominance_order(rows, points, lambda r: order_key(r.overall))  # equal keys keep the registry's order
    for position, row in enumerate((r for r in ordered if r.overall is not None and r.overall.by_mean), 1):
        assert row.overall is not None
        row.overall.position = position
    for place, row in enumerate((r for r in ordered if r.overall is not None and r.overall.ranks), 1):
        assert row.overall is not None
        row.overall.place = place
    return ordered


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
