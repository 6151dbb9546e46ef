"""How a benchmark's stored values relate, read off its metric declaration (never computed).

A board needs three facts that only the declaration (:mod:`vlc_harness.metrics.aggregate`) knows:
which stored categories a macro value is the unweighted mean of (SugarCrepe's headline over its
seven subsets), what a category is called (subset, kind), and which values are such means of
other values, so that a human number the papers give per category only gives its mean too. A
pooled (micro) value needs the human study's instance counts and is never derived.

The declaration is read (families, their aggregations, the aggregation plan); no metric is
computed from outcomes. A declaration the board cannot build (it needs data or params) gives
nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from vlc_harness.metrics.aggregate import AUDIT_TAGS, IDENTICAL_TEXT, Macro, PerCategory, Plan
from vlc_harness.metrics.cell import declared_ids

Key = tuple[str, str]
"""(metric, category)."""
UNCOUNTED = 2**31 - 1
"""The instance count of a category known from its values alone (no stored cell): no ``min_n`` excludes it."""

__all__ = [
    "AUDIT_TAGS",
    "IDENTICAL_TEXT",
    "Key",
    "averaged_metrics",
    "category_unit",
    "declared_metrics",
    "derived_means",
]


def declared_metrics(ids: Iterable[str]) -> set[str]:
    """The declared metric ids among ``ids``: not their ``_ties_half``/``_answered`` variants and
    not ``coverage`` (reported for models that may abstain)."""
    return declared_ids(ids)


def _families(bench: Any) -> list[Any]:
    try:
        return list(bench.metric_families())
    except Exception:  # a declaration that needs data or params the board does not have
        return []


def _per_category_texts(family: Any, metric: str) -> set[str]:
    return {a.averaging() for a in family.aggregations if isinstance(a, PerCategory) and a.metric_id(metric) == metric}


def derived_means(
    bench: Any, known: Mapping[Key, float], sample: Sequence[Mapping[str, Any]] | None
) -> dict[Key, float]:
    """Values that are unweighted means (as declared) of values in ``known`` (a paper's human
    numbers per category, say), for the keys ``known`` lacks.

    ``sample`` is one stored cell's metric rows: it says which categories are present and their
    instance counts, so the plan (``exclude``, ``min_n``, ``over``) is the one the models' values
    were computed with. ``None`` where no cell is stored: the categories are those ``known`` has a
    value for, their instance counts unknown (so ``min_n`` excludes none; ``exclude`` and ``over`` apply).
    """
    derived: dict[Key, float] = {}
    values = dict(known)
    for family in _families(bench):
        for reported in family.reported():
            texts = _per_category_texts(family, reported.id)
            if sample is None:
                present = {c: UNCOUNTED for m, c in known if m == reported.id and c != "all"} if texts else {}
            else:
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
                if node.op != "mean" or node.key in values or not node.children:
                    continue
                if all(child in values for child in node.children):
                    values[node.key] = sum(values[c] for c in node.children) / len(node.children)
                    if node.emit:
                        derived[node.key] = values[node.key]
    return derived


def averaged_metrics(bench: Any, metric: str) -> list[str]:
    """The metrics whose categories ``metric`` is the unweighted mean of (a :class:`Macro` over
    categories, not over groups), in declaration order; empty for any other metric."""
    out = []
    for family in _families(bench):
        for reported in family.reported():
            for aggregation in family.aggregations:
                if not isinstance(aggregation, Macro) or aggregation.groups is not None:
                    continue
                if aggregation.metric_id(reported.id) != metric:
                    continue
                out.append(aggregation.of.replace("{metric}", reported.id) if aggregation.of else reported.id)
    return out


def category_unit(bench: Any, metric: str) -> str:
    """What a category of ``metric`` is called (``subset``, ``kind``), as its per-category
    aggregation declares; ``category`` when none does."""
    for family in _families(bench):
        for reported in family.reported():
            for aggregation in family.aggregations:
                if isinstance(aggregation, PerCategory) and aggregation.metric_id(reported.id) == metric:
                    return aggregation.unit
    return "category"
