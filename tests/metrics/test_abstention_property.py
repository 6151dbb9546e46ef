"""Abstaining never beats answering: for every metric family, the core's (found by walking
``vlc_harness.metrics``) and every registered one (``register_metric_families``), every value over
all asked instances (and its ``_ties_half`` twin) is no better when a model declines an instance
than when it answers it, whatever the answer.

The core's families are parametrized from the walk; the registered ones are found when their test
runs. The check is :func:`vlc_harness.testing.abstention.violations` (the conformance checks run it on a
plugin's families too), on each family's conformance examples: the core's in
``vlc_harness.testing.family_examples``, a plugin's from its ``conformance_example``. Values over
answered instances only may move either way (``<metric>_answered``, mean raw scores), and a sample
standard deviation over seeds is a spread, not a score. The last tests show the check fails on the
rule it replaced (an abstention counting as a drop of 0) and covers a family a plugin registers.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import pkgutil
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import vlc_harness.metrics
from vlc_harness.metrics.aggregate import Std
from vlc_harness.metrics.families import CORE_FAMILIES
from vlc_harness.metrics.family import Family, FamilyExample
from vlc_harness.metrics.hard_positive import HardPositive, MeanScore
from vlc_harness.metrics.order import OrderAccuracy
from vlc_harness.metrics.outcomes import Outcomes
from vlc_harness.plugins import get_plugins, import_file
from vlc_harness.testing.abstention import SIZE, TRIALS, decline, random_scores, score_outcomes, values_of, violations
from vlc_harness.testing.examples import family_examples
from vlc_harness.testing.family_examples import AGGREGATE, EXAMPLES, HP_GOLD, one_image

RECALL_AT_K = Path(__file__).resolve().parents[2] / "docs" / "examples" / "recall_at_k.py"


def families_of_the_harness() -> set[type[Family]]:
    """Every concrete metric family defined in ``vlc_harness.metrics``."""
    found: set[type[Family]] = set()
    for info in pkgutil.iter_modules(vlc_harness.metrics.__path__, "vlc_harness.metrics."):
        module = importlib.import_module(info.name)
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if issubclass(cls, Family) and cls is not Family and cls.__module__ == module.__name__:
                found.add(cls)
    return found


def families_under_test() -> set[type[Family]]:
    """The core's families and every family a loaded plugin registered."""
    return families_of_the_harness() | {r.cls for r in get_plugins().families.entries.values()}


def checked_comparisons(family: type[Family], tmp_path: Path) -> Counter[str]:
    """Run the check on every example of ``family``; the comparisons made, per metric id."""
    core = EXAMPLES.get(family)  # read directly: the core's check needs no plugin to load
    examples = list(core()) if core is not None else family_examples(family, tmp_path)
    assert examples, f"{family.__name__} has no conformance example"
    total: Counter[str] = Counter()
    for index, example in enumerate(examples):
        found, checked = violations(example, seed=1000 + index)
        assert not found, found[:5]
        total += checked
    return total


def test_every_family_of_the_harness_is_registered_by_the_core():
    assert families_of_the_harness() == set(CORE_FAMILIES)
    registered = get_plugins().families.entries
    assert all(
        registered[c.name].cls is c and registered[c.name].plugin == "vlc_harness.metrics.families"
        for c in CORE_FAMILIES
    )


@pytest.mark.parametrize(
    "family", sorted(families_of_the_harness(), key=lambda c: c.__name__), ids=lambda c: c.__name__
)
def test_abstaining_never_beats_answering(family, tmp_path):
    total = checked_comparisons(family, tmp_path)
    own = sum(n for metric, n in total.items() if metric != "coverage")
    if family is MeanScore:  # mean raw scores are over answered instances by definition: nothing to compare
        assert own == 0 and total["coverage"] > 0
    else:
        assert own > TRIALS, f"{family.__name__}: only {own} comparisons"


def test_every_family_a_plugin_registers_keeps_it(tmp_path):
    """The loaded plugins' families (found when the test runs, so a broken plugin fails here only)."""
    for family in sorted(families_under_test() - families_of_the_harness(), key=lambda c: c.__name__):
        (tmp_path / family.name).mkdir()
        total = checked_comparisons(family, tmp_path / family.name)
        assert sum(total.values()) > 0, f"{family.__name__}: nothing compared"


def test_a_family_a_plugin_registers_is_checked(vlc_registered, tmp_path):
    plugin = import_file("abstention_check_recall_at_k", RECALL_AT_K)
    assert plugin.TextRecallAtK not in families_under_test()
    with vlc_registered(plugin):
        assert plugin.TextRecallAtK in families_under_test()
        total = checked_comparisons(plugin.TextRecallAtK, tmp_path)
        assert sum(total.values()) > TRIALS
        (tmp_path / "all").mkdir()
        test_every_family_a_plugin_registers_keeps_it(tmp_path / "all")


def test_mean_scores_say_they_are_over_answered_instances():
    (example,) = EXAMPLES[MeanScore]()
    rng = np.random.default_rng(0)
    instances = [example.make_instance(k, rng) for k in range(SIZE)]
    scores = random_scores(rng, instances)
    decline(rng, scores, 0)
    answered = np.ones(SIZE, dtype=bool)
    answered[0] = False
    values = values_of(example.families, score_outcomes(instances, scores, answered))
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
    found, _ = violations(FamilyExample((DropOfZero(AGGREGATE),), one_image(3, HP_GOLD)), seed=7)
    assert found and all(f.startswith("('accuracy_drop") for f in found)


def test_the_seed_std_is_left_out_as_a_spread():
    (example,) = EXAMPLES[OrderAccuracy]()
    assert any(isinstance(a, Std) for f in example.families for a in f.aggregations)
