"""Abstaining never beats answering: the property every metric family's declarations must keep.

On a family's example (:class:`~vlc_harness.metrics.family.FamilyExample`), a seeded loop over
random outcome sets (scores drawn from {0, 1, 2}, so ties are frequent; about a third of the
instances declined, each with some of its pairs missing): per trial, one declined instance is
answered instead with fresh random scores (or answers), and every value over all asked instances
is compared, in the direction its spec states. Values over answered instances only may move either
way: ``<metric>_answered`` and the values whose averaging says they are over answered instances by
definition (mean raw scores). A sample standard deviation (ARO Order's ``_seed_std``) is a spread,
not a score, and is left out too. tests/metrics/test_abstention_property.py runs it on every family,
the registered ones included; the conformance checks run it on a plugin's.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from vlc_harness.metrics.cell import columns_for, specs_of
from vlc_harness.metrics.engine import evaluate
from vlc_harness.metrics.family import Family, FamilyExample
from vlc_harness.metrics.outcomes import ChoiceOutcomes, Outcomes, check_finite, needed_mask
from vlc_harness.types import Instance

TRIALS = 40
SIZE = 10
EXEMPT = ("over answered instances only", "sample std")
"""Averaging texts of the values that are not over all asked instances, or not a score."""
ORDER_SUFFIX = re.compile(r"_order\d+$")
"""A value per presentation order of answers (``<metric>_order<k>``) is described by its metric's spec."""


def score_outcomes(
    instances: list[Instance], scores: np.ndarray, answered: np.ndarray, text: np.ndarray | None = None
) -> Outcomes:
    """Outcomes whose declined instances miss some of their needed pairs (NaN), as stored ones do."""
    out = Outcomes(instances, scores, answered, text_scores=text)
    check_finite(out)
    return out


def random_scores(rng: np.random.Generator, instances: list[Instance]) -> np.ndarray:
    """Scores from {0, 1, 2} at every needed pair, NaN elsewhere."""
    shape = (max(len(i.images) for i in instances), max(len(i.texts) for i in instances))
    scores = rng.integers(0, 3, (len(instances), *shape)).astype(np.float64)
    return np.where(needed_mask(instances, shape), scores, np.nan)


def random_text_scores(rng: np.random.Generator, instances: list[Instance]) -> np.ndarray:
    """Text-text scores from {0, 1, 2} between every two texts of an instance."""
    width = max(len(i.texts) for i in instances)
    return rng.integers(0, 3, (len(instances), width, width)).astype(np.float64)


def decline(rng: np.random.Generator, scores: np.ndarray, k: int) -> None:
    """Instance ``k`` declines some of its pairs (at least one): NaN there."""
    needed = np.argwhere(~np.isnan(scores[k]))
    drop = needed[rng.random(len(needed)) < 0.5] if len(needed) > 1 else needed
    drop = drop if len(drop) else needed[:1]
    for i, j in drop:
        scores[k, i, j] = np.nan


@dataclass(frozen=True)
class Declared:
    """Metric families standing in for a benchmark: all that the metric code reads of one."""

    families: tuple[Family, ...]

    def metric_families(self) -> tuple[Family, ...]:
        return self.families


def values_of(families: Sequence[Family], outcomes: Any) -> dict[tuple[str, str], Any]:
    """Every value of the declarations on the outcomes (coverage and ``_answered`` included), by
    (metric, category)."""
    bench = Declared(tuple(families))
    return {(v.metric, v.category): v for v in evaluate(outcomes, columns_for(bench, outcomes, True), 0, True).values}


def direction(specs: dict[str, Any], metric: str) -> bool:
    """Whether higher is better, from the metric's spec (a choice family's per-order value: its base's)."""
    for candidate in (metric, ORDER_SUFFIX.sub("", metric)):
        if candidate in specs:
            return bool(specs[candidate].higher_is_better)
    raise AssertionError(f"no spec says which way {metric} is better")


def compared(value: Any) -> bool:
    """A value over all asked instances that states a direction of better."""
    return not value.metric.endswith("_answered") and not any(e in value.averaging for e in EXEMPT)


def _choice_pair(
    example: FamilyExample, rng: np.random.Generator, instances: list[Instance], declined: np.ndarray, k: int
) -> tuple[Any, Any]:
    correct = rng.random((SIZE, example.orders)) < 0.5
    asked = ~declined[:, None] | (rng.random((SIZE, example.orders)) < 0.5)
    asked[k] = False
    abstaining = ChoiceOutcomes(instances, correct & asked, asked)
    answered_k = asked.copy()
    answered_k[k] = True
    return abstaining, ChoiceOutcomes(instances, np.where(answered_k, correct, False), answered_k)


def _score_pair(
    example: FamilyExample, rng: np.random.Generator, instances: list[Instance], declined: np.ndarray, k: int
) -> tuple[Any, Any]:
    scores = random_scores(rng, instances)
    answer = scores.copy()
    answer[k] = random_scores(rng, instances)[k]
    text = random_text_scores(rng, instances) if example.text_scores else None
    text_answer = None if text is None else text.copy()
    if text is not None and text_answer is not None:
        text_answer[k] = rng.integers(0, 3, text.shape[1:])
    for j in np.flatnonzero(declined).tolist():
        decline(rng, scores, j)
    abstaining = score_outcomes(instances, scores, ~declined, text)
    now = declined.copy()
    now[k] = False
    answer[now] = scores[now]
    return abstaining, score_outcomes(instances, answer, ~now, text_answer)


def violations(example: FamilyExample, seed: int, trials: int = TRIALS) -> tuple[list[str], Counter[str]]:
    """Values over all asked instances that an abstention made better than an answer; and how many
    comparisons were made, per metric id."""
    rng = np.random.default_rng(seed)
    specs = {s.id: s for s in specs_of(example.families)}
    found: list[str] = []
    checked: Counter[str] = Counter()
    for _ in range(trials):
        instances = [example.make_instance(k, rng) for k in range(SIZE)]
        declined = rng.random(SIZE) < 0.35
        k = int(rng.integers(SIZE))
        declined[k] = True
        pair = _choice_pair if example.orders else _score_pair
        abstaining, answering = pair(example, rng, instances, declined, k)
        worse, better = values_of(example.families, abstaining), values_of(example.families, answering)
        for key, value in worse.items():
            if not compared(value):
                continue
            if key not in better:
                found.append(f"{key}: only when declining")
                continue
            a, b = value.value, better[key].value
            checked[key[0]] += 1
            if np.isnan(a) or np.isnan(b):
                if np.isnan(a) != np.isnan(b):
                    found.append(f"{key}: {a} declining, {b} answering")
                continue
            higher = direction(specs, key[0])
            if (higher and a > b + 1e-12) or (not higher and a < b - 1e-12):
                found.append(f"{key}: {a:.4f} declining beats {b:.4f} answering ({'higher' if higher else 'lower'})")
    return found, checked
