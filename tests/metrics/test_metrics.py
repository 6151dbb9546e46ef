from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from vlc_harness.benchmarks import InstanceScores
from vlc_harness.errors import ScoreError
from vlc_harness.metrics import Macro, Micro, PairwiseAccuracy, PerCategory
from vlc_harness.metrics.engine import evaluate
from vlc_harness.metrics.outcomes import outcomes_from_matrices
from vlc_harness.params import build
from vlc_harness.types import ImageSource, Instance
from vlc_harness_builtins.benchmarks.sugarcrepe import SugarCrepe


def pairwise(rows, rule: str = "wrong", categories=None, aggregate=("per-category", "micro")):
    """Columns and values of a pairwise accuracy over rows of text scores (gold: text 0)."""
    family = PairwiseAccuracy("acc", "test", aggregate, tie_rule=rule)
    cats = categories or ["a"] * len(rows)
    instances = [
        Instance(f"{c}/{k}", c, (ImageSource(Path("x.jpg")),), tuple(f"t{j}" for j in range(len(r))), {"positive": 0})
        for k, (c, r) in enumerate(zip(cats, rows))
    ]
    outcomes = outcomes_from_matrices(instances, [np.array([r], dtype=float) for r in rows])
    column = family.columns(outcomes)[0]
    values = {(v.metric, v.category): v for v in evaluate(outcomes, [column]).values}
    return column, values


def test_pairwise_is_strict_and_counts_ties():
    column, _ = pairwise([[0.6, 0.5], [0.5, 0.5], [0.4, 0.5], [0.5, 0.1, 0.5]])
    assert column.credit.tolist() == [1.0, 0.0, 0.0, 0.0]
    assert column.ties.tolist() == [False, True, False, True]


@pytest.mark.parametrize("bad", [float("nan"), float("inf")])
def test_pairwise_rejects_non_finite(bad):
    with pytest.raises(ScoreError):
        pairwise([[bad, 0.5]])
    with pytest.raises(ScoreError):
        pairwise([[0.5, bad]])


def test_tie_rules():
    rows = [[0.9, 0.1], [0.5, 0.5], [0.1, 0.9], [0.5, 0.5]]
    assert pairwise(rows, "wrong")[1][("acc", "a")].value == 0.25
    assert pairwise(rows, "right")[1][("acc", "a")].value == 0.75
    assert pairwise(rows, "first-index")[1][("acc", "a")].value == 0.75  # the gold is listed first
    assert pairwise(rows, "wrong")[1][("acc_ties_half", "a")].value == 0.5
    assert pairwise(rows, "wrong")[1][("acc", "a")].ties == 2
    with pytest.raises(ValueError, match="tie rule 'half' is not supported"):
        PairwiseAccuracy("acc", "test", tie_rule="half")


def test_first_index_gives_the_tie_to_whichever_candidate_is_listed_first():
    family = PairwiseAccuracy("acc", "test", tie_rule="first-index")
    instances = [
        Instance(f"a/{k}", "a", (ImageSource(Path("x.jpg")),), ("t0", "t1", "t2"), {"positive": gold})
        for k, gold in enumerate((0, 1, 2))
    ]
    outcomes = outcomes_from_matrices(instances, [np.array([[0.5, 0.5, 0.1]])] * 3)
    # gold 0 ties text 1 and is listed first; gold 1 ties text 0, listed before it; gold 2 loses
    assert family.columns(outcomes)[0].credit.tolist() == [1.0, 0.0, 0.0]


def test_ties_half_is_one_over_the_tied_candidates():
    column, _ = pairwise([[0.5, 0.5, 0.5], [0.5, 0.5, 0.1], [0.5, 0.6, 0.5], [0.7, 0.5, 0.5]])
    assert column.ties_half.tolist() == pytest.approx([1 / 3, 1 / 2, 0.0, 1.0])


def test_macro_weights_categories_equally_micro_weights_instances():
    rows = [[1.0, 0.0]] * 9 + [[0.0, 1.0]] + [[0.0, 1.0]]
    cats = ["big"] * 10 + ["small"]
    aggregate = (PerCategory(), Macro("m"), Micro("u"))
    _, values = pairwise(rows, categories=cats, aggregate=aggregate)
    assert values[("m", "all")].value == pytest.approx(0.45)
    assert values[("u", "all")].value == pytest.approx(9 / 11)
    assert values[("m", "all")].n == 11


def test_unknown_aggregations_are_refused_when_declared():
    with pytest.raises(ValueError, match="unknown aggregation 'macor'"):
        PairwiseAccuracy("acc", "test", ("per-category", "macor"))


def _inst(cat: str, key: str) -> Instance:
    return Instance(f"{cat}/{key}", cat, (ImageSource(Path("x.jpg")),), ("pos", "neg"), {"positive": 0})


