"""Metric building blocks: pure functions of score matrices, with explicit tie rules.

Every benchmark metric is assembled from these, so the tie rule and the averaging rule of each
number are stated in one place and recorded next to it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from harness.errors import ScoreError
from harness.types import MetricValue, TieRule

TIE_CREDIT: dict[str, float] = {"wrong": 0.0, "right": 1.0, "half": 0.5}


@dataclass(frozen=True)
class Decision:
    """Whether the gold item beat every competitor (strictly), and whether it tied the best one."""

    won: bool
    tied: bool

    def credit(self, tie_rule: TieRule) -> float:
        """1 for a strict win, the tie rule's credit for a tie, 0 otherwise."""
        if self.won:
            return 1.0
        return TIE_CREDIT[tie_rule] if self.tied else 0.0


def pick(gold_score: float, competitor_scores: Iterable[float]) -> Decision:
    """Compare the gold score with its competitors; NaN anywhere is an error, never a loss."""
    others = [float(s) for s in competitor_scores]
    values = [float(gold_score), *others]
    if not all(np.isfinite(values)):
        raise ScoreError(f"non-finite score among {values}")
    gold, best_other = values[0], max(others)
    return Decision(won=gold > best_other, tied=gold == best_other)


def mean_credit(decisions: Sequence[Decision], tie_rule: TieRule) -> float:
    """Accuracy of a list of decisions under a tie rule (NaN for an empty list)."""
    if not decisions:
        return float("nan")
    return float(sum(d.credit(tie_rule) for d in decisions) / len(decisions))


def accuracy_values(
    metric: str,
    decisions_by_category: dict[str, list[Decision]],
    tie_rule: TieRule,
    averaging: str = "mean over the category's instances",
) -> list[MetricValue]:
    """One accuracy per category, with its n and tie count."""
    out = []
    for category in sorted(decisions_by_category):
        ds = decisions_by_category[category]
        out.append(
            MetricValue(
                metric=metric,
                category=category,
                value=mean_credit(ds, tie_rule),
                n=len(ds),
                ties=int(sum(d.tied for d in ds)),
                tie_rule=tie_rule,
                averaging=averaging,
            )
        )
    return out


def micro_value(
    metric: str, decisions_by_category: dict[str, list[Decision]], tie_rule: TieRule, category: str = "all"
) -> MetricValue:
    """Accuracy pooled over every instance of the given categories (instance-weighted)."""
    pooled = [d for ds in decisions_by_category.values() for d in ds]
    return MetricValue(
        metric=metric,
        category=category,
        value=mean_credit(pooled, tie_rule),
        n=len(pooled),
        ties=int(sum(d.tied for d in pooled)),
        tie_rule=tie_rule,
        averaging="micro: mean over all instances",
    )


def macro_value(
    metric: str, per_category: Sequence[MetricValue], category: str = "all", what: str = "categories"
) -> MetricValue:
    """Unweighted mean of per-category values (each category counts once, whatever its size)."""
    values = [v.value for v in per_category]
    rules = {v.tie_rule for v in per_category}
    return MetricValue(
        metric=metric,
        category=category,
        value=float(np.mean(values)) if values else float("nan"),
        n=int(sum(v.n for v in per_category)),
        ties=int(sum(v.ties for v in per_category)),
        tie_rule=rules.pop() if len(rules) == 1 else "mixed",
        averaging=f"macro: unweighted mean over {len(values)} {what}",
    )
