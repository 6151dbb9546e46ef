"""Abstentions count honestly: each metric states its rule (hard positives, SeeTRUE, pairwise).

That no rule lets an abstention beat an answer, for every family, is tests/metrics/test_abstention_property.py."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from vlc_harness.metrics.cell import compute_values, specs_of
from vlc_harness.metrics.outcomes import outcomes_from_matrices
from vlc_harness.params import build
from vlc_harness.types import ImageSource, Instance
from vlc_harness_builtins.benchmarks.hard_positives import HardPositives
from vlc_harness_builtins.benchmarks.seetrue import SeeTrue

HP = HardPositives(build(HardPositives.Params, {"version": "custom"}), Path("."))


def hp_case(k: int, category: str, scores) -> Instance:
    gold = {"original": 0, "positive": 1, "negative": 2}
    return Instance(f"{category}/{k}", category, (ImageSource(Path("x.jpg")),), ("c", "cp", "cn"), gold), scores


def hp_values(rows, abstained):
    instances = [hp_case(k, c, s)[0] for k, (c, s) in enumerate(rows)]
    matrices = [np.array([s], dtype=float) for _, s in rows]
    outcomes = outcomes_from_matrices(instances, matrices, [k not in abstained for k in range(len(rows))])
    return {(v.metric, v.category): v for v in compute_values(HP, outcomes, coverage=True)}


BRITTLE, ROBUST, WRONG = (0.9, 0.1, 0.5), (0.9, 0.8, 0.1), (0.1, 0.2, 0.9)
DECLINED = (0.9, np.nan, 0.5)


def test_an_abstention_counts_as_brittle_wrong_and_a_full_drop():
    rows = [("swap", BRITTLE), ("swap", ROBUST), ("swap", WRONG), ("swap", DECLINED), ("swap", DECLINED)]
    values = hp_values(rows, abstained={3, 4})
    assert values[("brittleness", "swap")].value == pytest.approx(3 / 5)  # 1 brittle + 2 abstentions
    assert values[("brittleness_answered", "swap")].value == pytest.approx(1 / 3)
    assert values[("aug_accuracy", "swap")].value == pytest.approx(1 / 5)
    assert values[("orig_accuracy", "swap")].value == pytest.approx(2 / 5)
    # over the answered instances the drop is orig - aug; over all asked each abstention is a drop of 1
    answered = values[("orig_accuracy_answered", "swap")].value - values[("aug_accuracy_answered", "swap")].value
    assert values[("accuracy_drop_answered", "swap")].value == pytest.approx(answered) == pytest.approx(1 / 3)
    assert values[("accuracy_drop", "swap")].value == pytest.approx((1 + 2) / 5)
    assert "abstention counts against the model" in values[("accuracy_drop", "swap")].averaging
    assert values[("coverage", "swap")].value == pytest.approx(3 / 5)
    assert values[("brittleness", "swap")].n == 5 and values[("brittleness_answered", "swap")].n == 3
    assert "abstention counts against the model" in values[("brittleness", "swap")].averaging


def test_mean_scores_are_over_answered_instances_by_definition():
    rows = [("swap", BRITTLE), ("swap", ROBUST), ("swap", DECLINED)]
    values = hp_values(rows, abstained={2})
    mean = values[("mean_score_original", "swap")]
    assert mean.value == pytest.approx(0.9) and mean.n == 2  # not (0.9 + 0.9 + 0) / 3
    assert "answered instances only" in mean.averaging


def test_the_measured_effect_on_brittleness_ordering():
    """Credit 0 for an abstention made brittleness (lower is better) look better; now it cannot."""
    rng = np.random.default_rng(0)
    rows = [("swap", tuple(rng.normal(size=3))) for _ in range(400)]
    abstained = set(rng.choice(400, 40, replace=False).tolist())
    rows = [(c, (s[0], np.nan, s[2]) if k in abstained else s) for k, (c, s) in enumerate(rows)]
    values = hp_values(rows, abstained)
    asked, answered = values[("brittleness", "swap")].value, values[("brittleness_answered", "swap")].value
    brittle_answered = answered * 360
    assert asked == pytest.approx((brittle_answered + 40) / 400)
    assert asked > answered > brittle_answered / 400  # v0.1 reported the last one


def test_declining_hard_cases_no_longer_shrinks_the_drop():
    """The reported case: 12 of 16 declined, one drop among the 4 answered. Counted wrong in both
    accuracies, the declined cases had a drop of 0 and the value over all asked was 1/16."""
    rows = [("swap", BRITTLE), ("swap", ROBUST), ("swap", ROBUST), ("swap", ROBUST)]
    rows += [("swap", DECLINED)] * 12
    values = hp_values(rows, abstained=set(range(4, 16)))
    assert values[("accuracy_drop_answered", "swap")].value == pytest.approx(1 / 4)
    assert values[("accuracy_drop", "swap")].value == pytest.approx(13 / 16)  # was 1/16
    assert values[("accuracy_drop", "swap")].value >= values[("accuracy_drop_answered", "swap")].value


def test_auc_ranks_an_abstention_as_the_worst_case_with_the_answered_auc_beside_it():
    bench = SeeTrue(build(SeeTrue.Params, {"version": "custom"}), Path("."))
    rows = [("s", 1, 0.9), ("s", 0, 0.1), ("s", 1, 0.2), ("s", 0, 0.8), ("s", 1, np.nan), ("s", 0, np.nan)]
    instances = [
        Instance(f"s/{k}", c, (ImageSource(Path("x.png")),), ("t",), {"label": y}) for k, (c, y, _) in enumerate(rows)
    ]
    outcomes = outcomes_from_matrices(instances, [np.array([[v]]) for *_, v in rows], [k < 4 for k in range(6)])
    values = {(v.metric, v.category): v for v in compute_values(bench, outcomes, coverage=True)}
    # answered: 3 of the 4 (positive, negative) pairs ordered right; the 5 pairs an abstention is in count 0
    assert values[("auc_answered", "s")].value == 0.75 and values[("auc_answered", "s")].n == 4
    assert values[("auc", "s")].value == pytest.approx(3 / 9) and values[("auc", "s")].n == 6
    assert values[("auc", "s")].ties == 0
    assert "abstention counts as the worst case" in values[("auc", "s")].averaging
    assert "answered instances only" in values[("auc_answered", "s")].averaging
    assert values[("coverage", "all")].value == pytest.approx(4 / 6)


def test_every_abstention_variant_has_a_spec():
    ids = {s.id for s in specs_of(HP.metric_families())}
    assert {"brittleness_answered", "mean_score_original_answered", "coverage", "aug_accuracy_ties_half"} <= ids
