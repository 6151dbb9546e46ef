"""The board and the scoring stack (issue 39 item 2): a value computed off the pins carries a small mark
whose tooltip names the versions, and a row whose values were computed under different stacks says so
(a mark on the index, a sentence on the model's page) rather than mixing them silently."""

from __future__ import annotations

import html
import re

import pytest

from vlc_harness.plugins import get_plugins
from vlc_leaderboard.stacks import mixed_stacks_note, off_pin_text

BENCHMARKS = ["sugarcrepe", "hard_positives", "eqben"]
OFF = [{"name": "numpy", "installed": "9.9.9", "pinned": "2.4.6"}]


def _stack(numpy: str) -> dict:
    return {"packages": {"numpy": numpy, "pillow": "13.0.0"}}


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> dict[str, str]:
    """model-00: one value off the pins, its stacks differ across its row; model-01: one stack, on the pins."""
    from bench.render_speed import synthetic_cells
    from vlc_leaderboard.board import build_board
    from vlc_leaderboard.site import render_site

    tmp = tmp_path_factory.mktemp("stacks")
    registry, cells = synthetic_cells(2, tmp / "work", benchmarks=BENCHMARKS, samples=20)
    for cell in cells:
        off = cell.model_id == "model-00" and cell.benchmark_id == "hard_positives"
        cell.provenance["model"] = {**cell.provenance.get("model", {}), "stack": _stack("9.9.9" if off else "2.4.6")}
        if off:
            cell.provenance["off_pin"] = OFF
    board = build_board(cells, registry, get_plugins())
    rows = {r.id: r for r in board.rows}
    assert rows["model-01"].stack_note == ""
    render_site(board, tmp / "site", {"harness_version": "test"})
    read = lambda p: html.unescape((tmp / "site" / p).read_text())  # noqa: E731
    return {
        "index": read("index.html"),
        "model-00": read("models/model-00.html"),
        "model-01": read("models/model-01.html"),
    }


def test_an_off_pin_value_is_marked_with_the_versions_in_its_tooltip(site):
    marks = re.findall(r'<span class="off-pin" title="([^"]*)">off-pin</span>', site["index"])
    assert marks == ["computed off the pins: numpy 9.9.9 (pinned 2.4.6)"]
    assert "computed off the pins: numpy 9.9.9 (pinned 2.4.6)" in site["model-00"]
    assert "off-pin" not in site["model-01"]


def test_a_row_of_mixed_stacks_says_which_versions_differ_where(site):
    note = "scoring stacks differ across this row: numpy 2.4.6 (SugarCrepe, EqBen), 9.9.9 (Hard positives)"
    titles = re.findall(r'<span class="mark mixed-stack" title="([^"]*)">mixed stacks</span>', site["index"])
    assert titles == [note]  # model-00 only
    assert f'<p class="stack-note">{note}.</p>' in site["model-00"]
    assert "mixed stacks" not in site["model-01"] and "stack-note" not in site["model-01"]


def test_the_words_of_the_marks():
    from vlc_harness.results import CellRecord

    cell = CellRecord("m", "b", "b", "ok", provenance={"off_pin": OFF})
    assert off_pin_text(cell) == "computed off the pins: numpy 9.9.9 (pinned 2.4.6)"
    assert off_pin_text(CellRecord("m", "b", "b", "ok", provenance={})) == ""
    a = CellRecord("m", "a", "a", "ok", provenance={"model": {"stack": _stack("2.4.6")}})
    b = CellRecord("m", "b", "b", "ok", provenance={"model": {"stack": _stack("9.9.9")}})
    assert mixed_stacks_note([("A", a), ("B", a)]) == ""
    assert (
        mixed_stacks_note([("A", a), ("B", b)]) == "scoring stacks differ across this row: numpy 2.4.6 (A), 9.9.9 (B)"
    )
    plugin = {"packages": {}, "plugin": {"distribution": "acme", "version": "0.1", "source": "sha256:" + "ab" * 32}}
    other = {"packages": {}, "plugin": {**plugin["plugin"], "source": "sha256:" + "cd" * 32}}
    c = CellRecord("m", "c", "c", "ok", provenance={"model": {"stack": plugin}})
    d = CellRecord("m", "d", "d", "ok", provenance={"model": {"stack": other}})
    assert mixed_stacks_note([("C", c), ("D", d)]) == (
        "scoring stacks differ across this row: acme 0.1 source abababababab (C), 0.1 source cdcdcdcdcdcd (D)"
    )
