"""The board read by a stranger (issue 28, items 3, 5, 11 and 12), in real Chromium: a value without an
interval says so and why, the quickstart board explains its empty Human row, shows its parameters and
says what "unverified" means, the model page's compare link selects that model or says it cannot be
compared, drilldown permalinks are short and survive a benchmark added later, and the demonstration
board has no dead link (its downloads are rendered; the footer names the registry by its digest).
"""

from __future__ import annotations

import dataclasses
import math
import re
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

import pytest
import yaml
from click.testing import CliRunner

from tests.leaderboard.test_board_reading import _errors, _open, browser  # noqa: F401 (fixture)
from vlc_harness.store import CellRecord
from vlc_leaderboard.cite import board_bibtex
from vlc_leaderboard.intervals import no_interval_reason

REPO = Path(__file__).resolve().parents[2]


# ---- item 3: a value without an interval says why ----


def _cell(replicates: list[float] | None, ci: list[float] | None = None, version: str | None = "e1.b4.x") -> CellRecord:
    metric = {"metric": "auc_macro", "category": "all", "value": 0.75, "n": 12}
    if ci is not None:
        metric["ci95"] = ci
    reps = None if replicates is None else {("auc_macro", "all"): replicates}
    return CellRecord("m", "seetrue", "seetrue", "ok", complete=True, metrics=[metric], metrics_version=version,
                      replicates=reps)  # fmt: skip


def test_a_value_without_an_interval_says_why():
    undefined = no_interval_reason(_cell([0.5, math.nan, 0.7, math.nan]), "auc_macro")
    assert undefined.startswith("2 of 4 bootstrap resamples have no value") and "one class only" in undefined
    assert no_interval_reason(_cell([0.5, 0.6], ci=[0.5, 0.6]), "auc_macro") == ""  # it has one
    assert "v0.1" in no_interval_reason(_cell(None, version=None), "auc_macro")
    assert no_interval_reason(_cell(None), "auc_macro") == "no bootstrap resamples are stored for this value"
    assert no_interval_reason(_cell([0.5]), "other_metric") == ""  # no such value: nothing to explain
    category = dataclasses.replace(_cell(None), metrics=[{"metric": "group_score", "category": "tag", "value": 1.0}],
                                   replicates={("group_score", "tag"): [1.0, math.nan]})  # fmt: skip
    assert "none of this category's instances" in no_interval_reason(category, "group_score", "tag")


def test_seetrue_auc_shows_no_interval_and_why_where_it_has_none(demo, browser):  # noqa: F811
    board = demo["board"]
    col = next(c for c in board.benchmarks if c.id == "seetrue")
    values = [r.cells["seetrue"].values[col.metrics[0].metric] for r in board.rows if r.cells["seetrue"].published]
    assert values and all((v.ci95 is None) == bool(v.no_interval) for v in values)
    assert any(v.no_interval for v in values)  # the demo's 12 instances leave resamples with one class only
    _open(browser, demo["site"] / "benchmarks" / "seetrue.html")
    cells = browser.execute_script(
        "return Array.from(document.querySelectorAll('#ranked tbody tr')).filter(r => r.querySelector('a'))"
        ".map(r => r.cells[1].innerText)"
    )
    assert cells and all(re.search(r"\d–\d", c) or "no interval: " in c for c in cells), cells
    assert any("bootstrap resamples have no value (ROC AUC is undefined on a resample holding one class only)" in c
               for c in cells)  # fmt: skip
    _open(browser, demo["site"] / "index.html")
    index = browser.execute_script(
        "const i = vlcBoard.columns.findIndex(c => c.key.startsWith('seetrue.'));"
        "return Array.from(document.querySelectorAll('#models tr')).map(r => r.cells[i].innerText);"
    )
    assert any("no interval" in c for c in index)
    assert all(re.search(r"\d–\d", c) or "no interval" in c or not re.search(r"\d", c) for c in index), index
    assert not _errors(browser)


# ---- item 5: the quickstart board ----


