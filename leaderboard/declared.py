"""What the board reads off a benchmark's metric declaration: derived human values and drilldowns.

Both follow the declaration (:mod:`vlc_harness.metrics.aggregate`) instead of guessing from ids:

* a human number that the papers give per category only (SugarCrepe's seven subsets) gives the
  macro value too, when the declared value is an unweighted mean of those categories (a
  :class:`~vlc_harness.metrics.aggregate.Macro`); a pooled (micro) value needs the human study's
  instance counts and is never derived;
* the index's drilldown of a benchmark shows the headline metric's categories (BiVLC's types,
  Winoground's tags), or, for a macro headline, the categories it is the mean of (SugarCrepe's
  subsets).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from vlc_harness.metrics.aggregate import AUDIT_TAGS, Macro, PerCategory, Plan

AUDIT_CATEGORIES = frozenset({*AUDIT_TAGS, "any", "all"})
"""Categories a drilldown leaves out: the overall value and the word-order audit's tags."""

Key = tuple[str, str]


@dataclass(frozen=True)
class Drill:
    """A benchmark's drilldown on the index: a metric and its categories."""

    metric: str
    categories: tuple[str, ...]
    unit: str
    """What a category is called (subset, kind, category)."""


def _families(bench: Any) -> list[Any]:
    try:
        return list(bench.metric_families())
    except Exception:  # a declaration that needs data or params the board does not have
        return []


def _per_category_texts(family: Any, metric: str) -> set[str]:
    return {a.averaging() for a in family.aggregations if isinstance(a, PerCategory) and a.metric_id(metric) == metric}


def derive_humans(bench: Any, humans: dict[Key, float], sample: list[dict[str, Any]]) -> dict[Key, float]:
    """Human values that are unweighted means (as declared) of human values the papers give.

    ``sample`` is one published cell's metric rows: it says which categories are present and
    their instance counts, so the plan (``exclude``, ``min_n``, ``over``) is the one the models'
    values were computed with. Only values with no human number of their own are returned.
    """
    derived: dict[Key, float] = {}
    known = dict(humans)
    for family in _families(bench):
        for reported in family.reported():
            texts = _per_category_texts(family, reported.id)
            present = {
                str(m["category"]): int(m.get("n") or 0)
                for m in sample
                if m.get("metric") == reported.id and m.get("averaging") in texts
            }
            if not present:
                continue
            plan = Plan(reported.id, present)
            try:
                for aggregation in family.aggregations:
                    aggregation.plan(plan, reported.id, "")
            except Exception:  # an aggregation that needs instances (tags): nothing to derive from it
                pass
            for node in plan.nodes.values():
                if node.op != "mean" or node.key in known or not node.children:
                    continue
                if all(child in known for child in node.children):
                    known[node.key] = sum(known[c] for c in node.children) / len(node.children)
                    if node.emit:
                        derived[node.key] = known[node.key]
    return derived


def drilldown(bench: Any, headline: str, sample: list[dict[str, Any]]) -> Drill | None:
    """The headline's own categories, or those its (macro) headline averages; ``None`` if neither."""
    own = _categories(sample, headline)
    if own:
        return Drill(headline, own, _unit(bench, headline))
    for family in _families(bench):
        for reported in family.reported():
            for aggregation in family.aggregations:
                if not isinstance(aggregation, Macro) or aggregation.groups is not None:
                    continue
                if aggregation.metric_id(reported.id) != headline:
                    continue
                source = aggregation.of.replace("{metric}", reported.id) if aggregation.of else reported.id
                categories = _categories(sample, source)
                if categories:
                    return Drill(source, categories, _unit(bench, source))
    return None


def _categories(sample: list[dict[str, Any]], metric: str) -> tuple[str, ...]:
    seen: list[str] = []
    for m in sample:
        category = str(m.get("category"))
        if m.get("metric") == metric and category not in AUDIT_CATEGORIES and category not in seen:
            seen.append(category)
    return tuple(seen)


def _unit(bench: Any, metric: str) -> str:
    for family in _families(bench):
        for reported in family.reported():
            for aggregation in family.aggregations:
                if isinstance(aggregation, PerCategory) and aggregation.metric_id(reported.id) == metric:
                    return aggregation.unit
    return "category"
