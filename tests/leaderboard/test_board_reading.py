"""The board read by a stranger (issue 28, items 1, 2, 4 and 13), on the demonstration board of
``tests/leaderboard/screenshots.py`` and in real Chromium: ranks explained and read monotone, tie-heavy
values shown ties-broken first, an overall order that does not bury a model missing one cell, and
words in agreement (plurals, one arrow per header, no A-Z for numbers).
"""

from __future__ import annotations

import copy
import random
import re
from pathlib import Path
from typing import Any

import pytest

from tests.leaderboard.test_site_layout import browser  # noqa: F401 (fixture)
from vlc_harness.wording import plural
from vlc_leaderboard.benchmark_page import by_rank_then_value, rank_notes
from vlc_leaderboard.board import BenchmarkColumn, Board, CellView, MetricColumn, Row, Value
from vlc_leaderboard.fmt import LOWER_IS_BETTER, SORT_ARROWS
from vlc_leaderboard.ranking import order_key, order_rows

ARROWS = {LOWER_IS_BETTER, *SORT_ARROWS.values(), "▲", "▼", "↑"}


# ---- the wording helper ----


def test_plural_agrees_with_its_count():
    assert plural(1, "benchmark") == "1 benchmark"
    assert plural(2, "benchmark") == "2 benchmarks"
    assert plural(0, "model") == "0 models"
    assert plural(1, "category") == "1 category" and plural(3, "category") == "3 categories"
    assert plural(2, "day") == "2 days"  # a vowel before the y: just an s
    assert plural(25, "case") == "25 cases" and plural(2, "attribute pair") == "2 attribute pairs"
    assert plural(2, "analysis", "analyses") == "2 analyses" and plural(1, "analysis", "analyses") == "1 analysis"


# ---- the overall order: a total order, stable, that does not bury a model missing a cell ----


def _column(k: int) -> BenchmarkColumn:
    metric = MetricColumn("score", "score", True, None, None)
    return BenchmarkColumn(f"b{k}", "t", f"B{k}", "v", [metric], None, None, "", ranked=True)


def _row(name: str, ranks: dict[str, int], kind: str = "model") -> Row:
    row = Row(name, name, kind, {})
    for bench, rank in ranks.items():
        row.cells[bench] = CellView("ok", values={"score": Value(0.5, rank=rank)})
    return row


def _random_tables(count: int, seed: int = 28) -> list[tuple[int, list[dict[str, int]]]]:
    """``count`` random rank tables: up to 6 benchmarks, up to 12 models each ranked on any subset, ranks
    1-4 (so equal means, equal coverage and models with no rank at all all occur)."""
    rng = random.Random(seed)
    tables = []
    for _ in range(count):
        n = rng.randint(1, 6)
        models = [
            {f"b{k}": rng.randint(1, 4) for k in range(n) if rng.random() < rng.random()}
            for _ in range(rng.randint(1, 12))
        ]
        tables.append((n, models))
    return tables


def test_the_overall_order_is_total_stable_and_transitive():
    """Over 300 seeded random tables, in one test (a table takes microseconds to check, a test item of its
    own many times that); a failure names its table."""
    for index, table in enumerate(_random_tables(300)):
        try:
            _check_overall_order(table)
        except AssertionError as exc:
            raise AssertionError(f"random table {index} of 300 (seed 28): {table}") from exc


def _check_overall_order(table: tuple[int, list[dict[str, int]]]) -> None:
    n, rank_tables = table
    columns = [_column(k) for k in range(n)]
    rows = [_row(f"m{i}", ranks) for i, ranks in enumerate(rank_tables)]
    ordered = order_rows(rows, columns)
    assert sorted(r.id for r in ordered) == sorted(r.id for r in rows)
    keys = [order_key(r.overall) for r in ordered]
    position = {r.id: i for i, r in enumerate(ordered)}
    inputs = {r.id: i for i, r in enumerate(rows)}
    for a in ordered:  # every pair placed as its keys compare: the order is the keys' (total, transitive) order
        for b in ordered:
            ka, kb = order_key(a.overall), order_key(b.overall)
            if ka < kb:
                assert position[a.id] < position[b.id]
            elif ka == kb:  # stable: equal keys keep the input order
                assert (position[a.id] < position[b.id]) == (inputs[a.id] < inputs[b.id]) or a is b
    assert keys == sorted(keys)
    # sorting the sorted rows again changes nothing
    assert [r.id for r in order_rows(list(ordered), columns)] == [r.id for r in ordered]
    # a model ranked on at least half of the benchmarks is never below one ranked on fewer
    by_mean = [position[r.id] for r in ordered if r.overall is not None and r.overall.by_mean]
    fewer = [position[r.id] for r in ordered if r.overall is not None and not r.overall.by_mean]
    assert not by_mean or not fewer or max(by_mean) < min(fewer)
    ranked = [r for r in ordered if r.overall is not None and r.overall.by_mean]
    assert [r.overall.position for r in ranked] == list(range(1, len(ranked) + 1))  # type: ignore[union-attr]


