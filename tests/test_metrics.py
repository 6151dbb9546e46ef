from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from harness.benchmarks import InstanceScores
from harness.errors import ScoreError
from harness.metrics import Decision, accuracy_values, macro_value, micro_value, pick
from harness.params import build
from harness.types import ImageSource, Instance
from plugins.benchmarks.sugarcrepe import SugarCrepe


def test_pick_is_strict_and_counts_ties():
    assert pick(0.6, [0.5]) == Decision(won=True, tied=False)
    assert pick(0.5, [0.5]) == Decision(won=False, tied=True)
    assert pick(0.4, [0.5]) == Decision(won=False, tied=False)
    assert pick(0.5, [0.1, 0.5]) == Decision(won=False, tied=True)


@pytest.mark.parametrize("bad", [float("nan"), float("inf")])
def test_pick_rejects_non_finite(bad):
    with pytest.raises(ScoreError):
        pick(bad, [0.5])
    with pytest.raises(ScoreError):
        pick(0.5, [bad])


def test_tie_rules():
    ds = {"a": [Decision(True, False), Decision(False, True), Decision(False, False), Decision(False, True)]}
    assert accuracy_values("acc", ds, "wrong")[0].value == 0.25
    assert accuracy_values("acc", ds, "right")[0].value == 0.75
    assert accuracy_values("acc", ds, "half")[0].value == 0.5
    assert accuracy_values("acc", ds, "wrong")[0].ties == 2


def test_macro_weights_categories_equally_micro_weights_instances():
    ds = {"big": [Decision(True, False)] * 9 + [Decision(False, False)], "small": [Decision(False, False)]}
    per = accuracy_values("acc", ds, "wrong")
    assert macro_value("m", per).value == pytest.approx(0.45)
    assert micro_value("u", ds, "wrong").value == pytest.approx(9 / 11)
    assert macro_value("m", per).n == 11


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
    assert {v.tie_rule for v in values.values()} == {"wrong"}
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
    from harness.types import MetricValue
    from plugins.benchmarks.sugarcrepe import TYPES

    table6 = _reference("Human", "i2t_accuracy")
    for kind, value in _reference("Human", "i2t_accuracy_type_macro").items():
        per = [MetricValue("i2t_accuracy", s, table6[s], 1, 0, "wrong", "") for s in TYPES[kind]]
        assert macro_value("i2t_accuracy_type_macro", per, kind).value == pytest.approx(value, abs=5e-5)
