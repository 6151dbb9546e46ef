"""The benchmark page says where its headline comes from (a paper table, or "ours" when no paper
reports it) and counts the word-order audit's identical-text pairs as a data-quality note."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest

from vlc_harness.params import build
from vlc_harness.plugins import get_plugins

BENCHMARKS = ["sugarcrepe", "sugarcrepe_pp", "eqben", "hard_positives"]


@pytest.fixture(scope="module")
def pages(tmp_path_factory) -> dict[str, str]:
    from bench.render_speed import synthetic_cells
    from vlc_leaderboard.board import build_board
    from vlc_leaderboard.site import render_site

    tmp = tmp_path_factory.mktemp("headline")
    registry, cells = synthetic_cells(2, tmp / "work", benchmarks=BENCHMARKS, samples=20)
    render_site(build_board(cells, registry, get_plugins()), tmp / "site", {"harness_version": "test"})
    return {name: html.unescape((tmp / "site" / "benchmarks" / f"{name}.html").read_text()) for name in BENCHMARKS}


def source_line(page: str) -> str:
    start = page.index("Headline source:")
    return page[start : page.index("</p>", start)]


def test_a_paper_headline_names_its_table(pages):
    line = source_line(pages["sugarcrepe"])
    assert "Table 6" in line and "ours, not from a paper" not in line


def test_a_pooled_headline_no_paper_reports_is_labelled_ours(pages):
    for name in ("sugarcrepe_pp", "hard_positives"):
        line = source_line(pages[name])
        assert "ours, not from a paper" in line and "ours:" not in line, name
    assert "pooled here, not in the paper" in source_line(pages["sugarcrepe_pp"])


def test_eqben_mini_is_t2v_metrics_overall_and_the_full_pool_is_ours(pages):
    from vlc_harness_builtins.benchmarks.eqben import EqBen

    mini = source_line(pages["eqben"])
    assert "t2v_metrics" in mini and "ours, not from a paper" not in mini
    full = EqBen(build(EqBen.Params, {"version": "full"}), Path(".")).headline_origin()
    assert full.startswith("ours: pooled here, not in the paper") and "eqbenag" in full
    assert EqBen(build(EqBen.Params, {}), Path(".")).headline_origin() == EqBen.headline_source


def text_of(page: str) -> str:
    """The page's text with inline tags removed and whitespace collapsed."""
    return " ".join(re.sub(r"</?(code|strong)>", "", page).split())


def test_identical_text_pairs_are_counted_as_a_data_quality_note(pages):
    # the generated SugarCrepe example has two cases whose negative is the caption itself
    note = (
        "Data quality: 2 of 14 instances compare a caption with the very same string (identical-text, in i2t_accuracy)"
    )
    assert note in text_of(pages["sugarcrepe"])
    assert "Data quality" not in pages["eqben"]


def test_identical_text_counts_group_the_metrics_of_one_audit():
    from vlc_leaderboard.pages import identical_text_counts

    rows = [
        {"metric": m, "category": c, "n": n}
        for m in ("text_score", "group_score")
        for c, n in (("identical-text", 3), ("same-words", 5), ("different-words", 92), ("all", 100))
    ]
    rows += [{"metric": "group_score_ties_half", "category": "identical-text", "n": 3}]
    rows += [
        {"metric": "p2", "category": "same-words", "n": 4},
        {"metric": "p2", "category": "different-words", "n": 6},
    ]
    assert identical_text_counts(rows) == [{"count": 3, "total": 100, "metrics": ["text_score", "group_score"]}]


def test_the_drilldown_leaves_the_audit_categories_out():
    from vlc_leaderboard.declared import AUDIT_CATEGORIES

    assert {"identical-text", "same-words", "different-words"} <= AUDIT_CATEGORIES


def test_every_registered_benchmark_states_its_headline_source():
    for name, entry in get_plugins().benchmarks.entries.items():
        source = entry.cls.headline_source
        assert source.strip(), name
        assert source.startswith("ours:") or any(w in source for w in ("Table", "table", "t2v_metrics")), (name, source)