def test_a_model_missing_one_cell_is_not_listed_below_a_worse_complete_model():
    columns = [_column(k) for k in range(10)]
    j = _row("demo-j", {f"b{k}": r for k, r in enumerate([1, 1, 2, 1, 2, 1, 2, 1, 2])})  # 9 of 10, mean 1.44
    blind = _row("blind", {f"b{k}": 7 for k in range(10)})  # 10 of 10, mean 7.0
    few = _row("few", {"b0": 1, "b1": 1})  # 2 of 10: listed below
    base = _row("random", {}, kind="baseline")
    ordered = order_rows([base, few, blind, j], columns)
    assert [r.id for r in ordered] == ["demo-j", "blind", "few", "random"]
    assert j.overall is not None and j.overall.by_mean and not j.overall.complete and j.overall.position == 1


# ---- ranks in a table: by rank, then value; a sentence where equal values rank differently ----


def test_ranked_tables_list_by_rank_then_value_and_explain_equal_values():
    rows = [
        _ranked("c", 0.643, 3, ("i", "f", "g")),
        _ranked("e", 0.643, 2, ("i",)),
        _ranked("i", 1.0, 1, ()),
        _ranked("b", 0.643, 2, ("i",)),
        _ranked("f", 0.657, 2, ("i",)),
        _ranked("g", 0.60, 2, ("i",)),
    ]
    ordered = by_rank_then_value(rows, "bench", "score", True)
    assert [r.id for r in ordered] == ["i", "f", "e", "b", "g", "c"]
    ranks = [r.cells["bench"].values["score"].rank for r in ordered]
    assert ranks == sorted(ranks)  # monotone best first
    notes = rank_notes(ordered, "bench", "score", True)
    assert len(notes) == 1
    note = notes[0]  # g ranks above c with less: its own verdict over c is the reason
    assert note == (
        "C shows 64.3, no worse than E at #2 (64.3), B at #2 (64.3) and G at #2 (60.0), yet ranks #3: F and G are "
        "significantly better than C on the same instances, and not than E or B."
    )
    rows = [_ranked("c", 0.643, 3, ("i", "f")), _ranked("e", 0.643, 2, ("i",)), _ranked("i", 1.0, 1, ())]
    rows += [_ranked("b", 0.6431, 2, ("i",)), _ranked("f", 0.9, 2, ())]
    equal = rank_notes(by_rank_then_value(rows, "bench", "score", True), "bench", "score", True)
    assert equal == [
        "C shows 64.3, as do B at #2 and E at #2, yet ranks #3: F is significantly better than C on the "
        "same instances, and not than B or E."
    ]


def _ranked(name: str, value: float, rank: int, better: tuple[str, ...]) -> Row:
    row = Row(name, name.upper(), "model", {})
    row.cells["bench"] = CellView("ok", values={"score": Value(value, rank=rank, significantly_better=better)})
    return row


# ---- tie-heavy values: ties-broken first, gap and plot ties-broken or n/a ----


