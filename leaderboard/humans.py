"""Human values the papers report on another data version than the board's (issue 41, item 6).

A paper's human value is compared with our numbers only on its own data version (the column keeps
those, :func:`vlc_leaderboard.columns.benchmark_column`). Where the board's version has none but the
paper reports one on another version, the board shows it with that version ("human 85.5 on hf-400")
instead of claiming there is no human study: it is context, never compared or used in a gap.
"""

from __future__ import annotations

from collections.abc import Iterable

from vlc_harness.types import ReferenceRow


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
