"""Metric building blocks: pure functions of score matrices, with explicit tie rules.

Every benchmark metric is assembled from these, so the tie rule and the averaging rule of each
number are stated in one place and recorded next to it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from bench.legacy.types import MetricValue
from vlc_harness.choices import AnsweredQuestion
from vlc_harness.errors import ScoreError
from vlc_harness.types import TieRule

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


CHOICE_TIE_RULE = "none: answers (an abstention is wrong)"


def order_averaged_accuracy(answers: Sequence[AnsweredQuestion]) -> float:
    """Mean over presentation orders of each order's accuracy (SugarCrepe's GPT-4V protocol).

    An abstention (refusal, unparsable reply, failed request) is wrong.
    """
    by_order: dict[int, list[bool]] = {}
    for a in answers:
        by_order.setdefault(a.question.order, []).append(a.correct)
    if not by_order:
        return float("nan")
    return float(np.mean([np.mean(v) for _, v in sorted(by_order.items())]))


def choice_values(
    metric: str, answers_by_category: dict[str, list[AnsweredQuestion]], n_by_category: dict[str, int]
) -> list[MetricValue]:
    """Per category: order-averaged accuracy, each order's accuracy, answered accuracy and coverage."""
    out = []
    for category in sorted(answers_by_category):
        answers = answers_by_category[category]
        n = n_by_category[category]
        answered = [a for a in answers if a.choice is not None]
        out.append(
            MetricValue(
                metric,
                category,
                order_averaged_accuracy(answers),
                n,
                0,
                CHOICE_TIE_RULE,
                "mean over candidate orders of each order's accuracy",
            )
        )
        for order in sorted({a.question.order for a in answers}):
            of_order = [a for a in answers if a.question.order == order]
            out.append(
                MetricValue(
                    f"{metric}_order{order}",
                    category,
                    float(np.mean([a.correct for a in of_order])),
                    n,
                    0,
                    CHOICE_TIE_RULE,
                    f"mean over instances, candidate order {order} (0: correct first)",
                )
            )
        out.append(
            MetricValue(
                f"{metric}_answered",
                category,
                float(np.mean([a.correct for a in answered])) if answered else float("nan"),
                len(answered),
                0,
                CHOICE_TIE_RULE,
                "mean over answered questions only",
            )
        )
        out.append(
            MetricValue(
                "coverage",
                category,
                len(answered) / len(answers) if answers else float("nan"),
                n,
                0,
                CHOICE_TIE_RULE,
                "answered questions / asked questions",
            )
        )
    return out
