"""ROC AUC per category from scores and binary labels, ties counted half (SeeTRUE).

The area under the ROC curve equals the Mann-Whitney statistic: the fraction of (positive,
negative) pairs in which the positive has the higher score, a tie counting one half. That is what
``sklearn.metrics.roc_auc_score`` computes, and what SeeTRUE's reference code reports per source,
on continuous scores (t2v_metrics) and on hard 0/1 predictions (the official BLIP2 test script).
It is computed exactly, by counting pairs per distinct score, so a tie between a positive and a
negative is never resolved by sort order. The count of tied pairs is reported as the ties.

An abstention has no score. Over all asked pairs (``<metric>``) it ranks as the worst case: an
abstained positive below every negative, an abstained negative above every positive, so each of
its (positive, negative) pairs counts 0 and declining a pair can never raise the AUC (the
denominator keeps every asked pair). ``<metric>_answered`` is the AUC over the answered pairs
only. A category holding only one class has no AUC and is left out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from vlc_harness.errors import ScoreError
from vlc_harness.metrics.aggregate import Aggregation, Macro, PerCategory
from vlc_harness.metrics.engine import Column
from vlc_harness.metrics.family import Family, Reported
from vlc_harness.metrics.outcomes import Outcomes

AUC_TIE_RULE = "half"
"""A (positive, negative) pair with equal scores counts one half (Mann-Whitney)."""


class RocAuc(Family):
    """ROC AUC of the score of each instance's single pair against ``gold["label"]``.

    ``threshold`` set: the AUC of hard predictions ``1[score > threshold]`` (strict) instead.
    """

    name = "roc_auc"
    version = "2"  # 2: an abstention ranks as the worst case over all asked pairs (was: left out)
    tie_rules = (AUC_TIE_RULE,)
    ties_half = False

    def __init__(
        self,
        id: str,
        description: str,
        aggregate: Sequence[Aggregation | str] | None = None,
        *,
        threshold: float | None = None,
        tie_rule: str | None = None,
        chance: float | None = 0.5,
        label: str = "label",
        categories: Sequence[str] | None = None,
    ) -> None:
        if aggregate is None:
            aggregate = (
                PerCategory(
                    unit="source",
                    text="per source: Mann-Whitney over the source's (positive, negative) pairs, a tie counting 1/2",
                ),
                Macro(
                    "{metric}_macro",
                    "unweighted mean of the per-source AUCs over the sources present (the paper's Avg. only when "
                    "all its sources are present)",
                    what="sources",
                    name_members=True,
                ),
            )
        super().__init__(aggregate, tie_rule, categories, f"{self.name} {id!r}")
        if threshold is not None and not np.isfinite(threshold):
            raise ValueError(f"{self.owner}: threshold must be finite, got {threshold}")
        self.id, self.description, self.threshold, self.chance, self.label = id, description, threshold, chance, label

    def reported(self) -> list[Reported]:
        return [Reported(self.id, self.description, None, self.chance)]

    def columns(self, outcomes: Outcomes) -> list[Column]:
        scores = outcomes.scores[:, 0, 0]
        if self.threshold is not None:
            scores = np.where(np.isnan(scores), np.nan, (scores > self.threshold).astype(np.float64))
        labels = np.asarray(outcomes.gold(self.label, 0), dtype=np.int64)
        if not np.isin(labels, (0, 1)).all():
            raise ValueError(f"{self.owner}: labels must be 0 or 1")
        answered = np.asarray(outcomes.answered, dtype=bool)
        return [
            Column(
                self.id,
                np.where(answered, scores, worst_case(scores[answered], labels)),
                self.aggregations,
                members=self.members(outcomes),
                tie_rule=AUC_TIE_RULE,
                abstention="worst",
                labels=labels.astype(bool),
            )
        ]


def worst_case(answered_scores: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """Per label, a score that ranks worst: a positive just below every answered score, a negative
    just above (finite, so the engine's sums stay finite)."""
    finite = answered_scores[np.isfinite(answered_scores)]
    low, high = (finite.min(), finite.max()) if finite.size else (0.0, 0.0)
    return np.where(labels == 1, np.nextafter(low, -np.inf), np.nextafter(high, np.inf))


@dataclass(frozen=True)
class AucResult:
    """An AUC with what it was computed from (``tied_pairs``: pairs with equal scores, each 1/2)."""

    value: float
    n_pos: int
    n_neg: int
    tied_pairs: int

    @property
    def n(self) -> int:
        """Number of scored items."""
        return self.n_pos + self.n_neg


def roc_auc(scores: Sequence[float] | np.ndarray, labels: Sequence[int] | np.ndarray) -> AucResult:
    """ROC AUC of continuous scores against 0/1 labels; ties between classes count half.

    Raises :class:`~vlc_harness.errors.ScoreError` on a non-finite score and ``ValueError`` when one
    class is absent (the AUC is undefined) or the inputs are malformed.
    """
    s = np.asarray(scores, dtype=np.float64)
    if s.ndim != 1:
        raise ValueError(f"expected a 1-d score vector, got shape {s.shape}")
    if not np.isfinite(s).all():
        raise ScoreError(f"non-finite score(s) among the AUC inputs: {s[~np.isfinite(s)][:3].tolist()}")
    y = np.asarray(labels)
    if y.shape != s.shape:
        raise ValueError(f"expected {len(s)} labels, got shape {y.shape}")
    if not np.isin(y, (0, 1)).all():
        raise ValueError("labels must be 0 or 1")
    y = y.astype(bool)
    n_pos, n_neg = int(y.sum()), int((~y).sum())
    if n_pos == 0 or n_neg == 0:
        raise ValueError(f"AUC is undefined with {n_pos} positives and {n_neg} negatives")
    _, group = np.unique(s, return_inverse=True)
    group = group.ravel()
    pos = np.bincount(group[y], minlength=group.max() + 1).astype(np.int64)
    neg = np.bincount(group[~y], minlength=group.max() + 1).astype(np.int64)
    twice_u = int(np.sum(pos * (2 * (np.cumsum(neg) - neg) + neg)))
    return AucResult(twice_u / (2 * n_pos * n_neg), n_pos, n_neg, int(np.sum(pos * neg)))


def binary_predictions(scores: Sequence[float] | np.ndarray, threshold: float) -> np.ndarray:
    """Hard predictions ``1[score > threshold]`` (strict: a score equal to the threshold is 0)."""
    s = np.asarray(scores, dtype=np.float64)
    if not np.isfinite(s).all():
        raise ScoreError(f"non-finite score(s) among the AUC inputs: {s[~np.isfinite(s)][:3].tolist()}")
    if not np.isfinite(threshold):
        raise ValueError(f"threshold must be finite, got {threshold}")
    return (s > threshold).astype(np.int64)


def roc_auc_binary(predictions: Sequence[int] | np.ndarray, labels: Sequence[int] | np.ndarray) -> AucResult:
    """ROC AUC of hard 0/1 predictions: (true positive rate + true negative rate) / 2."""
    p = np.asarray(predictions, dtype=np.float64)
    if not np.isfinite(p).all():
        raise ScoreError(f"non-finite prediction(s): {p[~np.isfinite(p)][:3].tolist()}")
    if not np.isin(p, (0.0, 1.0)).all():
        raise ValueError("binary predictions must be 0 or 1")
    return roc_auc(p, labels)
