"""The compare view's data: per-category values and paired-bootstrap significance for every pair
of models.

Everything is precomputed, so the compare page is static files: ``data/compare.js`` holds, per
benchmark, the headline and index metrics overall and the headline's categories (its drilldown),
each with every model's value and, for every pair of models, whether one is significantly better
on the same resamples (from the stored per-category replicates; pairs over different instances or
resample counts are not compared). Values, intervals and replicates are the stored ones
(:mod:`vlc_harness.results`); nothing here computes a metric. The instance browser below the tables
has its own data (:mod:`vlc_leaderboard.instances`, :mod:`vlc_leaderboard.instance_files`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from vlc_harness.results import pairable, pairing_key, replicates, stored_value
from vlc_leaderboard.board import BenchmarkColumn, Board, Row
from vlc_leaderboard.families import FamilyStyles
from vlc_leaderboard.fmt import metric_title, slug
from vlc_leaderboard.stats import pair_codes


def compared_rows(board: Board) -> list[Row]:
    """The models the compare view offers: those with a published cell."""
    return [r for r in board.rows if any(cv.published for cv in r.cells.values())]


def _lines(col: BenchmarkColumn) -> list[tuple[str, str, str]]:
    """(metric, category, label) of the values compared on a benchmark."""
    out = [(mc.metric, "all", metric_title(mc.metric)) for mc in col.metrics]
    if col.drill is not None:
        out += [(col.drill.metric, c, c) for c in col.drill.categories]
    return out


def compare_data(board: Board) -> dict[str, Any]:
    """``window.vlcCompare``: models, and per benchmark its compared values and pair codes."""
    rows = compared_rows(board)
    styles = FamilyStyles.of_rows(board.rows)
    benchmarks = []
    for col in board.benchmarks:
        cells = [r.cells.get(col.id) for r in rows]
        if not any(cv is not None and cv.published for cv in cells):
            continue
        lines = []
        for metric, category, label in _lines(col):
            spec = col.specs.get(metric)
            higher = spec.higher_is_better if spec is not None else True
            values: list[float | None] = []
            intervals: list[list[float] | None] = []
            reps: list[np.ndarray | None] = []
            groups: list[Any] = []
            for cv in cells:
                cell = cv.cell if cv is not None and cv.published else None
                found = stored_value(cell, metric, category) if cell is not None else None
                values.append(None if found is None else round(found.value, 6))
                ci = found.ci95 if found is not None else None
                intervals.append([round(float(ci[0]), 6), round(float(ci[1]), 6)] if ci else None)
                array = replicates(cell, metric, category) if cell is not None and found is not None else None
                reps.append(array if pairable(array) else None)
                groups.append(None if array is None or cell is None else pairing_key(cell, array))
            lines.append(
                {
                    "metric": metric,
                    "category": category,
                    "label": label,
                    "better": "higher" if higher else "lower",
                    "unit": "score" if metric.startswith("mean_score") else "percent",
                    "values": values,
                    "ci": intervals,
                    "pairs": pair_codes(reps, groups, higher),
                    "human": col.humans.get((metric, category)),
                    "chance": spec.chance if spec is not None else None,
                }
            )
        ties = {}
        for i, cv in enumerate(cells):
            head = cv.values.get(col.metrics[0].metric) if cv is not None and cv.published and col.metrics else None
            if head is not None and head.tie_heavy:
                ties[str(i)] = round(head.tie_share, 4)
        benchmarks.append({"id": col.id, "title": col.title, "slug": slug(col.id), "lines": lines, "tieHeavy": ties})
    return {
        "models": [
            {
                "id": r.slug,  # unique and file-safe: the compare view's permalinks use it
                "slug": r.slug,
                "name": r.name,
                "kind": r.kind,
                "family": str(r.meta.get("family") or ""),
                "swatch": styles.of(r).swatch(r.kind),  # the family's mark, as on every page
            }
            for r in rows
        ],
        "benchmarks": benchmarks,
    }
