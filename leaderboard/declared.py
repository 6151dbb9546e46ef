"""A benchmark's drilldown on the index, from what its declaration says of the stored values.

The index's drilldown shows the headline metric's categories (BiVLC's types, Winoground's tags),
or, for a macro headline, the categories it is the mean of (SugarCrepe's subsets). Which
categories a macro averages and what a category is called come from the results API
(:mod:`vlc_harness.results.layout`), which reads the metric declaration; so do human values derived
as declared means of per-category ones (:func:`vlc_harness.results.derived_means`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from vlc_harness.results import AUDIT_TAGS, averaged_metrics, category_unit

AUDIT_CATEGORIES = frozenset({*AUDIT_TAGS, "any", "all"})
"""Categories a drilldown leaves out: the overall value and the word-order audit's tags."""


@dataclass(frozen=True)
class Drill:
    """A benchmark's drilldown on the index: a metric and its categories."""

    metric: str
    categories: tuple[str, ...]
    unit: str
    """What a category is called (subset, kind, category)."""


def drilldown(bench: Any, headline: str, sample: list[dict[str, Any]]) -> Drill | None:
    """The headline's own categories, or those its (macro) headline averages; ``None`` if neither."""
    own = _categories(sample, headline)
    if own:
        return Drill(headline, own, category_unit(bench, headline))
    for source in averaged_metrics(bench, headline):
        categories = _categories(sample, source)
        if categories:
            return Drill(source, categories, category_unit(bench, source))
    return None


def _categories(sample: list[dict[str, Any]], metric: str) -> tuple[str, ...]:
    seen: list[str] = []
    for m in sample:
        category = str(m.get("category"))
        if m.get("metric") == metric and category not in AUDIT_CATEGORIES and category not in seen:
            seen.append(category)
    return tuple(seen)
