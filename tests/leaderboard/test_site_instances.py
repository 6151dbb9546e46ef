"""The instance browser (issue 28, item 7), in real Chromium: thumbnails for the generated shapes only,
COCO files named and linked to their source, the gold caption and image marked, each picked model's
verdict and stored scores, the A-C and B-C filters, a permalink that reopens its instance, only the
picked models' files loaded, the size-budget message, and axe-core with no serious violation at 1440
and 390 px.

The board: four models on each benchmark's generated example (shapes, SugarCrepe, BiVLC, SeeTRUE),
scored with made-up skills; the expected verdicts come from the results API (``StoredResults.verdicts``),
the expected scores from the score matrices the store holds.
"""

from __future__ import annotations

import dataclasses
import re
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.leaderboard.test_site_axe import axe_source, severe_violations  # noqa: F401 (fixture)
from tests.leaderboard.test_site_layout import PHONE, _errors, browser  # noqa: F401 (fixture)

BENCHMARKS = ["shapes", "sugarcrepe", "bivlc", "seetrue"]
SKILL = {"model-01": 0.6, "model-02": 0.3, "model-03": 0.05}
DESKTOP = (1440, 900)
PICKED = "a=model-01&b=model-02&c=model-03"


@pytest.fixture(scope="module")
def board_site(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The board, its instance data, the expected verdicts and the rendered site."""
    from bench.render_speed import synthetic_cells
    from tests.leaderboard.screenshots import _Store
    from vlc_harness.plugins import get_plugins
    from vlc_harness.results import StoredResults
    from vlc_leaderboard.board import Board, build_board
    from vlc_leaderboard.instance_arrays import instance_results
    from vlc_leaderboard.site import render_site

    tmp = tmp_path_factory.mktemp("instances")
    keep: dict[str, Any] = {}
    registry, cells = synthetic_cells(4, tmp / "data", BENCHMARKS, samples=20, skill=SKILL, keep=keep)
    by_id = {}
    for k, cell in enumerate(cells):
        cells[k] = dataclasses.replace(cell, id=k + 1)
        by_id[k + 1] = keep["matrices"][(cell.model_id, cell.benchmark_id)]
    board = build_board(cells, registry, get_plugins())
    results = StoredResults(_Store(by_id))
    instances = {}
    for col in board.benchmarks:
        instances |= instance_results(Board([col], board.rows), results, keep["roots"][col.id])
    expected: dict[tuple[str, str], dict[str, str]] = {}
    for col in board.benchmarks:
        bench_instances = keep["matrices"][("model-01", col.id)][0]
        for row in board.rows:
            cell = row.cells[col.id].cell
            if col.id != "seetrue":
                found = results.verdicts(cell, col.benchmark, bench_instances, col.metrics[0].metric)
                expected[(row.id, col.id)] = found.by_instance()
    site = tmp / "site"
    render_site(board, site, {"harness_version": "test"}, instances=instances)
    return {"board": board, "site": site, "instances": instances, "keep": keep, "expected": expected, "tmp": tmp}


def _show(driver: Any, site: Path, fragment: str, size: tuple[int, int] = DESKTOP) -> str:
    """Open the compare view at ``fragment`` and wait for the browser's status (its files load on demand)."""
    from selenium.webdriver.support.ui import WebDriverWait

    width, height = size
    metrics = {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600}
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", metrics)
    driver.get("about:blank")
    driver.get_log("browser")
    driver.get((site / "compare.html").as_uri() + "#" + fragment)

    def ready(d: Any) -> str | bool:
        text = d.find_element("id", "browse-status").text
        note = d.find_element("id", "browse-note").text
        return text if text and text != "Loading…" and note else False

    return WebDriverWait(driver, 10).until(ready)


def _items(driver: Any) -> list[dict[str, Any]]:
    """Each listed instance: id, images, captions and its table (header and rows)."""
    return driver.execute_script(
        """return Array.from(document.querySelectorAll('#browse-list li.instance')).map(li => ({
          id: li.querySelector('.instance-id code').textContent,
          permalink: li.querySelector('.instance-id a').getAttribute('href'),
          imgs: Array.from(li.querySelectorAll('img')).map(i => [i.getAttribute('src'), i.naturalWidth,
                                                              i.naturalHeight, i.complete, i.alt]),
          figures: Array.from(li.querySelectorAll('figcaption')).map(f => f.textContent),
          links: Array.from(li.querySelectorAll('figcaption a')).map(a => a.href),
          captions: Array.from(li.querySelectorAll('ol.captions li')).map(c => [c.className, c.textContent]),
          head: Array.from(li.querySelectorAll('table.instance-scores thead th')).map(th => th.textContent),
          rows: Array.from(li.querySelectorAll('table.instance-scores tbody tr')).map(tr =>
            Array.from(tr.cells).map(c => c.textContent)),
        }));"""
    )


def _wait_images(driver: Any) -> None:
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(driver, 10).until(
        lambda d: d.execute_script(
            "return Array.from(document.querySelectorAll('#browse-list img')).every(i => i.complete)"
        )
    )


def test_thumbnails_for_shapes_only_and_coco_files_link_their_source(board_site, browser):  # noqa: F811
    site = board_site["site"]
    _show(browser, site, PICKED + "&bench=shapes&show=any")
    _wait_images(browser)
    items = _items(browser)
    assert items and all(len(i["imgs"]) == 2 for i in items)  # shapes' 2x2 instances: both images
    for item in items:
        for src, width, height, complete, alt in item["imgs"]:
            assert src.startswith("data/instances/shapes/img/") and complete and 0 < max(width, height) <= 160
            assert alt.startswith("image ") and item["id"] in alt
    thumbs = list((site / "data" / "instances" / "shapes" / "img").iterdir())
    assert thumbs and all(p.suffix == ".png" for p in thumbs)
    assert not [p for p in (site / "data").rglob("*") if p.suffix in (".jpg", ".jpeg")]  # no full-size copy
    for bench in ("sugarcrepe", "bivlc"):
        _show(browser, site, PICKED + f"&bench={bench}&show=any")
        items = _items(browser)
        assert items and not any(i["imgs"] for i in items), bench  # COCO images are not ours to publish
        assert not (site / "data" / "instances" / bench / "img").exists()
        for item in items:
            coco = [f for f in item["figures"] if "coco/val2017/" in f]
            assert coco and all(re.search(r"coco/val2017/\d{12}\.jpg", f) for f in coco)
            assert item["links"] and all(
                re.fullmatch(r"http://images\.cocodataset\.org/val2017/\d{12}\.jpg", u) for u in item["links"]
            )
        if bench == "bivlc":  # its generated negative image: named, not linked, not shown
            assert all(any("bivlc/negative_images/" in f for f in i["figures"]) for i in items)
            assert all(len(i["links"]) == 1 for i in items)
    assert not _errors(browser)


def test_gold_caption_and_gold_image_are_marked(board_site, browser):  # noqa: F811
    site = board_site["site"]
    _show(browser, site, PICKED + "&bench=sugarcrepe&show=any")
    for item in _items(browser):  # 1 image x 2 captions: the first is the gold one, the second its foil
        (gold_class, gold_text), (foil_class, foil_text) = item["captions"]
        assert "caption-gold" in gold_class and gold_text.startswith("✓ gold")
        assert "caption-gold" not in foil_class and foil_text.startswith("✗ foil")
        assert item["head"][2:] == ["caption 1 ✓", "caption 2"]
    _show(browser, site, PICKED + "&bench=bivlc&show=any")
    for item in _items(browser):  # 2 x 2: each caption's gold image, and each image's caption
        assert [c[1][:18] for c in item["captions"]] == ["✓ gold for image 1", "✓ gold for image 2"]
        assert "gold for caption 1" in item["figures"][0] and "gold for caption 2" in item["figures"][1]
        gold_columns = [h for h in item["head"] if h.endswith("✓")]
        assert gold_columns == ["image 1 · caption 1 ✓", "image 2 · caption 2 ✓"]


def _expected_scores(board_site: dict[str, Any], model: str, bench: str, instance_id: str) -> list[str]:
    """A model's stored scores on an instance as the table shows them: 5 significant digits, row by row."""
    instances, matrices = board_site["keep"]["matrices"][(model, bench)]
    matrix = next(m for inst, m in zip(instances, matrices) if inst.id == instance_id)
    return [repr(float(f"{v:.5g}")) for v in np.asarray(matrix).ravel() if not np.isnan(v)]


def test_each_picked_model_shows_its_verdict_and_stored_scores(board_site, browser):  # noqa: F811
    site = board_site["site"]
    names = {r.slug: r.name for r in board_site["board"].rows}
    for bench in ("bivlc", "shapes"):
        _show(browser, site, PICKED + f"&bench={bench}&show=any")
        note = browser.find_element("id", "browse-note").text  # the rounding is labelled where it is shown
        assert "scores are shown to 5 significant digits" in note and "scores download has them as stored" in note
        items = _items(browser)
        assert len(items) == min(25, len(board_site["instances"][bench].ids))  # a page
        for item in items:
            assert item["head"][:2] == ["Model", "Verdict"]
            assert [r[0] for r in item["rows"]] == [f"{x}: {names[m]}" for x, m in zip("ABC", SKILL)]
            for row, model in zip(item["rows"], SKILL):
                verdict = board_site["expected"][(model, bench)][item["id"]]
                assert row[1] == verdict or (verdict == "tie" and row[1].startswith("tie")), (row, verdict)
                assert row[2:] == _expected_scores(board_site, model, bench, item["id"])


def _right_wrong(board_site: dict[str, Any], bench: str, right: str, wrong: str) -> list[str]:
    """Instance ids, in order, where ``right`` gets full credit and ``wrong`` none (from the results API)."""
    got_right = board_site["expected"][(right, bench)]
    got_wrong = board_site["expected"][(wrong, bench)]
    order = board_site["instances"][bench].ids
    return [i for i in order if got_right.get(i) == "right" and got_wrong.get(i) in ("wrong", "abstained")]


FILTERS = [("ac", "model-01", "model-03"), ("cb", "model-03", "model-02"), ("bc", "model-02", "model-03"),
           ("ba", "model-02", "model-01")]  # fmt: skip
"""(filter, the model it wants right, the one it wants wrong)."""


@pytest.mark.parametrize(("show", "right", "wrong"), FILTERS)
def test_a_c_and_b_c_filters_list_what_the_results_api_says(board_site, browser, show, right, wrong):  # noqa: F811
    site = board_site["site"]
    names = {r.slug: r.name for r in board_site["board"].rows}
    for bench in ("shapes", "sugarcrepe"):
        status = _show(browser, site, PICKED + f"&bench={bench}&show={show}")
        wanted = _right_wrong(board_site, bench, right, wrong)
        total = len(board_site["instances"][bench].ids)
        assert status == f"{len(wanted)} of {total} instances: {names[right]} right, {names[wrong]} wrong."
        assert [i["id"] for i in _items(browser)] == wanted[:25]
        options = browser.execute_script(
            "return Array.from(document.getElementById('browse-which').options).map(o => o.value)"
        )
        assert options == ["ab", "ba", "ac", "ca", "bc", "cb", "all", "none", "any"]
    # with two models picked, the C filters are not offered, and a permalink asking for one falls back
    status = _show(browser, site, "a=model-01&b=model-02&bench=shapes&show=ac")
    options = browser.execute_script(
        "return Array.from(document.getElementById('browse-which').options).map(o => o.value)"
    )
    assert options == ["ab", "ba", "all", "none", "any"] and "show=ac" not in browser.current_url
    assert status.endswith(f"{names['model-01']} right, {names['model-02']} wrong.")


def test_a_permalink_reopens_its_instance(board_site, browser):  # noqa: F811
    site = board_site["site"]
    _show(browser, site, PICKED + "&bench=bivlc&show=ac")
    first = _items(browser)[0]
    assert "inst=" in first["permalink"] and "bench=bivlc" in first["permalink"] and "c=model-03" in first["permalink"]
    browser.find_element("css selector", "#browse-list li.instance .instance-id a").click()
    time.sleep(0.3)
    url = browser.current_url
    assert "inst=" in url
    browser.get("about:blank")
    browser.get(url)  # a fresh page: the permalink alone brings the instance back
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(browser, 10).until(lambda d: d.find_elements("css selector", "#browse-list li.instance"))
    status = browser.find_element("id", "browse-status").text
    items = _items(browser)
    assert len(items) == 1 and items[0]["id"] == first["id"] and status.startswith(f"Instance {first['id']} (")
    assert items[0]["rows"] == first["rows"] and items[0]["captions"] == first["captions"]
    assert [r[0][:2] for r in items[0]["rows"]] == ["A:", "B:", "C:"]
    back = browser.find_element("css selector", "#browse-note a")
    back.click()
    time.sleep(0.3)
    assert "inst=" not in browser.current_url and len(_items(browser)) > 1
    assert not _errors(browser)
    status = _show(browser, site, PICKED + "&bench=bivlc&inst=no_such/instance")
    assert status == "No instance “no_such/instance” in this benchmark's published data."


def test_only_the_picked_models_files_are_loaded(board_site, browser):  # noqa: F811
    site = board_site["site"]
    _show(browser, site, PICKED + "&bench=sugarcrepe&show=any")
    loaded = browser.execute_script(
        "return Array.from(document.querySelectorAll('script[src]')).map(s => s.getAttribute('src'))"
        ".filter(s => s.indexOf('data/instances/') === 0).sort()"
    )
    folder = "data/instances/sugarcrepe"
    picked = sorted(SKILL)
    assert loaded == sorted(
        [f"{folder}/index.js", f"{folder}/shard-0.js"]
        + [f"{folder}/models/{m}.js" for m in picked]
        + [f"{folder}/models/{m}/shard-0.js" for m in picked]
    )
    on_disk = {p.relative_to(site).as_posix() for p in (site / folder).rglob("*.js")}
    assert f"{folder}/models/model-00.js" in on_disk and f"{folder}/models/model-00.js" not in loaded
    assert not any(s.startswith("data/instances/shapes") for s in loaded)


def test_a_file_over_the_size_budget_is_named_on_the_page(board_site, browser, monkeypatch, tmp_path):  # noqa: F811
    from vlc_leaderboard import instance_files
    from vlc_leaderboard.site import render_site

    data = dataclasses.replace(board_site["instances"]["sugarcrepe"])
    assert data.captions is not None
    data.captions = [list(c) for c in data.captions]
    data.captions[3] = ["x" * 20_000, data.captions[3][1]]  # one instance bigger than a file may be
    monkeypatch.setattr(instance_files, "BUDGET", instance_files.Budget(max_file_bytes=16_384))
    render_site(board_site["board"], tmp_path / "site", {"harness_version": "test"}, instances={"sugarcrepe": data})
    status = _show(browser, tmp_path / "site", PICKED + "&bench=sugarcrepe&show=any")
    note = browser.find_element("id", "browse-note").text
    total = len(data.ids)
    assert status.startswith(f"{total} of {total} instances")  # its verdicts still count
    assert "Instances 4–4 are over the size budget (16,384 bytes per file) and not published" in note
    assert [i["id"] for i in _items(browser)] == [i for k, i in enumerate(data.ids) if k != 3][:25]
    assert "SeeTRUE" not in browser.find_element("id", "browse-missing").text  # only SugarCrepe was given here
    assert not _errors(browser)


def test_a_benchmark_without_per_instance_verdicts_says_why(board_site, browser):  # noqa: F811
    _show(browser, board_site["site"], PICKED + "&bench=shapes")
    missing = browser.find_element("id", "browse-missing").text
    assert missing == (
        "Not in the browser: SeeTRUE (its headline ranks instances (a ranking statistic): "
        "no instance is right or wrong on its own)."
    )
    benches = browser.execute_script(
        "return Array.from(document.getElementById('browse-bench').options).map(o => o.value)"
    )
    assert benches == ["shapes", "sugarcrepe", "bivlc"]


@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["1440", "390"])
def test_no_serious_accessibility_violation_in_the_instance_browser(board_site, browser, axe_source, size):  # noqa: F811
    found = {}
    one = board_site["instances"]["bivlc"].ids[-1]
    views = {"list": PICKED + "&bench=shapes&show=any", "permalink": PICKED + f"&bench=bivlc&inst={one}"}
    for name, fragment in views.items():
        _show(browser, board_site["site"], fragment, size)
        _wait_images(browser)
        assert browser.find_elements("css selector", "#browse-list li.instance"), name
        severe = severe_violations(browser, axe_source)
        if severe:
            found[name] = severe
    assert not found, found
