"""The magnitude (issue 41, item 2): one number per model between chance (0) and human (1), with its
bootstrap interval from the stored replicates, the metric's maximum standing in where no human value."""

from __future__ import annotations

import numpy as np
import pytest

from vlc_harness.results import CellRecord
from vlc_leaderboard.columns import BenchmarkColumn, MetricColumn
from vlc_leaderboard.magnitude import at_glance, magnitude
from vlc_leaderboard.ranking import order_rows
from vlc_leaderboard.rows import CellView, Row, Value


def _column(k: int, chance: float | None, human: float | None, higher: bool = True) -> BenchmarkColumn:
    metric = MetricColumn("score", "score", higher, chance, human)
    return BenchmarkColumn(f"b{k}", "t", f"B{k}", "v", [metric], None, None, "", ranked=True)


def _row(name: str, values: dict[str, float], reps: dict[str, np.ndarray] | None = None) -> Row:
    row = Row(name, name, "model", {})
    for bench, value in values.items():
        stored = {("score", "all"): reps[bench]} if reps and bench in reps else {}
        cell = CellRecord(name, bench, "t", "ok", metrics_version="1", replicates=stored)
        row.cells[bench] = CellView("ok", cell=cell, values={"score": Value(value, rank=1)})
    return row


def test_the_magnitude_is_the_mean_distance_from_chance_to_human_with_the_maximum_standing_in():
    columns = [_column(0, 0.5, 0.9), _column(1, 0.25, None), _column(2, 0.5, 0.1, higher=False)]
    row = _row("m", {"b0": 0.7, "b1": 0.625, "b2": 0.3})
    m = magnitude(row, columns)
    assert m is not None
    # (0.7-0.5)/(0.9-0.5) = 0.5; (0.625-0.25)/(1-0.25) = 0.5 (no human: 1 stands in); (0.3-0.5)/(0.1-0.5) = 0.5
    assert m.value == pytest.approx(0.5) and m.stand_ins == ["b1"] and m.benchmarks == ["b0", "b1", "b2"]
    assert m.ci95 is None and "replicates" in m.no_interval
    assert magnitude(_row("chance", {"b0": 0.5, "b1": 0.25}), columns).value == pytest.approx(0.0)  # type: ignore[union-attr]
    assert magnitude(_row("none", {}), columns) is None
    # a headline without a chance level has no place on the scale
    assert magnitude(_row("m", {"b0": 0.7}), [_column(0, None, 0.9)]) is None


def test_the_interval_comes_from_the_stored_replicates_taken_together():
    rng = np.random.default_rng(3)
    columns = [_column(0, 0.5, 0.9), _column(1, 0.5, 0.9)]
    reps = {"b0": 0.7 + 0.02 * rng.standard_normal(1000), "b1": 0.8 + 0.02 * rng.standard_normal(1000)}
    m = magnitude(_row("m", {"b0": 0.7, "b1": 0.8}, reps), columns)
    assert m is not None and m.ci95 is not None and not m.no_interval
    joint = ((reps["b0"] - 0.5) / 0.4 + (reps["b1"] - 0.5) / 0.4) / 2
    assert m.ci95 == pytest.approx(tuple(np.percentile(joint, [2.5, 97.5])))
    assert m.ci95[0] < m.value < m.ci95[1]


def test_the_top_of_the_board_lists_the_ranked_models_in_order_and_names_the_stand_ins():
    columns = [_column(0, 0.5, 0.9), _column(1, 0.25, None)]
    rows = [_row("weak", {"b0": 0.6, "b1": 0.3}), _row("strong", {"b0": 0.8, "b1": 0.9})]
    ordered = order_rows(rows, columns)  # strong dominates weak: listed first whatever the ranks say
    glance = at_glance(ordered, columns, top=1)
    assert [r.id for r in glance["rows"]] == ["strong"]  # type: ignore[attr-defined]
    assert glance["stand_ins"] == ["B1"] and glance["left_out"] == []
    assert ordered[0].magnitude is not None and ordered[0].magnitude.value > ordered[1].magnitude.value
