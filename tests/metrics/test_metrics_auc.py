"""ROC AUC against sklearn and against a brute-force pair count, ties and NaN included."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest

from vlc_harness.errors import ScoreError
from vlc_harness.metrics.auc import binary_predictions, roc_auc, roc_auc_binary


def brute_force_auc(scores, labels) -> tuple[float, int]:
    """Every (positive, negative) pair: 1 for a win, 1/2 for a tie."""
    pos = [s for s, y in zip(scores, labels) if y == 1]
    neg = [s for s, y in zip(scores, labels) if y == 0]
    credit = sum(1.0 if p > n else 0.5 if p == n else 0.0 for p, n in itertools.product(pos, neg))
    ties = sum(p == n for p, n in itertools.product(pos, neg))
    return credit / (len(pos) * len(neg)), ties


def test_hand_computed_cases():
    # positives 0.9, 0.4; negatives 0.4, 0.1: wins (0.9>0.4, 0.9>0.1, 0.4>0.1) + tie (0.4=0.4) -> 3.5/4
    r = roc_auc([0.9, 0.4, 0.4, 0.1], [1, 1, 0, 0])
    assert r.value == 0.875 and r.tied_pairs == 1 and (r.n_pos, r.n_neg, r.n) == (2, 2, 4)
    assert roc_auc([0.1, 0.2, 0.8, 0.9], [0, 0, 1, 1]).value == 1.0
    assert roc_auc([0.1, 0.2, 0.8, 0.9], [1, 1, 0, 0]).value == 0.0
    constant = roc_auc([0.3] * 5, [1, 0, 1, 0, 0])
    assert constant.value == 0.5 and constant.tied_pairs == 6  # chance for any constant score


@pytest.mark.parametrize("seed", range(6))
def test_matches_sklearn_and_brute_force_with_ties(seed):
    from sklearn.metrics import roc_auc_score

    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 60))
    labels = rng.integers(0, 2, n)
    labels[:2] = [0, 1]
    # few distinct values so that ties within and across classes are common
    scores = np.round(rng.normal(size=n) + 0.7 * labels, 1 if seed % 2 else 3)
    r = roc_auc(scores, labels)
    assert r.value == pytest.approx(roc_auc_score(labels, scores), abs=1e-12)
    value, ties = brute_force_auc(scores.tolist(), labels.tolist())
    assert r.value == pytest.approx(value, abs=1e-12) and r.tied_pairs == ties


def test_binary_predictions_are_strict_and_their_auc_is_balanced_accuracy():
    from sklearn.metrics import roc_auc_score

    scores = np.array([0.9, 0.5, 0.2, 0.7, 0.5, 0.1])
    labels = np.array([1, 1, 1, 0, 0, 0])
    preds = binary_predictions(scores, 0.5)
    assert preds.tolist() == [1, 0, 0, 1, 0, 0]  # 0.5 is not > 0.5
    r = roc_auc_binary(preds, labels)
    tpr, tnr = 1 / 3, 2 / 3
    assert r.value == pytest.approx((tpr + tnr) / 2) == pytest.approx(roc_auc_score(labels, preds))
    assert r.tied_pairs == 1 * 1 + 2 * 2  # (pos 1, neg 1) and (pos 0, neg 0) pairs
    assert binary_predictions(scores, 0.49).tolist() == [1, 1, 0, 1, 1, 0]


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -float("inf")])
def test_non_finite_scores_are_rejected(bad):
    with pytest.raises(ScoreError):
        roc_auc([0.1, bad, 0.3], [0, 1, 1])
    with pytest.raises(ScoreError):
        binary_predictions([0.1, bad], 0.5)
    with pytest.raises(ScoreError):
        roc_auc_binary([1, bad], [0, 1])


def test_undefined_and_malformed_inputs():
    with pytest.raises(ValueError, match="undefined"):
        roc_auc([0.1, 0.2], [1, 1])
    with pytest.raises(ValueError, match="labels"):
        roc_auc([0.1, 0.2], [1, 2])
    with pytest.raises(ValueError, match="expected 3 labels"):
        roc_auc([0.1, 0.2, 0.3], [1, 0])
    with pytest.raises(ValueError, match="0 or 1"):
        roc_auc_binary([0.5, 1.0], [0, 1])


@pytest.mark.parametrize("seed", range(4))
def test_the_seetrue_family_gives_the_same_auc_per_source_and_their_mean(seed):
    """The AUC the cell path computes (weighted, per source) equals :func:`roc_auc`."""
    from vlc_harness.metrics.auc import RocAuc
    from vlc_harness.metrics.engine import evaluate
    from vlc_harness.metrics.outcomes import outcomes_from_matrices
    from vlc_harness.types import ImageSource, Instance

    rng = np.random.default_rng(seed)
    instances, matrices, by_source = [], [], {}
    for k in range(90):
        source = ("a", "b", "c")[k % 3]
        label = int(k % 3 == 0 or rng.random() < 0.5) if k > 5 else k % 2
        score = float(np.round(rng.normal() + label, 1))
        instances.append(Instance(f"{source}/{k}", source, (ImageSource(Path("x.png")),), ("t",), {"label": label}))
        matrices.append([[score]])
        by_source.setdefault(source, ([], []))
        by_source[source][0].append(score)
        by_source[source][1].append(label)
    family = RocAuc("auc", "test")
    outcomes = outcomes_from_matrices(instances, matrices)
    got = {(v.metric, v.category): v for v in evaluate(outcomes, family.columns(outcomes)).values}
    expected = {s: roc_auc(*by_source[s]) for s in by_source if len(set(by_source[s][1])) == 2}
    for source, r in expected.items():
        v = got[("auc", source)]
        assert v.value == r.value and v.n == r.n and v.ties == r.tied_pairs
    assert got[("auc_macro", "all")].value == pytest.approx(np.mean([r.value for r in expected.values()]))