@pytest.fixture(scope="module")
def quickstart(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The README's quickstart grid (examples/quickstart.yaml as shipped, shapes at 20 scenes so the test is
    quick), run offline and rendered."""
    from vlc_harness.cli import build_cli

    root = tmp_path_factory.mktemp("quickstart")
    grid = yaml.safe_load((REPO / "examples" / "quickstart.yaml").read_text())
    for entry in grid["benchmarks"]:
        if entry["type"] == "shapes":
            entry["params"] |= {"n_scenes": 20, "image_size": 32}
    registry = root / "quickstart.yaml"
    registry.write_text(yaml.safe_dump(grid))
    common = ["--registry", str(registry), "--store", f"sqlite:///{root / 'store.sqlite'}", "--data-root",
              str(root / "data")]  # fmt: skip
    runner = CliRunner()
    ran = runner.invoke(
        build_cli(), ["run", "--all", "--no-progress", "--executor", "inprocess", *common], catch_exceptions=False
    )
    assert ran.exit_code == 0, ran.output
    rendered = runner.invoke(build_cli(), ["render", "--out", str(root / "site"), *common], catch_exceptions=False)
    assert rendered.exit_code == 0, rendered.output
    return root / "site"


def test_quickstart_board_explains_its_human_row_shows_params_and_says_what_unverified_means(quickstart, browser):  # noqa: F811
    _open(browser, quickstart / "index.html")
    human = browser.execute_script(
        "const i = vlcBoard.columns.findIndex(c => c.key === 'shapes.group_score');"
        "return document.querySelector('tr.kind-human').cells[i].innerText;"
    )
    assert human == "no human study"
    params = browser.execute_script(
        "const i = vlcBoard.columns.findIndex(c => c.key === 'params');"
        "return Object.fromEntries(Array.from(document.querySelectorAll('#models tr'))"
        ".map(r => [r.getAttribute('data-id'), r.cells[i].innerText]));"
    )
    assert params["shapes-clip"] == "0.91" and params["openai-vit-b-32"] == "151"
    note = browser.find_element("id", "unverified-note")
    assert note.is_displayed() and "compared its numbers with those its paper reports" in note.text
    assert "unverified" in browser.find_element("css selector", 'tr[data-id="openai-vit-b-32"] th').text
    _open(browser, quickstart / "benchmarks" / "shapes.html")
    assert "no human study" in browser.find_element("css selector", "#ranked tr.kind-human").text
    assert not _errors(browser)


def _human_row(html: str) -> str:
    start = html.index('<tr class="kind-human">')
    return html[start : html.index("</tr>", start)]


def test_sugarcrepe_human_value_is_one_rule_on_the_quickstart_and_the_demo(quickstart, demo):
    """Issue 41, item 8: the quickstart's SugarCrepe (no model has a result: the data is not there) shows
    the same human macro as the demo's on the same data version, not "no overall human value"."""
    col = next(c for c in demo["board"].benchmarks if c.id == "sugarcrepe")
    assert col.data_version == "paper-7512" and col.metrics[0].human == pytest.approx(0.99)
    demo_row = _human_row((demo["site"] / "index.html").read_text())
    quick_row = _human_row((quickstart / "index.html").read_text())
    assert "99.0" in demo_row and "99.0" in quick_row
    assert "no overall human value" not in quick_row and "no overall human value" not in demo_row


# ---- item 11: permalinks ----


def test_compare_link_selects_the_model_or_says_it_cannot_be_compared(quickstart, browser):  # noqa: F811
    from selenium.webdriver.support.ui import WebDriverWait

    _open(browser, quickstart / "models" / "shapes-clip.html")
    browser.find_element("link text", "compare with other models").click()
    WebDriverWait(browser, 10).until(lambda d: d.find_element("id", "compare-status").text)
    assert browser.find_element("id", "pick-a").get_attribute("value") == "shapes-clip"
    assert "Comparing A Shapes CLIP" in browser.find_element("id", "compare-status").text
    _open(browser, quickstart / "models" / "openai-vit-b-32.html")
    assert not browser.find_elements("link text", "compare with other models")
    assert "not in the compare view: OpenAI ViT-B/32 has no published result" in browser.page_source
    browser.get((quickstart / "compare.html").as_uri() + "#a=openai-vit-b-32")
    WebDriverWait(browser, 10).until(lambda d: d.find_element("id", "compare-status").text)
    assert "“openai-vit-b-32” cannot be compared" in browser.find_element("id", "compare-status").text
    assert not _errors(browser)


def _reopen(driver: Any, url: str) -> None:
    """Open ``url`` afresh and wait for board.js to apply its address (a loaded machine is slow)."""
    from selenium.webdriver.support.ui import WebDriverWait

    driver.get("about:blank")
    driver.get(url)
    script = "const s = document.getElementById('status'); return !s || s.textContent !== ''"
    WebDriverWait(driver, 10).until(lambda d: d.execute_script(script))


def _shown_columns(driver: Any) -> list[str]:
    return driver.execute_script(
        "return Array.from(document.querySelectorAll('thead th[data-col]')).filter(th => !th.hidden)"
        ".map(th => th.getAttribute('data-col'));"
    )


