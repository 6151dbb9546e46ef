"""Abstaining never beats answering: for every metric family of ``vlc_harness.metrics``, every value
over all asked instances (and its ``_ties_half`` twin) is no better when a model declines an
instance than when it answers it, whatever the answer.

A seeded loop over random outcome sets (scores drawn from {0, 1, 2}, so ties are frequent; about a
third of the instances declined, each with some of its pairs missing): per trial, one declined
instance is answered instead with fresh random scores (or answers), and every value over all asked
instances is compared, in the direction its spec states. Values over answered instances only may
move either way: ``<metric>_answered`` and the values whose averaging says they are over answered
instances by definition (mean raw scores). A sample standard deviation over seeds (ARO Order's
``_seed_std``) is a spread, not a score, and is left out too. The last test shows the check fails
on the rule it replaced (an abstention counting as a drop of 0).
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import pkgutil
import re
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

import vlc_harness.metrics
from vlc_harness.metrics.aggregate import Macro, Micro, PerCategory, Std
from vlc_harness.metrics.answers import QuestionImageGroup
from vlc_harness.metrics.auc import RocAuc
from vlc_harness.metrics.cell import columns_for, specs_of
from vlc_harness.metrics.conjunction import AllCorrect
from vlc_harness.metrics.engine import evaluate
from vlc_harness.metrics.family import Family
from vlc_harness.metrics.group import TextImageGroup
from vlc_harness.metrics.hard_positive import HardPositive, MeanScore
from vlc_harness.metrics.order import OrderAccuracy
from vlc_harness.metrics.outcomes import ChoiceOutcomes, Outcomes, check_finite, needed_mask
from vlc_harness.metrics.pairwise import PairwiseAccuracy
from vlc_harness.metrics.text_only import TextOnlyTriplet
from vlc_harness.types import ImageSource, Instance

TRIALS = 40
SIZE = 10
CATEGORIES = ("a", "b")
WORDS = ("a red cup", "a cup red", "a red cup", "a blue cup", "a blue plate")
"""Texts drawn at random: the word-order audit sees identical, same-word and different captions."""
AGGREGATE = (PerCategory(), Micro(), Macro("{metric}_macro"))
EXEMPT = ("over answered instances only", "sample std")
"""Averaging texts of the values that are not over all asked instances, or not a score."""


@dataclasses.dataclass
class Case:
    """Families, how to make one instance, and whether outcomes are scores or answers (``orders``)."""

    families: Sequence[Family]
    make: Callable[[int, np.random.Generator], Instance]
    orders: int = 0
    text_scores: bool = False
    """Whether the outcomes carry text-text scores (read by the text-only family)."""


def _image(k: int) -> tuple[ImageSource, ...]:
    return (ImageSource(Path(f"{k}.png")),)


def _texts(rng: np.random.Generator, n: int) -> tuple[str, ...]:
    return tuple(str(w) for w in rng.choice(WORDS, n))


def one_image(n_texts: int, gold: dict[str, Any]) -> Callable[[int, np.random.Generator], Instance]:
    """Instances of 1 image and ``n_texts`` texts."""

    def make(k: int, rng: np.random.Generator) -> Instance:
        extra = {"group": f"g{k // 2}"} if "group" in gold else {}
        g = {key: v for key, v in gold.items() if key != "group"} | extra
        return Instance(f"{CATEGORIES[k % 2]}/{k}", CATEGORIES[k % 2], _image(k), _texts(rng, n_texts), g)

    return make


def two_by_two(k: int, rng: np.random.Generator) -> Instance:
    images = (ImageSource(Path(f"{k}a.png")), ImageSource(Path(f"{k}b.png")))
    return Instance(
        f"{CATEGORIES[k % 2]}/{k}", CATEGORIES[k % 2], images, _texts(rng, 2), {"matches": [[0, 0], [1, 1]]}
    )


def labelled(k: int, rng: np.random.Generator) -> Instance:
    return Instance(f"{CATEGORIES[k % 2]}/{k}", CATEGORIES[k % 2], _image(k), ("t",), {"label": (k // 2) % 2})


def order_case(k: int, rng: np.random.Generator) -> Instance:
    gold = {"identical": [bool(b) for b in rng.integers(0, 2, 4)]}
    return Instance(f"seed{k % 2}/{k}", f"seed{k % 2}", _image(k), _texts(rng, 5), gold)


HP_GOLD = {"original": 0, "positive": 1, "negative": 2}


def pairwise_families() -> list[Family]:
    out: list[Family] = []
    for rule in ("wrong", "right", "first-index"):
        out.append(PairwiseAccuracy(f"acc_{rule}", "gold against every other text", AGGREGATE, tie_rule=rule))
        out.append(
            PairwiseAccuracy(
                f"orig_{rule}", "c against c_n", AGGREGATE, tie_rule=rule, gold="original", against="negative"
            )
        )
    return out


def group_families() -> list[Family]:
    ids = {s: f"{s}_{{}}" for s in ("text", "image", "group", "image0", "image1", "caption0", "caption1")}
    return [
        TextImageGroup({s: i.format(rule) for s, i in ids.items()}, AGGREGATE, tie_rule=rule)
        for rule in ("wrong", "right", "first-index")
    ]


def all_correct_families() -> list[Family]:
    out: list[Family] = []
    for rule in ("wrong", "right", "first-index"):
        base = PairwiseAccuracy(f"acc_{rule}", "per instance", (PerCategory(),), tie_rule=rule)
        key = lambda inst: inst.gold.get("group")  # noqa: E731
        out.append(AllCorrect(f"pair_{rule}", "both", base, key, AGGREGATE, size=2))
        out.append(AllCorrect(f"any_size_{rule}", "all present", base, key, (PerCategory(), Micro())))
    return out


def order_families() -> list[Family]:
    return [
        OrderAccuracy(
            f"order_{rule}",
            ("p1", "p2", "p3", "p4"),
            pairwise_id=f"pairwise_{rule}",
            identical_id=f"identical_{rule}",
            chance=0.2,
            tie_rule=rule,
        )
        for rule in ("right", "wrong", "first-index")
    ]


CASES: dict[type[Family], list[Case]] = {
    PairwiseAccuracy: [
        Case(pairwise_families(), one_image(3, {"positive": 0})),
        Case(pairwise_families(), one_image(3, HP_GOLD)),
        Case([PairwiseAccuracy("choice", "answers", AGGREGATE)], one_image(2, {"positive": 0}), orders=2),
    ],
    TextImageGroup: [Case(group_families(), two_by_two)],
    RocAuc: [
        Case(
            [
                RocAuc("auc", "continuous"),
                RocAuc("auc_binary", "hard predictions", threshold=0.5),
                RocAuc("auc_micro", "pooled", AGGREGATE),
            ],
            labelled,
        )
    ],
    HardPositive: [Case([HardPositive(AGGREGATE)], one_image(3, HP_GOLD))],
    MeanScore: [Case([MeanScore(r, AGGREGATE) for r in ("original", "positive", "negative")], one_image(3, HP_GOLD))],
    OrderAccuracy: [Case(order_families(), order_case)],
    QuestionImageGroup: [
        Case(
            [QuestionImageGroup({"acc": "acc", "question": "q_acc", "image": "i_acc", "group": "g_acc"})],
            one_image(1, {}),
            orders=4,
        )
    ],
    AllCorrect: [Case(all_correct_families(), one_image(3, {"positive": 0, "group": True}))],
    TextOnlyTriplet: [Case([TextOnlyTriplet(AGGREGATE)], one_image(3, HP_GOLD), text_scores=True)],
}


def families_of_the_harness() -> set[type[Family]]:
    """Every concrete metric family defined in ``vlc_harness.metrics``."""
    found: set[type[Family]] = set()
    for info in pkgutil.iter_modules(vlc_harness.metrics.__path__, "vlc_harness.metrics."):
        module = importlib.import_module(info.name)
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if issubclass(cls, Family) and cls is not Family and cls.__module__ == module.__name__:
                found.add(cls)
    return found


# -- the check -----------------------------------------------------------------------------------
def score_outcomes(
    instances: list[Instance], scores: np.ndarray, answered: np.ndarray, text: np.ndarray | None = None
) -> Outcomes:
    """Outcomes whose declined instances miss some of their needed pairs (NaN), as stored ones do."""
    out = Outcomes(instances, scores, answered, text_scores=text)
    check_finite(out)
    return out


def random_scores(rng: np.random.Generator, instances: list[Instance]) -> np.ndarray:
    shape = (max(len(i.images) for i in instances), max(len(i.texts) for i in instances))
    scores = rng.integers(0, 3, (len(instances), *shape)).astype(np.float64)
    return np.where(needed_mask(instances, shape), scores, np.nan)


def decline(rng: np.random.Generator, scores: np.ndarray, k: int) -> None:
    """Instance ``k`` declines some of its pairs (at least one): NaN there."""
    needed = np.argwhere(~np.isnan(scores[k]))
    drop = needed[rng.random(len(needed)) < 0.5] if len(needed) > 1 else needed
    drop = drop if len(drop) else needed[:1]
    for i, j in drop:
        scores[k, i, j] = np.nan


def values_of(families: Sequence[Family], outcomes: Any) -> dict[tuple[str, str], Any]:
    bench = SimpleNamespace(metric_families=lambda: tuple(families))
    return {(v.metric, v.category): v for v in evaluate(outcomes, columns_for(bench, outcomes, True), 0, True).values}


def direction(specs: dict[str, Any], metric: str) -> bool:
    """Whether higher is better, from the metric's spec (a choice family's per-order value: its base's)."""
    for candidate in (metric, re.sub(r"_order\d+$", "", metric)):
        if candidate in specs:
            return bool(specs[candidate].higher_is_better)
    raise AssertionError(f"no spec says which way {metric} is better")


