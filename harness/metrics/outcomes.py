"""Outcome arrays: a cell's per-instance results as numpy arrays, built once from stored results.

Metric families read these and nothing else. Every instance that counts in a cell is here:
answered ones with their score matrix, abstained ones (a declined pair) with ``answered`` False.
Failed instances (a score that could not be had) are not: they are listed in the cell instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from vlc_harness.errors import ScoreError

if TYPE_CHECKING:
    from vlc_harness.types import Instance


class _PerInstance:
    """What both kinds of outcomes share: instances, their categories, and gold fields."""

    instances: Sequence[Instance]
    categories: tuple[str, ...]
    category: np.ndarray

    def __post_init__(self) -> None:
        _set_categories(self)

    def __len__(self) -> int:
        return len(self.instances)

    def in_categories(self, names: Sequence[str] | None) -> np.ndarray:
        """Mask of the instances whose category is among ``names`` (all when ``None``)."""
        if names is None:
            return np.ones(len(self), dtype=bool)
        codes = [k for k, c in enumerate(self.categories) if c in set(names)]
        return np.isin(self.category, codes)

    def gold(self, key: str, default: object = None) -> list[object]:
        """One gold field of every instance (``default`` where absent)."""
        return [inst.gold.get(key, default) for inst in self.instances]


@dataclass(frozen=True)
class Outcomes(_PerInstance):
    """Per-instance results of one cell, in the benchmark's instance order.

    ``scores[k, i, j]`` is ``s(image_i, text_j)`` of instance ``k``: NaN where the instance does
    not need the pair, or where the model declined it. ``answered[k]`` is False for an instance
    with a declined pair (an abstention). ``category[k]`` indexes ``categories`` (sorted names).
    ``text_scores[k, a, b]`` is the text-text score of texts ``a`` and ``b`` where a family reads
    it (NaN elsewhere); ``None`` when the model gives no text-text scores (only ``embed`` does).
    """

    instances: Sequence[Instance]
    scores: np.ndarray
    answered: np.ndarray
    text_scores: np.ndarray | None = None
    categories: tuple[str, ...] = field(init=False)
    category: np.ndarray = field(init=False)

    def entries(self, pairs: Sequence[tuple[int, int]]) -> np.ndarray:
        """``[N, len(pairs)]``: each instance's scores at the given (image, text) positions."""
        return np.stack([self.scores[:, i, j] for i, j in pairs], axis=1)


def _set_categories(outcomes: _PerInstance) -> None:
    """Fill ``categories`` (sorted names) and ``category`` (each instance's code)."""
    names = [inst.category for inst in outcomes.instances]
    if names:
        categories, codes = np.unique(np.asarray(names, dtype=object), return_inverse=True)
    else:
        categories, codes = np.array([], dtype=object), np.array([], dtype=np.int64)
    object.__setattr__(outcomes, "categories", tuple(str(c) for c in categories))
    object.__setattr__(outcomes, "category", np.asarray(codes, dtype=np.int64).reshape(-1))


def outcomes_from_matrices(
    instances: Sequence[Instance], matrices: Sequence[np.ndarray], answered: Sequence[bool] | None = None
) -> Outcomes:
    """Outcomes from one score matrix per instance (shapes may differ; padded with NaN).

    A needed pair of an answered instance must be finite: NaN or infinity raises
    :class:`~vlc_harness.errors.ScoreError` (it is never scored).
    """
    n = len(instances)
    shape = (
        max((len(inst.images) for inst in instances), default=1),
        max((len(inst.texts) for inst in instances), default=1),
    )
    scores = np.full((n, *shape), np.nan)
    for k, (inst, m) in enumerate(zip(instances, matrices)):
        m = np.asarray(m, dtype=np.float64)
        if m.shape != (len(inst.images), len(inst.texts)):
            raise ValueError(
                f"{inst.id}: score matrix of shape {m.shape}, expected {(len(inst.images), len(inst.texts))}"
            )
        scores[k, : m.shape[0], : m.shape[1]] = m
    flags = np.ones(n, dtype=bool) if answered is None else np.asarray(answered, dtype=bool)
    out = Outcomes(instances, scores, flags)
    check_finite(out)
    return out


def needed_mask(instances: Sequence[Instance], shape: tuple[int, int]) -> np.ndarray:
    """``[N, I, T]`` True at every pair an instance needs."""
    mask = np.zeros((len(instances), *shape), dtype=bool)
    for k, inst in enumerate(instances):
        for i, j in inst.needed_pairs():
            mask[k, i, j] = True
    return mask


def check_finite(outcomes: Outcomes) -> None:
    """Raise :class:`ScoreError` when an answered instance has a non-finite needed score."""
    scores = outcomes.scores
    if not len(outcomes):
        return
    needed = needed_mask(outcomes.instances, scores.shape[1:]) & outcomes.answered[:, None, None]
    bad = needed & ~np.isfinite(scores)
    if bad.any():
        k = int(np.argwhere(bad)[0][0])
        values = scores[k][needed[k]].tolist()
        raise ScoreError(f"non-finite score among {values} (instance {outcomes.instances[k].id})")


@dataclass(frozen=True)
class ChoiceOutcomes(_PerInstance):
    """Per-instance multiple-choice results: ``correct[k, o]`` and ``answered[k, o]`` per
    presentation order ``o`` (every instance is asked in the same orders)."""

    instances: Sequence[Instance]
    correct: np.ndarray
    answered: np.ndarray
    categories: tuple[str, ...] = field(init=False)
    category: np.ndarray = field(init=False)


def choice_outcomes(results: Sequence[Any]) -> ChoiceOutcomes:
    """Choice outcomes from instances with their answered questions (``InstanceAnswers``)."""
    orders = max((len(r.answers) for r in results), default=0)
    correct = np.zeros((len(results), orders), dtype=bool)
    answered = np.zeros((len(results), orders), dtype=bool)
    for k, r in enumerate(results):
        for a in r.answers:
            correct[k, a.question.order] = a.correct
            answered[k, a.question.order] = a.choice is not None
    return ChoiceOutcomes([r.instance for r in results], correct, answered)