def test_sugarcrepe_metrics_by_hand():
    bench = SugarCrepe(build(SugarCrepe.Params, {}), Path("."))
    rows = [
        ("swap_obj", [0.9, 0.1]),  # right
        ("swap_obj", [0.5, 0.5]),  # tie: wrong
        ("swap_obj", [0.2, 0.3]),  # wrong
        ("add_att", [0.7, 0.6]),  # right
    ]
    results = [InstanceScores(_inst(c, str(k)), np.array([s])) for k, (c, s) in enumerate(rows)]
    values = {(v.metric, v.category): v for v in bench.compute(results)}
    assert values[("i2t_accuracy", "swap_obj")].value == pytest.approx(1 / 3)
    assert values[("i2t_accuracy", "swap_obj")].ties == 1
    assert values[("i2t_accuracy", "add_att")].value == 1.0
    assert values[("i2t_accuracy_macro", "all")].value == pytest.approx((1 / 3 + 1) / 2)
    assert values[("i2t_accuracy_micro", "all")].value == pytest.approx(2 / 4)
    assert values[("i2t_accuracy_micro", "all")].ties == 1
    assert {v.tie_rule for v in values.values() if not v.metric.endswith("_ties_half")} == {"wrong"}
    assert values[("i2t_accuracy_ties_half", "swap_obj")].value == pytest.approx(1.5 / 3)
    assert values[("i2t_accuracy_ties_half", "swap_obj")].tie_rule == "random"
    with pytest.raises(ScoreError):
        bench.compute([InstanceScores(_inst("add_att", "9"), np.array([[np.nan, 0.1]]))])


def test_sugarcrepe_reference_rows_are_consistent():
    bench = SugarCrepe(build(SugarCrepe.Params, {}), Path("."))
    rows = bench.reference_rows()
    assert {r.metric for r in rows} <= {s.id for s in bench.metric_specs()}
    by_source: dict[str, dict[str, float]] = {}
    for r in rows:
        by_source.setdefault(r.source, {})[r.category] = r.value
    vit = by_source["OpenAI ViT-B-32"]
    assert vit["swap_obj"] == 0.6138 and vit["all"] == 0.7308
    for source, values in by_source.items():
        if "all" in values:  # Table 6's Average is the unweighted mean of the 7 subsets
            subsets = [v for k, v in values.items() if k != "all"]
            assert len(subsets) == 7
            assert np.mean(subsets) == pytest.approx(values["all"], abs=1e-4), source


def _reference(source: str, metric: str) -> dict[str, float]:
    rows = SugarCrepe(build(SugarCrepe.Params, {}), Path(".")).reference_rows()
    return {r.category: r.value for r in rows if r.source == source and r.metric == metric}


@pytest.mark.parametrize(
    ("table6_source", "table5_source", "metric"),
    [
        ("NegCLIP ViT-B-32", "NegCLIP ViT-B/32 (released by ARO)", "i2t_accuracy_type"),
        ("OpenAI ViT-B-32", "Pretrained CLIP ViT-B/32", "i2t_accuracy_type"),
    ],
)
def test_sugarcrepe_types_reproduce_table5_from_table6(table6_source, table5_source, metric):
    """Per-subset outcomes with Table 6's accuracies, pooled by type, give Table 5's numbers
    (within 0.02 points: both tables round to 0.01 points)."""
    counts = {"replace_obj": 1652, "replace_att": 788, "replace_rel": 1406, "swap_obj": 246, "swap_att": 666}
    counts |= {"add_obj": 2062, "add_att": 692}
    table6 = _reference(table6_source, "i2t_accuracy")
    results = []
    for subset, n in counts.items():
        right = round(table6[subset] * n)
        for k in range(n):
            results.append(InstanceScores(_inst(subset, str(k)), np.array([[1.0, 0.0] if k < right else [0.0, 1.0]])))
    values = {(v.metric, v.category): v for v in SugarCrepe(build(SugarCrepe.Params, {}), Path(".")).compute(results)}
    expected = _reference(table5_source, metric)
    assert set(expected) == {"REPLACE", "SWAP", "ADD"}
    for kind, value in expected.items():
        assert values[(metric, kind)].value == pytest.approx(value, abs=2e-4), kind
    assert values[("i2t_accuracy_type", "SWAP")].n == 246 + 666


def test_sugarcrepe_table5_human_row_is_the_macro_of_table6():
    """Table 5's Human row is the unweighted mean of Table 6's human subset numbers (our
    ``i2t_accuracy_type_macro``), not the pooled mean."""
    from vlc_harness_builtins.benchmarks.sugarcrepe import TYPES

    table6 = _reference("Human", "i2t_accuracy")
    results = []
    for subset, value in table6.items():
        right = round(value * 100)
        assert right == pytest.approx(value * 100)
        for k in range(100):
            results.append(InstanceScores(_inst(subset, str(k)), np.array([[1.0, 0.0] if k < right else [0.0, 1.0]])))
    values = {(v.metric, v.category): v for v in SugarCrepe(build(SugarCrepe.Params, {}), Path(".")).compute(results)}
    for kind, value in _reference("Human", "i2t_accuracy_type_macro").items():
        assert set(TYPES[kind]) <= set(table6)
        assert values[("i2t_accuracy_type_macro", kind)].value == pytest.approx(value, abs=5e-5)
