"""The shared 2x2 metrics (Winoground text/image/group, BiVLC's four directions) on hand-built scores."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from harness.errors import ScoreError
from harness.metrics import Decision
from harness.metrics_group import (
    CHANCE_GROUP,
    CHANCE_IMAGE,
    CHANCE_TEXT,
    all_of,
    group_decisions,
    group_values,
)


def flags(scores) -> tuple[bool, ...]:
    g = group_decisions(np.array(scores, dtype=float))
    return (g.image0.won, g.image1.won, g.caption0.won, g.caption1.won, g.text.won, g.image.won, g.group.won)


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


def test_ties_are_wrong_and_counted():
    g = group_decisions(np.array([[0.5, 0.5], [0.1, 0.9]]))
    assert not g.image0.won and g.image0.tied
    assert not g.text.won and g.text.tied
    assert g.image.won and not g.image.tied
    assert not g.group.won and g.group.tied
    everything_tied = group_decisions(np.full((2, 2), 0.3))
    assert not everything_tied.group.won and everything_tied.group.tied


def test_conjunction_ties_only_when_lost():
    assert all_of([Decision(True, False), Decision(True, False)]) == Decision(True, False)
    assert all_of([Decision(False, True), Decision(True, False)]) == Decision(False, True)
    assert all_of([Decision(False, False), Decision(False, True)]) == Decision(False, True)
    assert all_of([Decision(False, False), Decision(True, False)]) == Decision(False, False)


@pytest.mark.parametrize("i,j", list(itertools.product((0, 1), (0, 1))))
def test_nan_anywhere_is_rejected(i, j):
    scores = np.array([[0.9, 0.1], [0.2, 0.8]])
    scores[i, j] = np.nan
    with pytest.raises(ScoreError):
        group_decisions(scores)
    scores[i, j] = np.inf
    with pytest.raises(ScoreError):
        group_decisions(scores)


def test_shape_is_checked():
    with pytest.raises(ValueError):
        group_decisions(np.zeros((1, 2)))


def test_analytic_chance_matches_all_orderings():
    """Over all 24 orderings of 4 distinct scores: text 1/4, image 1/4, group 1/6."""
    text = image = group = 0
    orders = list(itertools.permutations(range(4)))
    for p in orders:
        g = group_decisions(np.array(p, dtype=float).reshape(2, 2))
        text += g.text.won
        image += g.image.won
        group += g.group.won
    assert text / len(orders) == CHANCE_TEXT
    assert image / len(orders) == CHANCE_IMAGE
    assert group / len(orders) == pytest.approx(CHANCE_GROUP)


def test_group_values_are_micro_per_category_grouping_and_tag():
    right, wrong, tie = Decision(True, False), Decision(False, False), Decision(False, True)
    by_category = {"a_x": [right, right, wrong], "a_y": [right], "b_x": [tie, wrong]}
    values = {
        v.category: v
        for v in group_values(
            "group_score",
            by_category,
            groupings={"a": ("a_x", "a_y"), "b": ("b_x",), "c": ("c_x",)},
            extra={"tag": [right, tie]},
        )
    }
    assert set(values) == {"a_x", "a_y", "b_x", "a", "b", "tag", "all"}  # empty grouping c is left out
    assert values["a_x"].value == pytest.approx(2 / 3) and values["a_x"].n == 3
    assert values["a"].value == pytest.approx(3 / 4) and values["a"].n == 4  # pooled, not mean of 2/3 and 1
    assert values["b"].ties == 1 and values["b"].value == 0.0
    assert values["tag"].value == 0.5 and values["tag"].ties == 1
    assert values["all"].value == 0.5 and values["all"].n == 6 and values["all"].ties == 1
    assert {v.tie_rule for v in values.values()} == {"wrong"}


def test_group_values_refuse_colliding_names():
    d = {"x": [Decision(True, False)]}
    with pytest.raises(ValueError):
        group_values("m", d, groupings={"x": ("x",)})
    with pytest.raises(ValueError):
        group_values("m", d, extra={"all": [Decision(True, False)]})