def test_drilldown_permalinks_are_short_and_survive_a_benchmark_added_later(demo, browser, tmp_path):  # noqa: F811
    from vlc_leaderboard.board import Board
    from vlc_leaderboard.site import render_site

    board = demo["board"]
    added = board.benchmarks[-1]
    before = tmp_path / "before"  # the board as it was before its last benchmark was added
    render_site(Board([c for c in board.benchmarks if c is not added], board.rows), before, {"harness_version": "t"})
    _open(browser, before / "index.html")
    browser.find_element("css selector", 'button.drill[data-drill="sugarcrepe"]').click()
    fragment = urlparse(browser.current_url).fragment
    assert fragment == "drill=sugarcrepe", fragment  # one short key, not every visible column
    _open(browser, demo["site"] / "index.html")
    defaults = _shown_columns(browser)
    _reopen(browser, (demo["site"] / "index.html").as_uri() + "#" + fragment)
    shown = _shown_columns(browser)
    assert [k for k in shown if k.startswith(added.id + ".")]  # the benchmark added later keeps its columns
    assert set(defaults) <= set(shown) and [k for k in shown if k.startswith("sugarcrepe.~")]
    # hiding a default column and showing a non-default one stay short too, and come back from the link
    browser.find_element("css selector", "#chooser summary").click()
    browser.find_element("css selector", '#chooser-body input[value="family"]').click()  # hidden by default
    browser.find_element("css selector", f'#chooser-body input[value="{defaults[-1]}"]').click()  # shown by default
    fragment = urlparse(browser.current_url).fragment
    assert "show=family" in fragment and "hide=" in fragment and "drill=sugarcrepe" in fragment, fragment
    assert len(fragment) < 100 and "cols=" not in fragment, fragment
    chosen = _shown_columns(browser)
    assert "family" in chosen and defaults[-1] not in chosen
    _reopen(browser, (demo["site"] / "index.html").as_uri() + "#" + fragment)
    assert _shown_columns(browser) == chosen
    # a link of the older form (every visible column) still opens its view
    _reopen(browser, (demo["site"] / "index.html").as_uri() + "#cols=" + ",".join(["model", *chosen]))
    assert _shown_columns(browser) == chosen
    assert not _errors(browser)


# ---- item 12: no dead link, the registry named, the board's BibTeX ----


def _dead_links(site: Path) -> list[str]:
    dead = []
    for page in site.rglob("*.html"):
        for href in re.findall(r'href="([^"#]+)', page.read_text(encoding="utf-8")):
            if not re.match(r"^[a-z]+:", href) and not (page.parent / unquote(href)).exists():
                dead.append(f"{page.relative_to(site)} -> {href}")
    return dead


@pytest.mark.slow  # the browser tests' demo board, built for it alone
def test_demo_board_has_no_dead_link_and_names_its_registry(demo):  # noqa: F811
    site = demo["site"]
    assert (site / "downloads" / "leaderboard.csv").exists() and any((site / "downloads" / "scores").iterdir())
    assert not _dead_links(site)
    footer = (site / "index.html").read_text(encoding="utf-8").split("<footer>")[1]
    assert re.search(r"registry [0-9a-f]{12} \(the sha256 of its models and benchmarks\)", footer)
    assert "registry ." not in footer


def test_a_site_rendered_without_downloads_does_not_link_them(demo, tmp_path):  # noqa: F811
    from vlc_leaderboard.site import render_site

    render_site(demo["board"], tmp_path / "site", {})
    pages = list((tmp_path / "site").rglob("*.html"))
    assert pages and not any("downloads/" in p.read_text(encoding="utf-8") for p in pages)
    assert not _dead_links(tmp_path / "site")
    assert "registry" not in (tmp_path / "site" / "index.html").read_text(encoding="utf-8").split("<footer>")[1]


def test_the_board_bibtex_always_has_a_year_and_says_what_it_cites():
    empty = board_bibtex({"harness_version": "1.0"}, "", rendered_year="2026", published=False)
    assert "year = {2026}" in empty and "note = {live board, no published result yet; vlc-harness 1.0}" in empty
    assert "live board of }" not in empty and "live board of ;" not in empty
    untimed = board_bibtex({}, "", rendered_year="2026")
    assert "year = {2026}" in untimed and "note = {live board}" in untimed
    dated = board_bibtex({"registry_digest": "abcdef0123456789"}, "2026-05-01 10:00 UTC", rendered_year="2027")
    assert "year = {2026}" in dated and "live board of 2026-05-01; registry abcdef012345" in dated