def test_a_tie_heavy_value_shows_its_ties_broken_value_first_and_its_gap_follows():
    tied = Value(0.0, (0.0, 0.0), n=14, ties=14, tie_rule="wrong", expected_ties_half=0.25, ties_half_ci95=(0.2, 0.3))
    clean = Value(0.4, (0.3, 0.5), n=14, ties=0, tie_rule="wrong", expected_ties_half=0.4)
    assert tied.tie_heavy and tied.ties_broken_first and tied.shown == 0.25 and tied.shown_ci95 == (0.2, 0.3)
    assert not clean.ties_broken_first and clean.shown == 0.4 and clean.shown_ci95 == (0.3, 0.5)
    cv = CellView("ok", values={"i2t": clean, "t2i": tied})
    assert cv.gap(("i2t", "t2i")) == pytest.approx(0.15) and cv.gap_ties_broken(("i2t", "t2i"))
    assert cv.direction_pair(("i2t", "t2i")) == (0.4, 0.25)
    # just below half ties: strict, as stored
    light = Value(0.3, n=14, ties=6, tie_rule="wrong", expected_ties_half=0.5)
    assert not light.tie_heavy and light.shown == 0.3
    # at least half ties and no stored ties-broken value: the gap and the plot point are n/a, never the strict gap
    bare = Value(0.0, n=10, ties=10, tie_rule="wrong")
    na = CellView("ok", values={"i2t": clean, "t2i": bare})
    assert na.gap(("i2t", "t2i")) is None and na.gap_not_available(("i2t", "t2i"))
    assert na.direction_pair(("i2t", "t2i")) is None


def test_the_gap_cell_says_n_a_where_ties_dominate_without_a_ties_broken_value():
    from vlc_leaderboard.templating import environment

    clean = Value(0.4, n=10, tie_rule="wrong", expected_ties_half=0.4)
    cells = {
        "na": CellView("ok", values={"i2t": clean, "t2i": Value(0.0, n=10, ties=10, tie_rule="wrong")}),
        "broken": CellView("ok", values={"i2t": clean, "t2i": Value(0.0, n=10, ties=6, expected_ties_half=0.3)}),
        "strict": CellView("ok", values={"i2t": clean, "t2i": Value(0.1, n=10, expected_ties_half=0.1)}),
    }
    col = _column(0)
    col.gap = ("i2t", "t2i")
    template = environment().from_string('{% import "_macros.html" as ui %}{{ ui.gap_cell(cv, col, "num gap") }}')
    out = {name: template.render(cv=cv, col=col) for name, cv in cells.items()}
    assert ">n/a</td>" in out["na"] and 'data-value=""' in out["na"]
    assert "+10.0" in out["broken"] and "ties broken" in out["broken"]
    assert "+30.0" in out["strict"] and "ties broken" not in out["strict"]


# ---- the demonstration board in Chromium ----