def compared(value: Any) -> bool:
    """A value over all asked instances that states a direction of better."""
    return not value.metric.endswith("_answered") and not any(e in value.averaging for e in EXEMPT)


def violations(case: Case, seed: int, trials: int = TRIALS) -> tuple[list[str], Counter[str]]:
    """Values over all asked instances that an abstention made better than an answer; and how many
    comparisons were made, per metric id."""
    rng = np.random.default_rng(seed)
    specs = {s.id: s for s in specs_of(case.families)}
    found: list[str] = []
    checked: Counter[str] = Counter()
    for _ in range(trials):
        instances = [case.make(k, rng) for k in range(SIZE)]
        declined = rng.random(SIZE) < 0.35
        k = int(rng.integers(SIZE))
        declined[k] = True
        if case.orders:
            correct = rng.random((SIZE, case.orders)) < 0.5
            asked = ~declined[:, None] | (rng.random((SIZE, case.orders)) < 0.5)
            asked[k] = False
            abstaining = ChoiceOutcomes(instances, correct & asked, asked)
            answered_k = asked.copy()
            answered_k[k] = True
            answering = ChoiceOutcomes(instances, np.where(answered_k, correct, False), answered_k)
        else:
            scores = random_scores(rng, instances)
            answer = scores.copy()
            answer[k] = random_scores(rng, instances)[k]
            text = rng.integers(0, 3, (SIZE, 3, 3)).astype(np.float64) if case.text_scores else None
            text_answer = None if text is None else text.copy()
            if text is not None and text_answer is not None:
                text_answer[k] = rng.integers(0, 3, (3, 3))
            for j in np.flatnonzero(declined):
                decline(rng, scores, j)
            abstaining = score_outcomes(instances, scores, ~declined, text)
            now = declined.copy()
            now[k] = False
            answer[now] = scores[now]
            answering = score_outcomes(instances, answer, ~now, text_answer)
        worse, better = values_of(case.families, abstaining), values_of(case.families, answering)
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


