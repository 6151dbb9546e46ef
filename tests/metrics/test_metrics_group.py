"""The 2x2 family (Winoground text/image/group, BiVLC's four directions) on hand-built scores."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest

from vlc_harness.errors import ScoreError
from vlc_harness.metrics import Micro, PerCategory, Tags
from vlc_harness.metrics.engine import evaluate
from vlc_harness.metrics.group import CHANCE_GROUP, CHANCE_IMAGE, CHANCE_TEXT, MATCHED_PAIRS, SCORES, TextImageGroup
from vlc_harness.metrics.outcomes import outcomes_from_matrices
from vlc_harness.types import ImageSource, Instance

ORDER = ("image0", "image1", "caption0", "caption1", "text", "image", "group")


def instance(k: int, category: str = "c", tags: tuple[str, ...] = ()) -> Instance:
    images = (ImageSource(Path("a.png")), ImageSource(Path("b.png")))
    return Instance(f"{category}/{k}", category, images, ("a", "b"), {"matches": MATCHED_PAIRS, "tags": list(tags)})


def columns(matrices, rule: str = "wrong", categories=None):
    family = TextImageGroup({s: s for s in ORDER}, tie_rule=rule)
    instances = [instance(k) if categories is None else instance(k, categories[k]) for k in range(len(matrices))]
    outcomes = outcomes_from_matrices(instances, [np.asarray(m, dtype=float) for m in matrices])
    return {c.metric: c for c in family.columns(outcomes)}


def flags(scores, rule: str = "wrong") -> tuple[bool, ...]:
    cols = columns([scores], rule)
    return tuple(bool(cols[name].credit[0]) for name in ORDER)


def test_perfect_instance_is_right_everywhere():
    assert flags([[0.9, 0.1], [0.2, 0.8]]) == (True,) * 7


def test_each_comparison_reads_its_own_pair():
    # scores[image, caption]; image 0 prefers caption 1, everything else is right
    assert flags([[0.5, 0.6], [0.1, 0.9]]) == (False, True, True, True, False, True, False)
    # caption 0 prefers image 1 (s[1,0] > s[0,0]) but both images pick their captions
    assert flags([[0.5, 0.1], [0.6, 0.9]]) == (True, True, False, True, True, False, False)
    # a blind text-only model scores each caption the same on both images: the image score is
    # never right, the text score can be
    assert flags([[0.7, 0.3], [0.7, 0.3]]) == (True, False, False, False, False, False, False)


def test_ties_are_wrong_and_counted_only_when_the_score_is_lost():
    cols = columns([[[0.5, 0.5], [0.1, 0.9]]])
    ties = {name: bool(cols[name].ties[0]) for name in ORDER}
    assert not cols["image0"].credit[0] and ties["image0"]
    assert not cols["text"].credit[0] and ties["text"]
    assert cols["image"].credit[0] and not ties["image"]  # won: not a tie
    assert not cols["group"].credit[0] and ties["group"]
    lost = columns([[[0.5, 0.5], [0.9, 0.1]]])  # image 1 loses outright, image 0 ties
    assert lost["text"].ties[0]
    assert not columns([[[0.1, 0.5], [0.9, 0.1]]])["text"].ties[0]  # lost with no tie involved


def test_tie_rules_right_and_first_index():
    tied = [[0.5, 0.5], [0.5, 0.5]]
    assert flags(tied, "right") == (True,) * 7
    # first-index: the candidate listed first wins a tie: image 0 picks caption 0 and caption 0
    # picks image 0; image 1 and caption 1 lose theirs
    assert flags(tied, "first-index") == (True, False, True, False, False, False, False)


def test_ties_half_is_the_expected_credit_under_random_tie_breaking():
    cols = columns([[[0.3, 0.3], [0.3, 0.3]], [[0.9, 0.1], [0.2, 0.8]], [[0.5, 0.5], [0.1, 0.9]]])
    half = {name: cols[name].ties_half for name in ORDER}
    assert half["group"][0] == pytest.approx(1 / 6)  # 4 of the 24 orders of four equal scores
    assert half["text"][0] == pytest.approx(1 / 4) and half["image"][0] == pytest.approx(1 / 4)
    assert half["image0"][0] == 0.5
    assert [half[n][1] for n in ORDER] == [1.0] * 7  # no tie: the strict verdicts
    assert half["text"][2] == 0.5 and half["group"][2] == 0.5 and half["image"][2] == 1.0


@pytest.mark.parametrize("i,j", list(itertools.product((0, 1), (0, 1))))
def test_nan_anywhere_is_rejected(i, j):
    scores = np.array([[0.9, 0.1], [0.2, 0.8]])
    scores[i, j] = np.nan
    with pytest.raises(ScoreError):
        columns([scores])
    scores[i, j] = np.inf
    with pytest.raises(ScoreError):
        columns([scores])


def test_shape_is_checked():
    with pytest.raises(ValueError):
        columns([np.zeros((1, 2))])


def test_analytic_chance_matches_all_orderings():
    """Over all 24 orderings of 4 distinct scores: text 1/4, image 1/4, group 1/6."""
    orders = [np.array(p, dtype=float).reshape(2, 2) for p in itertools.permutations(range(4))]
    cols = columns(orders)
    assert cols["text"].credit.mean() == CHANCE_TEXT
    assert cols["image"].credit.mean() == CHANCE_IMAGE
    assert cols["group"].credit.mean() == pytest.approx(CHANCE_GROUP)


def test_values_are_micro_per_category_grouping_and_tag():
    family = TextImageGroup(
        {"group": "group_score"},
        (
            PerCategory(),
            Micro(groups={"a": ("a_x", "a_y"), "b": ("b_x",), "c": ("c_x",)}),
            Tags(lambda i: i.gold["tags"]),
            Micro(),
        ),
    )
    right, wrong, tie = [[0.9, 0.1], [0.2, 0.8]], [[0.1, 0.9], [0.2, 0.8]], [[0.5, 0.5], [0.2, 0.8]]
    rows = [
        ("a_x", right, ()),
        ("a_x", right, ("tag",)),
        ("a_x", wrong, ()),
        ("a_y", right, ()),
        ("b_x", tie, ("tag",)),
    ]
    rows.append(("b_x", wrong, ()))
    instances = [instance(k, c, tags) for k, (c, _, tags) in enumerate(rows)]
    outcomes = outcomes_from_matrices(instances, [np.array(m) for _, m, _ in rows])
    values = {v.category: v for v in evaluate(outcomes, family.columns(outcomes)).values if v.metric == "group_score"}
    assert set(values) == {"a_x", "a_y", "b_x", "a", "b", "tag", "all"}  # empty grouping c is left out
    assert values["a_x"].value == pytest.approx(2 / 3) and values["a_x"].n == 3
    assert values["a"].value == pytest.approx(3 / 4) and values["a"].n == 4  # pooled, not mean of 2/3 and 1
    assert values["b"].ties == 1 and values["b"].value == 0.0
    assert values["tag"].value == 0.5 and values["tag"].ties == 1
    assert values["all"].value == 0.5 and values["all"].n == 6 and values["all"].ties == 1
    assert {v.tie_rule for v in values.values()} == {"wrong"}


def test_colliding_names_are_refused():
    family = TextImageGroup({"group": "g"}, (PerCategory(), Micro(groups={"x": ("x",)})))
    outcomes = outcomes_from_matrices([instance(0, "x")], [np.array([[0.9, 0.1], [0.2, 0.8]])])
    with pytest.raises(ValueError, match="both produce"):
        evaluate(outcomes, family.columns(outcomes))


def test_unknown_scores_and_tie_rules_are_refused_when_declared():
    with pytest.raises(ValueError, match="unknown score"):
        TextImageGroup({"txt": "text_score"})
    with pytest.raises(ValueError, match="tie rule 'half' is not supported"):
        TextImageGroup({"text": "text_score"}, tie_rule="half")
    assert set(SCORES) == set(ORDER)
