"""Context the board gives beside the numbers (issue 41, item 6): a human value the paper reports on
another data version is shown with that version, never "no human study"."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from vlc_harness.params import build
from vlc_harness.plugins import get_plugins
from vlc_leaderboard.humans import humans_elsewhere
from vlc_leaderboard.templating import environment

pytestmark = pytest.mark.slow  # builds and renders a board per test module: the full suite's, not the inner loop's


def _winoground_rows():
    cls = get_plugins().benchmarks.get("winoground").cls
    return cls(build(cls.Params, {}), ".").reference_rows()


def test_a_human_value_on_another_data_version_is_kept_with_its_version():
    rows = _winoground_rows()
    found = humans_elsewhere(rows, "custom", {})
    assert found["group_score"] == (0.855, "hf-400")
    assert humans_elsewhere(rows, "hf-400", {}) == {}  # the same version: the column compares it itself
    assert "group_score" not in humans_elsewhere(rows, "custom", {("group_score", "all"): 0.9})


def _human_cell(col: SimpleNamespace, long: bool = False) -> str:
    macros = environment().get_template("_macros.html").module
    return str(macros.no_human(col, long)).strip()


def test_the_human_row_says_the_papers_value_and_version_not_no_human_study():
    metric = SimpleNamespace(metric="group_score")
    col = SimpleNamespace(
        metrics=[metric], humans={}, humans_elsewhere={"group_score": (0.855, "hf-400")}, data_version="custom"
    )
    assert _human_cell(col) == "human 85.5 on hf-400"
    assert _human_cell(col, True).startswith("human 85.5 on hf-400 (the paper's data version; this board runs custom")
    col.humans_elsewhere = {}
    assert _human_cell(col) == "no human study"
    col.humans = {("group_score", "swap"): 0.9}
    assert _human_cell(col) == "no overall human value"


def test_a_value_whose_interval_includes_chance_says_not_above_chance():
    from vlc_leaderboard.rows import Value

    macros = environment().get_template("_macros.html").module
    auc = SimpleNamespace(metric="auc", chance=0.5, higher_is_better=True)
    below = Value(0.312, ci95=(0.2, 0.51))
    assert "not above chance" in str(macros.chance_note(below, auc))
    assert "not above chance" not in str(macros.chance_note(Value(0.8, ci95=(0.7, 0.9)), auc))
    assert "not above chance" not in str(macros.chance_note(Value(0.5), auc))  # no interval: nothing to say
    error = SimpleNamespace(metric="error", chance=0.5, higher_is_better=False)
    assert "not above chance" in str(macros.chance_note(Value(0.45, ci95=(0.4, 0.55)), error))
    assert "not above chance" not in str(macros.chance_note(below, None))
    coverage = str(macros.coverage_note(SimpleNamespace(coverage=0.77)))
    assert "coverage 77%" in coverage and "the share of instances the model answered" in coverage


def test_show_prints_a_value_as_the_site_shows_it():
    from vlc_leaderboard.rows import Value
    from vlc_leaderboard.show import value_text

    group = SimpleNamespace(metric="group_score", chance=1 / 6, higher_is_better=True)
    blind = Value(0.0, n=2613, ties=2613, rank=2, expected_ties_half=0.158, ties_half_ci95=(0.15, 0.166))
    assert value_text(blind, group) == "15.8 #2 (ties broken at random; strict 0.0, 100% ties) not above chance"
    assert value_text(Value(0.9, rank=1, ci95=(0.85, 0.95)), group) == "90.0 #1"


def test_sugarcrepe_pp_headline_reads_itt_not_itt_lowercase():
    from vlc_leaderboard.fmt import metric_title

    assert metric_title("itt_accuracy") == "ITT accuracy" and metric_title("tot_accuracy") == "TOT accuracy"


def test_unverified_is_said_once_where_most_rows_are_and_the_exceptions_are_marked(demo, tmp_path):
    import copy
    import re

    from vlc_leaderboard.site import render_site

    board = copy.deepcopy(demo["board"])
    for row in board.rows:
        row.meta["verified"] = row.id == board.rows[0].id  # the first row verified, every other one not
    render_site(board, tmp_path / "site", {"harness_version": "test", "git_sha": ""}, runs={1: {}})
    page = (tmp_path / "site" / "index.html").read_text()
    assert 'class="unverified" title' not in page  # no per-row badge
    assert len(re.findall(r'<span class="mark verified" title=', page)) == 1  # the one exception
    n = len(board.rows)
    assert f'{n - 1} of {n} rows are <span class="unverified">unverified</span>, so no row is marked so' in page