def test_every_family_of_the_harness_has_a_case():
    assert families_of_the_harness() == set(CASES)


@pytest.mark.parametrize("family", sorted(CASES, key=lambda c: c.__name__), ids=lambda c: c.__name__)
def test_abstaining_never_beats_answering(family):
    total: Counter[str] = Counter()
    for index, case in enumerate(CASES[family]):
        found, checked = violations(case, seed=1000 + index)
        assert not found, found[:5]
        total += checked
    own = sum(n for metric, n in total.items() if metric != "coverage")
    if family is MeanScore:  # mean raw scores are over answered instances by definition: nothing to compare
        assert own == 0 and total["coverage"] > 0
    else:
        assert own > TRIALS, f"{family.__name__}: only {own} comparisons"


def test_mean_scores_say_they_are_over_answered_instances():
    case = CASES[MeanScore][0]
    rng = np.random.default_rng(0)
    instances = [case.make(k, rng) for k in range(SIZE)]
    scores = random_scores(rng, instances)
    decline(rng, scores, 0)
    answered = np.ones(SIZE, dtype=bool)
    answered[0] = False
    values = values_of(case.families, score_outcomes(instances, scores, answered))
    means = [v for v in values.values() if v.metric.startswith("mean_score") and not v.metric.endswith("_answered")]
    assert means and all("over answered instances only (by definition)" in v.averaging for v in means)


class DropOfZero(HardPositive):
    """The rule this issue replaced: an abstention counted wrong in both accuracies, a drop of 0."""

    def columns(self, outcomes: Outcomes) -> list[Any]:
        return [
            dataclasses.replace(c, abstention="wrong") if c.metric == "accuracy_drop" else c
            for c in super().columns(outcomes)
        ]


def test_the_check_fails_on_the_old_drop_rule():
    found, _ = violations(Case([DropOfZero(AGGREGATE)], one_image(3, HP_GOLD)), seed=7)
    assert found and all(f.startswith("('accuracy_drop") for f in found)


def test_the_seed_std_is_left_out_as_a_spread():
    case = CASES[OrderAccuracy][0]
    assert any(isinstance(a, Std) for f in case.families for a in f.aggregations)
