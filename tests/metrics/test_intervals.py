"""Bootstrap intervals: seeded, paired across models, stored with each cell."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from vlc_harness.benchmarks import InstanceScores
from vlc_harness.metrics import bootstrap as intervals
from vlc_harness.metrics.cell import cell_metrics
from vlc_harness.metrics.outcomes import outcomes_from_matrices
from vlc_harness.params import build
from vlc_harness.types import ImageSource, Instance
from vlc_harness_builtins.benchmarks.sugarcrepe import SugarCrepe

BENCH = SugarCrepe(build(SugarCrepe.Params, {}), Path("."))


def _results(correct: list[bool], subset: str = "add_att") -> list[InstanceScores]:
    out = []
    for k, ok in enumerate(correct):
        inst = Instance(f"{subset}/{k}", subset, (ImageSource(Path("x.jpg")),), ("p", "n"), {"positive": 0})
        out.append(InstanceScores(inst, np.array([[1.0, 0.0] if ok else [0.0, 1.0]])))
    return out


def _outcomes(results):
    return outcomes_from_matrices([r.instance for r in results], [r.scores for r in results])


def _replicates(results, samples=400):
    return cell_metrics(BENCH, _outcomes(results), samples=samples).replicates


def test_interval_is_seeded_and_close_to_the_binomial_width():
    rng = np.random.default_rng(1)
    results = _results(list(rng.random(400) < 0.5))
    a = _replicates(results)[("i2t_accuracy_micro", "all")]
    b = _replicates(list(reversed(results)))[("i2t_accuracy_micro", "all")]
    np.testing.assert_array_equal(a, b)  # depends on the instance ids, not on their order
    low, high = intervals.interval(a)
    p = np.mean([r.scores[0, 0] > r.scores[0, 1] for r in results])
    assert low < p < high
    assert (high - low) / 2 == pytest.approx(1.96 * np.sqrt(p * (1 - p) / 400), rel=0.2)


def test_resamples_do_not_depend_on_the_block_size():
    ids = [f"c{k % 3}/{k}" for k in range(301)]
    category = np.array([k % 3 for k in range(301)])
    resampler = intervals.Resampler(ids, category, 3, 50)
    whole = [np.concatenate(parts) for parts in zip(*resampler.blocks(["c0", "c1", "c2"], block_cells=10**9))]
    small = [np.concatenate(parts) for parts in zip(*resampler.blocks(["c0", "c1", "c2"], block_cells=700))]
    assert len(list(resampler.blocks(["c0", "c1", "c2"], block_cells=700))) > 10
    for a, b in zip(whole, small):
        np.testing.assert_array_equal(a, b)
        assert a.shape[0] == 50 and (a.sum(axis=1) == a.shape[1]).all()  # each resample keeps the category size


def test_every_value_has_replicates_and_a_finite_interval():
    rng = np.random.default_rng(4)
    results = []
    for subset in ("add_att", "swap_obj", "replace_rel"):
        results += _results(list(rng.random(60) < 0.7), subset)
    cell = cell_metrics(BENCH, _outcomes(results), samples=200)
    for m in cell.metrics:
        reps = cell.replicates[(m["metric"], m["category"])]
        assert reps.shape == (200,)
        assert m["ci95"][0] <= m["value"] <= m["ci95"][1]
    assert ("i2t_accuracy", "swap_obj") in cell.replicates and ("i2t_accuracy_type", "SWAP") in cell.replicates


def test_paired_ranks_use_the_same_resamples():
    rng = np.random.default_rng(2)
    base = rng.random(300) < 0.6
    better = base | (rng.random(300) < 0.5)  # right wherever base is, and more
    same = base.copy()
    reps = {
        name: _replicates(_results(list(v)))[("i2t_accuracy_micro", "all")]
        for name, v in {"base": base, "better": better, "same": same}.items()
    }
    assert intervals.ranks(reps) == {"better": 1, "base": 2, "same": 2}
    assert intervals.ranks(reps, higher_is_better=False) == {"better": 3, "base": 1, "same": 1}


def test_cells_store_intervals_and_overall_replicates(vlc_run, sample_root, monkeypatch):
    monkeypatch.setenv("VLC_HARNESS_BOOTSTRAP", "50")
    assert vlc_run("-m", "random:seed=1", "-b", "sugarcrepe:version=custom", data_root=sample_root).exit_code == 0
    shown = json.loads(vlc_run.cli("show", "--format", "json").stdout)
    metrics = {(m["metric"], m["category"]): m for m in shown["cells"][0]["metrics"]}
    macro = metrics[("i2t_accuracy_macro", "all")]
    assert macro["ci95"][0] <= macro["value"] <= macro["ci95"][1]
    assert "replicates" not in macro  # kept in the store for ranks, not printed
    assert "ci95" in metrics[("i2t_accuracy", "swap_obj")]
