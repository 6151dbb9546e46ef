"""The index's summary picture: one static SVG of image-to-text against text-to-image per model.

Each model is one point: its I2T and T2I headline values averaged over the benchmarks that score
both directions (ties-broken where ties dominate, as the benchmark pages plot them). Means over
different sets of benchmarks would not compare, so only models with both directions on every one
of those benchmarks are plotted; the caption names how many are left out. Human and Chance are
the same means of their reference values, shown where every benchmark has them. The SVG is built
from the board alone, in the board's row order, so the same store renders the same bytes; a model's
colour is its family's on every page (:mod:`vlc_leaderboard.families`).
"""

from __future__ import annotations

from dataclasses import dataclass

from markupsafe import Markup

from vlc_leaderboard.board import Board
from vlc_leaderboard.columns import BenchmarkColumn
from vlc_leaderboard.families import FamilyStyles
from vlc_leaderboard.rows import Row
from vlc_leaderboard.svg import Point, legend, scatter


@dataclass(frozen=True)
class SummaryPlot:
    """The summary SVG with the words around it."""

    svg: Markup
    legend: Markup
    """The plotted families with their colour and marker."""
    benchmarks: list[str]
    """The titles of the benchmarks averaged over."""
    plotted: int
    left_out: list[str]
    """Names of the models without both directions on every one of those benchmarks."""


def _mean_pair(pairs: list[tuple[float, float]]) -> tuple[float, float]:
    return sum(p[0] for p in pairs) / len(pairs), sum(p[1] for p in pairs) / len(pairs)


def _reference(cols: list[BenchmarkColumn], human: bool) -> tuple[float, float] | None:
    """The mean human (or chance) point over ``cols``; ``None`` unless every benchmark has one."""
    pairs = []
    for col in cols:
        assert col.gap is not None
        if human:
            values = [col.humans.get((m, "all")) for m in col.gap]
        else:
            values = [col.specs[m].chance if m in col.specs else None for m in col.gap]
        if values[0] is None or values[1] is None:
            return None
        pairs.append((values[0], values[1]))
    return _mean_pair(pairs)


def summary_plot(board: Board) -> SummaryPlot | None:
    """The summary plot of ``board``; ``None`` when no benchmark scores both directions or no model
    has both on every such benchmark."""
    cols = [c for c in board.benchmarks if c.gap]
    if not cols:
        return None
    styles = FamilyStyles.of_rows(board.rows)
    marks: list[Point] = []
    plotted: list[Row] = []
    left_out: list[str] = []
    for row in board.rows:
        pairs = [row.cells[c.id].direction_pair(c.gap) if c.id in row.cells else None for c in cols]
        known = [p for p in pairs if p is not None]
        if len(known) == len(cols):
            mean = _mean_pair(known)
            marks.append(Point(row.name, mean[0], mean[1], row.kind, styles.of(row)))
            plotted.append(row)
        elif known:
            left_out.append(row.name)
    if not marks:
        return None
    svg = scatter(marks, _reference(cols, True), _reference(cols, False), ("Mean I2T", "Mean T2I"))
    return SummaryPlot(svg, legend(styles.legend(plotted)), [c.title for c in cols], len(marks), left_out)
