"""Paired-bootstrap comparisons of many models at once, exactly as :mod:`vlc_harness.metrics.bootstrap`.

:func:`vlc_harness.metrics.bootstrap.significantly_better` decides one pair with one
``np.percentile``; a board needs every pair of up to a hundred models for every ranked value and,
for its compare view, every category. :func:`significance` decides them all in one pass: for a
pair's differences ``d`` on the same resamples, the 2.5th percentile (linear interpolation between
order statistics ``k`` and ``k + 1``) is above zero when at most ``k`` of them are ``<= 0``, and not
when ``k + 2`` or more are; only the pairs with exactly ``k + 1`` go through ``np.percentile``, so
the answer is the core's, bit for bit. Replicates pair only within one :func:`~vlc_harness.results.cells.pairing_key`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from vlc_harness.metrics.bootstrap import LEVEL

BETTER, WORSE, NEITHER = 1, -1, 0
"""``significance``'s codes: the row's model is significantly better, worse, or neither."""


def significance(replicates: np.ndarray, higher_is_better: bool = True) -> np.ndarray:
    """``S[i, j]``: ``1`` when model ``i`` is significantly better than ``j`` on the same resamples
    (rows of ``replicates``: one model each), ``-1`` when ``j`` is better than ``i``, else ``0``."""
    reps = np.asarray(replicates, dtype=np.float64)
    m = reps.shape[0]
    out = np.zeros((m, m), dtype=np.int8)
    if m < 2 or reps.ndim != 2 or reps.shape[1] == 0:
        return out
    if not higher_is_better:
        reps = -reps
    first, second = np.triu_indices(m, 1)
    q = (1.0 - LEVEL) / 2 * 100
    for start in range(0, len(first), 256):  # 256 pairs at a time: the differences stay in cache
        i, j = first[start : start + 256], second[start : start + 256]
        diff = reps[i] - reps[j]
        i_better = _above_zero(diff, q, np.count_nonzero(diff <= 0, axis=1), 1.0)
        j_better = _above_zero(diff, q, np.count_nonzero(diff >= 0, axis=1), -1.0)
        out[i, j] = np.where(i_better, BETTER, np.where(j_better, WORSE, NEITHER))
    out[second, first] = -out[first, second]
    return out


def _above_zero(diff: np.ndarray, q: float, at_most_zero: np.ndarray, sign: float) -> np.ndarray:
    """Per row: ``np.percentile(sign * row, q) > 0``, given how many of ``sign * row`` are ``<= 0``;
    most rows are decided by that count alone."""
    k = int(np.floor(q / 100 * (diff.shape[1] - 1)))
    # a NaN replicate (ROC AUC on a one-class resample) makes np.percentile NaN, never above zero
    result = (at_most_zero <= k) & ~np.isnan(diff).any(axis=1)
    unsure = np.flatnonzero(at_most_zero == k + 1)
    if len(unsure):
        result[unsure] = np.percentile(sign * diff[unsure], q, axis=1) > 0
    return result


def ranks_from(significant: np.ndarray) -> np.ndarray:
    """Per model: 1 + the number of models significantly better (``S[j, i] == 1``)."""
    return 1 + (significant == BETTER).sum(axis=0)


def ranks(replicates: Mapping[str, Sequence[float]], higher_is_better: bool = True) -> dict[str, int]:
    """:func:`vlc_harness.metrics.bootstrap.ranks`, computed with :func:`significance`."""
    names = list(replicates)
    if not names:
        return {}
    matrix = np.stack([np.asarray(replicates[n], dtype=np.float64) for n in names])
    return dict(zip(names, (int(r) for r in ranks_from(significance(matrix, higher_is_better)))))
