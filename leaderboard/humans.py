"""Which human values a benchmark column shows (issue 41, items 6 and 8).

A paper's human value is compared with our numbers only on its own data version (the column keeps
those, :func:`vlc_leaderboard.columns.benchmark_column`). Where the board's version has none but the
paper reports one on another version, the board shows it with that version ("human 85.5 on hf-400")
instead of claiming there is no human study: it is context, never compared or used in a gap.

A value the declaration makes the unweighted mean of per-category values (SugarCrepe's macro
accuracy) has a human value wherever the papers give every category's: one rule, whether or not a
model has a result on the board (:func:`human_means`). The categories averaged over are those of a
stored cell where one exists; without one, those the papers' human rows name (the same on a data
version whose categories all have a human value, which is when a mean exists at all).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from vlc_harness.results import derived_means
from vlc_harness.types import ReferenceRow

Key = tuple[str, str]
"""(metric, category)."""


def humans_elsewhere(
    references: Iterable[ReferenceRow], data_version: str, known: dict[tuple[str, str], float]
) -> dict[str, tuple[float, str]]:
    """Metric -> (human value, its data version) over all categories, from rows on another data version
    than ``data_version``, for the metrics ``known`` (the same-version humans) has no overall value of.
    The first such row of each metric wins (the declaration's order)."""
    out: dict[str, tuple[float, str]] = {}
    for row in references:
        if row.matches != "human" or row.category != "all" or (row.metric, "all") in known:
            continue
        if row.data_version and data_version and row.data_version != data_version:
            out.setdefault(row.metric, (row.value, row.data_version))
    return out


def human_means(bench: Any, humans: dict[Key, float], rows: Sequence[Mapping[str, Any]]) -> dict[Key, float]:
    """Human values that are unweighted means of the papers' per-category ones, for the keys ``humans``
    lacks: over the categories of ``rows`` (one stored cell's metric rows), or where no cell is stored
    (a benchmark no model has a result on yet), over the categories ``humans`` gives values for."""
    if not humans:
        return {}
    return derived_means(bench, humans, rows or None)
