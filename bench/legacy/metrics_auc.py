"""ROC AUC as a pure function of scores and binary labels, with ties counted half.

The area under the ROC curve equals the Mann-Whitney statistic: the fraction of
(positive, negative) pairs in which the positive has the higher score, a tie counting one half.
That is what ``sklearn.metrics.roc_auc_score`` computes (trapezoidal area), and what SeeTRUE's
reference code reports per source, both on continuous scores (t2v_metrics) and on hard 0/1
predictions (the official BLIP2 test script). It is computed here exactly, by counting pairs per
distinct score, so a tie between a positive and a negative is never resolved by sort order.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from vlc_harness.errors import ScoreError

AUC_TIE_RULE = "half"
"""A (positive, negative) pair with equal scores counts one half (Mann-Whitney)."""


@dataclass(frozen=True)
class AucResult:
    """An AUC with what it was computed from.

    ``tied_pairs`` counts the (positive, negative) pairs whose scores are equal; each counted 1/2.
    """

    value: float
    n_pos: int
    n_neg: int
    tied_pairs: int

    @property
    def n(self) -> int:
        """Number of scored items."""
        return self.n_pos + self.n_neg


def _labels(labels: Sequence[int] | np.ndarray, n: int) -> np.ndarray:
    y = np.asarray(labels)
    if y.shape != (n,):
        raise ValueError(f"expected {n} labels, got shape {y.shape}")
    if not np.isin(y, (0, 1)).all():
        raise ValueError("labels must be 0 or 1")
    return y.astype(bool)


def _scores(scores: Sequence[float] | np.ndarray) -> np.ndarray:
    s = np.asarray(scores, dtype=np.float64)
    if s.ndim != 1:
        raise ValueError(f"expected a 1-d score vector, got shape {s.shape}")
    if not np.isfinite(s).all():
        bad = s[~np.isfinite(s)][:3].tolist()
        raise ScoreError(f"non-finite score(s) among the AUC inputs: {bad}")
    return s


def roc_auc(scores: Sequence[float] | np.ndarray, labels: Sequence[int] | np.ndarray) -> AucResult:
    """ROC AUC of continuous scores against 0/1 labels (1 = positive); ties between classes count half.

    Raises :class:`~vlc_harness.errors.ScoreError` on a NaN or infinite score and ``ValueError`` when
    one class is absent (the AUC is undefined).
    """
    s = _scores(scores)
    y = _labels(labels, len(s))
    n_pos = int(y.sum())
    n_neg = len(y) - n_pos
    if n_pos == 0 or n_neg == 0:
        raise ValueError(f"AUC is undefined with {n_pos} positives and {n_neg} negatives")
    _, group = np.unique(s, return_inverse=True)
    group = group.ravel()
    n_groups = int(group.max()) + 1
    pos = np.bincount(group[y], minlength=n_groups).astype(np.int64)
    neg = np.bincount(group[~y], minlength=n_groups).astype(np.int64)
    neg_below = np.cumsum(neg) - neg
    # Twice the Mann-Whitney U, in integers: a win counts 2, a tie 1.
    twice_u = int(np.sum(pos * (2 * neg_below + neg)))
    tied = int(np.sum(pos * neg))
    return AucResult(twice_u / (2 * n_pos * n_neg), n_pos, n_neg, tied)


def binary_predictions(scores: Sequence[float] | np.ndarray, threshold: float) -> np.ndarray:
    """Hard predictions ``1[score > threshold]`` (strict: a score equal to the threshold is 0)."""
    s = _scores(scores)
    if not np.isfinite(threshold):
        raise ValueError(f"threshold must be finite, got {threshold}")
    return (s > threshold).astype(np.int64)


def roc_auc_binary(predictions: Sequence[int] | np.ndarray, labels: Sequence[int] | np.ndarray) -> AucResult:
    """ROC AUC of hard 0/1 predictions: (true positive rate + true negative rate) / 2.

    The same Mann-Whitney count as :func:`roc_auc`; with two score values every pair in which
    the positive and the negative got the same prediction is a tie and counts half.
    """
    p = _scores(predictions)
    if not np.isin(p, (0.0, 1.0)).all():
        raise ValueError("binary predictions must be 0 or 1")
    return roc_auc(p, labels)