def build_demo_board(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The demonstration board (12 models x 10 benchmarks) rendered, and the board it was rendered from
    (the ``demo`` fixture of tests/leaderboard/conftest.py: built once per session)."""
    import vlc_leaderboard.site as site_module
    from tests.leaderboard.screenshots import build_demo

    boards: list[Board] = []
    original = site_module.render_site

    def keep(board: Board, *args: Any, **kwargs: Any) -> Any:
        boards.append(board)
        return original(board, *args, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(site_module, "render_site", keep)
        site = build_demo(tmp_path_factory.mktemp("demo"))
    return {"site": site, "board": boards[0]}


def _open(driver: Any, path: Path, size: tuple[int, int] = (1400, 900)) -> None:
    from selenium.webdriver.support.ui import WebDriverWait

    width, height = size
    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600},
    )
    driver.get("about:blank")
    driver.get_log("browser")
    driver.get(path.as_uri())
    script = "const s = document.getElementById('status'); return !s || s.textContent !== ''"
    WebDriverWait(driver, 10).until(lambda d: d.execute_script(script))


def _column_ranks(driver: Any, key: str) -> list[int | None]:
    return driver.execute_script(
        """const i = vlcBoard.columns.findIndex(c => c.key === arguments[0]);
        return Array.from(document.querySelectorAll('#models tr')).filter(r => !r.hidden).map(r => {
          const rank = r.cells[i].getAttribute('data-rank'); return rank === null ? null : parseInt(rank, 10); });""",
        key,
    )


def _errors(driver: Any) -> list[dict[str, Any]]:
    return [e for e in driver.get_log("browser") if e["level"] in ("SEVERE", "WARNING")]


def test_ranks_are_defined_truly_read_monotone_and_equal_values_are_explained(demo, browser):  # noqa: F811
    site = demo["site"]
    _open(browser, site / "index.html")
    about = browser.find_element("css selector", "details.about")
    browser.execute_script("arguments[0].open = true", about)
    text = about.text
    assert "1 + the number of models significantly better on the same instances" in text
    assert "share a rank" not in text and "overlap" not in text.split("Training overlap")[0]
    assert "can carry different ranks" in text and "by rank, then by value" in text
    # the help panel reads as sentences: no badge, tie note or mark is set inside them
    assert not about.find_elements("css selector", ".rank, .ties, .reported, .overlap, .mark, .why-demo")
    # sorting a benchmark's headline best first reads its ranks in order, equal values included
    browser.find_element("css selector", 'th[data-col="bivlc.group_score"] button').click()
    ranks = [r for r in _column_ranks(browser, "bivlc.group_score") if r is not None]
    assert len(ranks) >= 10 and ranks == sorted(ranks)
    browser.find_element("css selector", 'th[data-col="bivlc.group_score"] button').click()  # worst first
    ranks = [r for r in _column_ranks(browser, "bivlc.group_score") if r is not None]
    assert ranks == sorted(ranks, reverse=True)
    # the benchmark page: ranks monotone down the table, and one sentence where equal values rank apart
    _open(browser, site / "benchmarks" / "bivlc.html")
    shown = browser.execute_script(
        """return Array.from(document.querySelectorAll('#ranked tbody tr')).filter(r => r.querySelector('a'))
          .map(r => [r.querySelector('th').textContent.trim(), r.cells[1].querySelector('.v').textContent,
                     (r.cells[1].querySelector('.rank') || {textContent: ''}).textContent]);"""
    )
    ranks = [int(re.sub(r"\D", "", rank)) for _, _, rank in shown if rank]
    assert ranks == sorted(ranks)
    values = {}
    for _, value, rank in shown:
        values.setdefault(value, set()).add(rank)
    split = [v for v, r in values.items() if len(r) > 1]
    notes = [p.text for p in browser.find_elements("css selector", ".rank-note")]
    assert split and len(notes) >= 1  # the demo has 64.3 at #2 and #3
    for value in split:
        assert any(f"shows {value}" in n and "significantly better than" in n for n in notes), notes
    assert not _errors(browser)


def test_tie_heavy_values_lead_with_the_ties_broken_value_and_their_gap_and_point_follow(demo, browser):  # noqa: F811
    board, site = demo["board"], demo["site"]
    blind = next(r for r in board.rows if r.kind == "blind")
    t2i = blind.cells["bivlc"].values["t2i_score"]
    assert t2i.tie_heavy and t2i.value == 0.0 and t2i.expected_ties_half == pytest.approx(0.25)
    _open(browser, site / "index.html")
    seen = browser.execute_script(
        """const row = document.querySelector('#models tr.kind-blind');
        const cell = key => row.cells[vlcBoard.columns.findIndex(c => c.key === key)];
        const t2i = cell('bivlc.t2i_score'), gap = cell('bivlc.gap');
        return [t2i.querySelector('.v').textContent, t2i.querySelector('.strict').textContent,
                t2i.querySelector('.ties').textContent, t2i.getAttribute('data-value'),
                gap.textContent.trim(), gap.getAttribute('data-value')];""",
    )
    assert seen[0] == "25.0" and seen[1] == "0.0" and "ties broken at random" in seen[2] and "100% ties" in seen[2]
    assert float(seen[3]) == pytest.approx(0.25)
    i2t = blind.cells["bivlc"].values["i2t_score"]
    assert seen[4].startswith(f"{100 * (i2t.shown - 0.25):+.1f}") and "ties broken" in seen[4]
    assert float(seen[5]) == pytest.approx(i2t.shown - 0.25)
    # no tie-heavy value shows its strict number first anywhere on the index
    firsts = browser.execute_script(
        """return Array.from(document.querySelectorAll('#models td.tie-heavy'))
          .filter(td => td.querySelector('.strict'))
          .map(td => [td.querySelector('.v').textContent, td.querySelector('.strict').textContent,
                      parseFloat(td.getAttribute('data-value'))]);"""
    )
    assert firsts and all(abs(float(v) - 100 * dv) < 0.051 for v, _, dv in firsts)
    # the plot puts the blind model at its ties-broken values, not at (0, 0)
    _open(browser, site / "benchmarks" / "bivlc.html")
    tips = [t.get_attribute("textContent") for t in browser.find_elements("css selector", "svg.scatter title")]
    point = next(t for t in tips if t.startswith(blind.name))
    assert point == f"{blind.name}: {100 * i2t.shown:.1f} / 25.0"
    assert not _errors(browser)


def test_the_index_order_ranks_a_model_missing_one_cell_on_the_benchmarks_it_has(demo, browser):  # noqa: F811
    board, site = demo["board"], demo["site"]
    j = next(r for r in board.rows if r.name.startswith("Demo J"))
    blind = next(r for r in board.rows if r.kind == "blind")
    assert j.overall is not None and (j.overall.k, j.overall.of) == (9, 10) and round(j.overall.mean_rank, 1) == 1.4
    assert blind.overall is not None and blind.overall.mean_rank == pytest.approx(7.0)
    _open(browser, site / "index.html")
    names = browser.execute_script(
        "return Array.from(document.querySelectorAll('#models tr')).map(r => r.getAttribute('data-name'))"
    )
    assert names.index(j.name) < names.index(blind.name)
    assert names == [r.name for r in board.rows]
    overall = browser.execute_script(
        "return document.querySelector('#models tr[data-name=\"' + arguments[0] + '\"] td.overall').textContent",
        j.name,
    )
    shown = " ".join(overall.split())  # the mean rank, the magnitude (0 chance, 1 human), the coverage
    assert shown.startswith("1.4 ") and shown.endswith(" 9 of 10 benchmarks") and "nan" not in shown
    rule = browser.find_element("id", "order-rule").text
    assert rule.startswith("Order: 10 benchmarks rank models; no model is listed below one it dominates")
    assert "a model ranked on at least half of them" in rule
    assert "mean headline rank over the benchmarks it has" in rule and "baselines are not ranked" in rule
    # the model page says the same
    page = (site / "models" / f"{j.slug}.html").read_text()
    assert "over the 9 of 10 ranked benchmarks it has: place" in " ".join(page.split())
    assert not _errors(browser)


def test_headers_carry_one_arrow_and_numbers_are_never_ordered_a_to_z(demo, browser):  # noqa: F811
    _open(browser, demo["site"] / "index.html")

    def arrows(key: str) -> list[str]:
        text = browser.execute_script(
            "return document.querySelector('th[data-col=\"' + arguments[0] + '\"] button').innerText", key
        )
        return [ch for ch in text if ch in ARROWS]

    assert arrows("overall") == [SORT_ARROWS["ascending"]]  # sorted best first: the sort arrow only
    assert arrows("hard_positives.brittleness") == [LOWER_IS_BETTER]
    browser.find_element("css selector", 'th[data-col="hard_positives.brittleness"] button').click()
    assert arrows("hard_positives.brittleness") == [SORT_ARROWS["ascending"]] and arrows("overall") == [LOWER_IS_BETTER]
    options = lambda: [o.text for o in browser.find_elements("css selector", "#f-dir option")]  # noqa: E731
    assert options() == ["high to low", "low to high"]
    browser.find_element("css selector", 'th[data-col="model"] button').click()
    assert options() == ["Z to A", "A to Z"] and "A to Z" in browser.find_element("id", "status").text
    assert not _errors(browser)


def test_one_benchmark_reads_in_the_singular(demo, tmp_path):
    from vlc_leaderboard.site import render_site

    board = demo["board"]
    col = next(c for c in board.benchmarks if c.id == "bivlc")
    single = Board([col], order_rows(copy.deepcopy(board.rows), [col]))  # order_rows sets each row's overall
    render_site(single, tmp_path / "site", {"harness_version": "test", "git_sha": ""}, runs={1: {}})
    html = " ".join((tmp_path / "site" / "index.html").read_text().split())
    assert "Order: 1 benchmark ranks models;" in re.sub(r"<[^>]+>", "", html)
    assert "1 of 1 benchmark</span>" in html and "of 1 benchmarks" not in html
