"""AllCorrect: a group of instances counts when all of them are correct (hand-computed values,
ties, abstentions, incomplete groups, and the group bootstrap carried by each group's representative)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from vlc_harness.metrics import PairwiseAccuracy, PerCategory
from vlc_harness.metrics.bootstrap import Resampler
from vlc_harness.metrics.conjunction import AllCorrect
from vlc_harness.metrics.engine import evaluate
from vlc_harness.metrics.group import MATCHED_PAIRS, TextImageGroup
from vlc_harness.metrics.outcomes import outcomes_from_matrices
from vlc_harness.types import ImageSource, Instance

# (instance id, group, scores of image 0 against 3 captions, the gold caption first)
ROWS = [
    ("c/0", "g1", [0.9, 0.1, 0.2]),
    ("c/1", "g2", [0.9, 0.1, 0.2]),
    ("c/2", "g3", [0.5, 0.5, 0.1]),  # tied with one competitor: first-index right, strict wrong, 1/2 at random
    ("c/3", "g4", [0.5, 0.5, 0.5]),  # tied with two: first-index right, strict wrong, 1/3 at random
    ("c/4", "g1", [0.8, 0.3, 0.1]),
    ("c/5", "g2", [0.2, 0.9, 0.1]),  # g2's second member fails: g2 is wrong
    ("c/6", "g3", [0.9, 0.1, 0.1]),
    ("c/7", "g4", [0.4, 0.4, 0.1]),  # tied with one: 1/2 at random
    ("c/8", None, [0.1, 0.9, 0.1]),  # in no group
]


def instance(k: str, group: str | None, category: str = "c") -> Instance:
    gold = {"positive": 0} if group is None else {"positive": 0, "g": group}
    return Instance(k, category, (ImageSource(Path(f"{k}.png")),), ("a", "b", "c"), gold)


def family(rule: str = "first-index", size: int | None = 2) -> tuple[PairwiseAccuracy, AllCorrect]:
    base = PairwiseAccuracy("acc", "per instance", (PerCategory(),), tie_rule=rule, chance=1 / 3)
    pairs = AllCorrect("pair_acc", "both", base, lambda inst: inst.gold.get("g"), (PerCategory(),), size=size)
    return base, pairs


def values(rows, rule: str = "first-index", size: int | None = 2, answered=None, coverage: bool = False):
    instances = [instance(k, g) for k, g, _ in rows]
    outcomes = outcomes_from_matrices(instances, [np.array([s]) for _, _, s in rows], answered)
    _, pairs = family(rule, size)
    return {(v.metric, v.category): v for v in evaluate(outcomes, pairs.columns(outcomes), 0, coverage).values}


def test_a_group_counts_when_all_of_its_members_are_right_ties_by_the_base_rule():
    got = values(ROWS)
    v = got[("pair_acc", "c")]
    assert (v.value, v.n, v.ties, v.tie_rule) == (0.75, 4, 2, "first-index")  # g1, g3, g4 right; g2 fails
    assert got[("pair_acc_ties_half", "c")].value == pytest.approx((1 + 0 + 1 / 2 + 1 / 3 * 1 / 2) / 4)
    strict = values(ROWS, rule="wrong")[("pair_acc", "c")]
    assert (strict.value, strict.n, strict.ties) == (0.25, 4, 2)  # only g1


def test_a_group_missing_a_member_counts_wrong_when_the_size_is_declared():
    """What'sUp's rule: a member never scored is wrong, the group stays in the denominator."""
    cut = [r for r in ROWS if r[0] != "c/6"]  # g3 loses its untied member
    got = values(cut)
    assert got[("pair_acc", "c")].value == pytest.approx(2 / 4)  # g1, g4 of g1, g2, g3, g4
    assert (got[("pair_acc", "c")].n, got[("pair_acc", "c")].ties) == (4, 1)  # g3's tie no longer counts
    assert got[("pair_acc_ties_half", "c")].value == pytest.approx((1 + 0 + 0 + 1 / 3 * 1 / 2) / 4)
    assert values(cut, size=None)[("pair_acc", "c")].value == 0.75  # g3 judged on its one member
    with pytest.raises(ValueError, match="at least 2 members"):
        family(size=1)


def test_an_abstained_member_makes_its_group_wrong_and_unanswered():
    answered = [k != "c/4" for k, _, _ in ROWS]  # g1's second member declined
    got = values(ROWS, answered=answered, coverage=True)
    assert got[("pair_acc", "c")].value == 0.5 and got[("pair_acc", "c")].n == 4  # g3, g4
    assert got[("pair_acc_answered", "c")].value == pytest.approx(2 / 3) and got[("pair_acc_answered", "c")].n == 3


def test_groups_never_span_categories():
    rows = [("a/0", "g", [0.9, 0.1, 0.1]), ("b/0", "g", [0.1, 0.9, 0.1]), ("a/1", "g", [0.9, 0.1, 0.1])]
    instances = [instance(k, g, k.split("/")[0]) for k, g, _ in rows]
    outcomes = outcomes_from_matrices(instances, [np.array([s]) for _, _, s in rows])
    _, pairs = family(size=None)
    got = {(v.metric, v.category): v for v in evaluate(outcomes, pairs.columns(outcomes)).values}
    assert (got[("pair_acc", "a")].value, got[("pair_acc", "b")].value) == (1.0, 0.0)


def test_specs_identity_and_a_family_of_several_metrics():
    base, pairs = family()
    specs = {s.id: s for s in pairs.specs()}
    assert specs["pair_acc"].tie_rule == "first-index" and specs["pair_acc"].direction == "i2t"
    assert {"pair_acc_ties_half", "pair_acc_answered"} <= set(specs)
    assert pairs.identity() == f"all_correct@2[{base.identity()}]"
    group = TextImageGroup({"text": "text", "group": "group"})
    with pytest.raises(ValueError, match="column="):
        AllCorrect("x", "x", group, lambda inst: "k")
    assert AllCorrect("x", "x", group, lambda inst: "k", column="group").base.id == "group"


def test_pairs_of_2x2_instances_conjoin_the_chosen_score():
    images = (ImageSource(Path("a.png")), ImageSource(Path("b.png")))
    instances = [Instance(f"c/{k}", "c", images, ("a", "b"), {"matches": MATCHED_PAIRS}) for k in range(2)]
    matrices = [np.array([[0.9, 0.1], [0.2, 0.8]]), np.array([[0.9, 0.1], [0.8, 0.2]])]  # the second: text wrong
    outcomes = outcomes_from_matrices(instances, matrices)
    group = TextImageGroup({"image0": "image0", "text": "text"})
    by = {c: AllCorrect(c, c, group, lambda inst: "k", column=c) for c in ("image0", "text")}
    assert by["image0"].columns(outcomes)[0].credit.sum() == 1.0  # both instances' image 0 right
    assert by["text"].columns(outcomes)[0].credit.sum() == 0.0


def test_the_bootstrap_resamples_groups_through_their_representatives():
    rng = np.random.default_rng(3)
    groups, size = 300, 4
    verdict = rng.random(groups) < 0.4  # every member of a group shares its verdict
    rows = []
    for g in range(groups):
        for m in range(size):
            scores = [0.9, 0.1, 0.1] if verdict[g] else [0.1, 0.9, 0.1]
            rows.append((f"c/{g}-{m}", f"g{g}", scores))
    instances = [instance(k, g) for k, g, _ in rows]
    outcomes = outcomes_from_matrices(instances, [np.array([s]) for _, _, s in rows])
    base, sets = family(size=size)
    result = evaluate(outcomes, sets.columns(outcomes) + base.columns(outcomes), 2000)
    reps = result.replicates[("pair_acc", "c")]
    # exactly: each resample holds a group as often as it drew the member whose id sorts first
    resampler = Resampler([i.id for i in instances], outcomes.category, 1, 2000)
    ids = np.asarray([i.id for i in instances])
    first = [int(np.flatnonzero(ids == f"c/{g}-0")[0]) for g in range(groups)]
    position = {int(p): m for m, p in enumerate(resampler.members[0])}
    counts = np.concatenate([block[0] for block in resampler.blocks(["c"])])[:, [position[p] for p in first]]
    assert np.allclose(reps, counts @ verdict / counts.sum(axis=1))
    # so the spread is the group bootstrap's, not the narrower one of members drawn independently
    p = verdict.mean()
    assert reps.std() == pytest.approx(np.sqrt(p * (1 - p) / groups), rel=0.1)
    members = result.replicates[("acc", "c")]
    assert members.std() == pytest.approx(np.sqrt(p * (1 - p) / (groups * size)), rel=0.1)
