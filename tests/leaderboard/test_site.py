"""The static site: rendered from a store filled through the precomputed model over a generated
2x2 benchmark (BiVLC format, so gaps and T2I exist) plus the SugarCrepe sample."""

from __future__ import annotations

import dataclasses
import gzip
import hashlib
import json
import re
import shutil
from pathlib import Path

import numpy as np
import pytest

from vlc_harness.params import build
from vlc_harness.testing import write_standin_images
from vlc_harness_builtins.benchmarks.bivlc import BiVLC
from vlc_harness_builtins.benchmarks.sugarcrepe import SugarCrepe
from vlc_harness_builtins.testing.data_bivlc import write_example

EVIL = '<script>alert("x")</script>\'"&'
PLANTED = "planted-secret-folder"
"""A local folder that holds a model's scores file: named in a stored failure reason, never published."""


def _scores(instances, benchmark: str, version: str, skill: float, seed: int, given: dict) -> list[str]:
    """Gold pairs score higher with probability ``skill``; one score per distinct (image, text)."""
    rng = np.random.default_rng(seed)
    lines = []
    for inst in instances:
        for i, j in inst.needed_pairs():
            gold = i == j if len(inst.images) > 1 else j == 0
            key = (hashlib.sha256(inst.images[i].path.read_bytes()).hexdigest(), inst.texts[j])
            if key not in given:
                given[key] = rng.random() + (1.0 if gold and rng.random() < skill else 0.0)
            score = given[key]
            lines.append(
                json.dumps(
                    {
                        "benchmark": benchmark,
                        "version": version,
                        "instance": inst.id,
                        "image": i,
                        "text": j,
                        "score": score,
                    }
                )
            )
    return lines


@pytest.fixture(scope="module")
def site_store(tmp_path_factory, vlc_cli_module):
    tmp = tmp_path_factory.mktemp("site")
    root = tmp / "data"
    write_example(root, per_subset=6)
    from tests.conftest import SUGARCREPE_SAMPLE, sugarcrepe_filenames

    shutil.copytree(SUGARCREPE_SAMPLE, root / "sugarcrepe")
    write_standin_images(sugarcrepe_filenames(root / "sugarcrepe"), root / "coco" / "val2017")
    bivlc = BiVLC(build(BiVLC.Params, {"version": "custom"}), root)
    sugar = SugarCrepe(build(SugarCrepe.Params, {"version": "custom"}), root)
    models = {"strong": 0.9, "weak": 0.3}
    for name, skill in models.items():
        given: dict = {}
        lines = _scores(bivlc.load_instances(), "bivlc", bivlc.data_version, skill, 1, given)
        lines += _scores(sugar.load_instances(), "sugarcrepe", sugar.data_version, skill, 2, given)
        (tmp / f"{name}.jsonl").write_text("\n".join(lines) + "\n")
    # a submitted scores file with no SugarCrepe scores: its SugarCrepe cell fails, naming the file
    (tmp / PLANTED).mkdir()
    weak_bivlc = [line for line in (tmp / "weak.jsonl").read_text().splitlines() if '"bivlc"' in line]
    (tmp / PLANTED / "blip-itm-base.jsonl").write_text("\n".join(weak_bivlc) + "\n")
    registry = tmp / "site.yaml"
    registry.write_text(
        "models:\n"
        "  - {id: strong, type: precomputed, params: {path: ./strong.jsonl}, "
        "meta: {display_name: 'Strong CLIP', family: CLIP, parameters_m: 150, open_weights: true}}\n"
        "  - {id: weak, type: precomputed, params: {path: ./weak.jsonl}, "
        f"meta: {{display_name: {json.dumps(EVIL)}, family: Other, parameters_m: 20, open_weights: false}}}}\n"
        "  - {id: random, type: random, params: {seed: 3}, meta: {display_name: Random, family: baseline}}\n"
        f"  - {{id: planted, type: precomputed, params: {{path: ./{PLANTED}/blip-itm-base.jsonl}}, "
        "meta: {display_name: 'Submitted BLIP', family: BLIP}}\n"
        "  - {id: absent, type: open_clip, params: {arch: ViT-B-32, pretrained: openai}}\n"
        "benchmarks:\n"
        f"  - {{id: bivlc, type: bivlc, params: {{version: custom}}, meta: {{note: {json.dumps(EVIL)}}}}}\n"
        "  - {id: sugarcrepe, type: sugarcrepe, params: {version: custom}}\n"
    )
    url = f"sqlite:///{tmp / 'store.sqlite'}"
    out = vlc_cli_module(
        "run",
        "--all",
        "--registry",
        str(registry),
        "--data-root",
        str(root),
        "--store",
        url,
        "--no-progress",
        "--executor",
        "inprocess",
    )
    assert out.exit_code in (0, 1), out.output  # 1: the planted model's SugarCrepe cell failed
    # a partial cell must never be published
    vlc_cli_module(
        "run",
        "--executor",
        "inprocess",
        "-m",
        "random:seed=9",
        "-b",
        "sugarcrepe:version=custom",
        "--limit",
        "1",
        "--data-root",
        str(root),
        "--store",
        url,
        "--no-progress",
    )
    return {"registry": registry, "url": url, "tmp": tmp}


@pytest.fixture(scope="module")
def vlc_cli_module():
    from click.testing import CliRunner

    from vlc_harness.cli import build_cli

    def invoke(*args):
        return CliRunner().invoke(build_cli(), list(args), catch_exceptions=False)

    return invoke


@pytest.fixture(scope="module")
def site(site_store, vlc_cli_module):
    out = site_store["tmp"] / "site"
    result = vlc_cli_module(
        "render", "--out", str(out), "--registry", str(site_store["registry"]), "--store", site_store["url"]
    )
    assert result.exit_code == 0, result.output
    return out


def test_index_has_models_human_chance_gap_and_ranks(site):
    html = (site / "index.html").read_text()
    assert "Strong CLIP" in html and "kind-human" in html and "kind-chance" in html
    assert 'class="gap"' in html  # BiVLC has both directions
    assert "#1" in html  # ranks from paired bootstrap
    assert "random:seed=9" not in html  # the partial cell is not published
    assert re.search(r"status-unavailable", html)  # the real model without weights shows why
    assert "sugarcrepe:version=custom" not in html  # a benchmark with only a partial cell is no column
    strong = html[html.index("Strong CLIP") :]
    assert re.search(r'data-value="0\.[5-9]', strong)


def test_pages_exist_for_every_benchmark_and_model(site):
    assert (site / "benchmarks" / "bivlc.html").is_file() and (site / "benchmarks" / "sugarcrepe.html").is_file()
    page = (site / "benchmarks" / "bivlc.html").read_text()
    assert "<svg" in page and "<title>Chance:" in page  # the I2T/T2I plot with the chance point
    assert "Human:" not in page  # the paper's human numbers are for the real data, not this generated one
    assert "a tie is wrong" in page
    model = (site / "models" / "strong.html").read_text()
    assert "Provenance" in model and "group_score" in model
    assert "argv" not in model and "host" not in model


def test_untrusted_strings_render_as_text(site):
    for page in [site / "index.html", site / "benchmarks" / "bivlc.html", site / "models" / "weak.html"]:
        html = page.read_text()
        assert '<script>alert("x")' not in html
    index = (site / "index.html").read_text()
    assert "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;" in index
    # only our own files: the page data and board.js, both by src, nothing inline
    assert re.findall(r"<script[^>]*>", index) == [
        '<script src="data/index.js" defer>',
        '<script src="static/board.js" defer>',
    ]
    data = (site / "data" / "index.js").read_text()
    assert "<" not in data.split("\n", 1)[1]  # the page data escapes every '<' (JSON \u003c)


def test_release_is_frozen(site_store, vlc_cli_module, site):
    args = ["--out", str(site), "--registry", str(site_store["registry"]), "--store", site_store["url"]]
    first = vlc_cli_module("render", "--release", "2026-11", *args)
    assert first.exit_code == 0
    assert (site / "releases" / "2026-11" / "index.html").is_file()
    assert 'href="releases/2026-11/index.html"' in (site / "index.html").read_text()
    from vlc_harness.errors import UserError

    with pytest.raises(UserError, match="already exists"):
        vlc_cli_module("render", "--release", "2026-11", *args)
    # each release records its date and board; the index lists them, newest first, with a changelog
    manifest = json.loads((site / "releases" / "2026-11" / "release.json").read_text())
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", manifest["date"]) and "strong|bivlc" in manifest["cells"]
    assert vlc_cli_module("render", "--release", "2026-12", *args).exit_code == 0
    index = (site / "index.html").read_text()
    changelog = index[index.index('id="releases-title"') :]
    assert changelog.index("2026-12") < changelog.index("2026-11")  # newest first
    assert manifest["date"] in changelog and "first release: 5 models, 2 benchmarks, 7 published results" in changelog
    assert "no change in the headline results" in changelog
    frozen = (site / "releases" / "2026-11" / "index.html").read_text()
    assert "release 2026-11 (frozen)" in frozen and "@misc{vlcharness" in frozen and "version = {2026-11}" in frozen


def test_board_ranks_and_hackable_mark_are_computed(site_store):
    from vlc_harness.plugins import get_plugins
    from vlc_harness.registry import load_registry
    from vlc_harness.store import open_store
    from vlc_leaderboard.board import build_board

    plugins = get_plugins()
    store = open_store(site_store["url"])
    try:
        cells = store.latest_cells(with_replicates=True)
        board = build_board(cells, load_registry([site_store["registry"]], plugins), plugins)
    finally:
        store.close()
    rows = {r.id: r for r in board.rows}
    strong = rows["strong"].cells["bivlc"].values["group_score"]
    weak = rows["weak"].cells["bivlc"].values["group_score"]
    assert strong.value > weak.value and strong.rank == 1 and weak.rank == 2
    assert strong.ci95 is not None and strong.ci95[0] <= strong.value <= strong.ci95[1]
    assert rows["absent"].cells["bivlc"].status == "unavailable"
    assert not any(c.hackable for c in board.benchmarks)  # no blind model on this board


def _chromium():
    """A headless Chromium driven by selenium, logging console messages and network events."""
    from vlc_harness.testing import in_ci, require

    require("selenium")
    binary, driver_path = Path("/usr/bin/chromium"), Path("/usr/bin/chromedriver")
    if not (binary.exists() and driver_path.exists()):
        message = "Debian's chromium and chromium-driver are not installed (apt-get install chromium chromium-driver)"
        if in_ci():
            pytest.fail(message)
        pytest.skip(message)
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(binary)
    for flag in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-background-networking",
        "--no-first-run",
        "--window-size=1400,900",
    ):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    return webdriver.Chrome(service=Service(str(driver_path)), options=options)


@pytest.mark.browser
def test_site_in_a_real_browser_sorts_filters_and_stays_offline(site, tmp_path):
    from selenium.webdriver.common.by import By

    driver = _chromium()
    try:
        driver.get((site / "index.html").as_uri())
        names = lambda: [  # noqa: E731
            r.get_attribute("data-name")
            for r in driver.find_elements(By.CSS_SELECTOR, "#models tr")
            if r.is_displayed()
        ]
        before = names()
        assert "Strong CLIP" in before and len(before) == 5
        params = driver.find_element(By.CSS_SELECTOR, 'th[data-col="params"] button')  # Params (M)
        params.click()
        assert names()[:2] == ["Strong CLIP", EVIL]  # 150 before 20, descending
        params.click()
        assert names()[0] == EVIL
        driver.find_element(By.ID, "f-text").send_keys("strong")
        assert names() == ["Strong CLIP"]
        driver.find_element(By.ID, "f-text").clear()
        driver.find_element(By.ID, "f-open").click()
        assert names() == ["Strong CLIP"]
        driver.save_screenshot(str(tmp_path / "index.png"))
        assert (tmp_path / "index.png").stat().st_size > 10_000
        errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
        assert not errors, errors
        urls = []
        for entry in driver.get_log("performance"):
            message = json.loads(entry["message"])["message"]
            if message["method"] == "Network.requestWillBeSent":
                urls.append(message["params"]["request"]["url"])
        assert urls and all(u.startswith("file://") for u in urls), urls
    finally:
        driver.quit()


def test_show_prints_the_board(site_store, vlc_cli_module):
    out = vlc_cli_module(
        "show", "--format", "board", "--registry", str(site_store["registry"]), "--store", site_store["url"]
    )
    assert out.exit_code == 0, out.output
    lines = out.output.splitlines()
    assert lines[0].startswith("model") and "bivlc:group_score" in lines[0] and "bivlc:gap" in lines[0]
    assert lines[1].startswith("Human") and lines[2].startswith("Chance")
    assert any(line.startswith("Strong CLIP") and "#1" in line for line in lines)


def test_downloads_hold_the_board_and_per_instance_scores(site):
    import csv

    rows = list(csv.DictReader((site / "downloads" / "leaderboard.csv").open()))
    assert {r["model"] for r in rows} == {"strong", "weak", "random", "planted"}
    headline = [
        r
        for r in rows
        if r["model"] == "strong"
        and r["benchmark"] == "bivlc"
        and r["metric"] == "group_score"
        and r["category"] == "all"
    ]
    assert headline and float(headline[0]["ci_low"]) <= float(headline[0]["value"])
    first = headline[0]
    # names, metadata and the rank the index shows; values in the unit the pages show (percent)
    assert (first["model_name"], first["kind"], first["family"], first["parameters_m"], first["open_weights"]) == (
        "Strong CLIP",
        "model",
        "CLIP",
        "150",
        "yes",
    )
    assert (first["benchmark_title"], first["metric_title"], first["unit"], first["rank"]) == (
        "BiVLC",
        "Group score",
        "percent",
        "1",
    )
    assert {r["model_name"] for r in rows if r["model"] == "weak"} == {EVIL}
    assert all(r["rank"] == "" for r in rows if r["category"] != "all" or r["kind"] == "baseline")
    board = json.loads((site / "downloads" / "leaderboard.json").read_text())
    stored = next(
        m
        for c in board["cells"]
        if c["model"] == "strong" and c["benchmark"] == "bivlc"
        for m in c["metrics"]
        if m["metric"] == "group_score" and m["category"] == "all"
    )
    assert float(first["value"]) == pytest.approx(100 * stored["value"])  # the JSON keeps fractions
    assert "Strong CLIP" in (site / "index.html").read_text()
    assert all("replicates" not in m for c in board["cells"] for m in c["metrics"])
    header, *lines = [
        json.loads(x) for x in _read_gz(site / "downloads" / "scores" / "strong__bivlc.jsonl.gz").splitlines()
    ]
    assert (header["header"]["model"], header["header"]["benchmark"]) == ("strong", "bivlc")
    assert header["header"]["scores"].startswith("exact: each score is the stored float64")  # the precision
    assert len(lines) == 42 and all(len(x["scores"]) == 2 for x in lines)
    assert "texts" not in lines[0]  # render was not given the data root: ids and scores only
    assert "registry" in (site / "index.html").read_text()


def test_captions_ship_only_where_the_license_allows(site_store, vlc_cli_module):
    out = site_store["tmp"] / "site_with_captions"
    args = ["--out", str(out), "--registry", str(site_store["registry"]), "--store", site_store["url"]]
    assert vlc_cli_module("render", "--data-root", str(site_store["tmp"] / "data"), *args).exit_code == 0
    first = json.loads(_read_gz(out / "downloads" / "scores" / "strong__bivlc.jsonl.gz").splitlines()[1])  # [0]: header
    assert len(first["texts"]) == 2  # BiVLC is MIT
    from vlc_harness_builtins.benchmarks.hard_positives import HardPositives
    from vlc_harness_builtins.benchmarks.vl_checklist import VLCheckList

    assert not HardPositives.captions_redistributable and not VLCheckList.captions_redistributable


def _browsed(driver) -> str:
    """The instance browser's status once its data files have loaded (they load on demand)."""
    from selenium.webdriver.support.ui import WebDriverWait

    def ready(d):
        text = d.find_element("id", "browse-status").text
        return text if text and text != "Loading…" else False

    return WebDriverWait(driver, 10).until(ready)


def _group_right(scores: list[list[float]]) -> bool:
    """BiVLC's group score for one 2x2 instance: both images pick their caption, both captions their image."""
    (a, b), (c, d) = scores
    return a > b and d > c and a > c and d > b


@pytest.mark.browser
def test_compare_view_with_the_instance_browser(site_store, vlc_cli_module, monkeypatch):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    tmp = site_store["tmp"]
    out = tmp / "site_compare"
    args = ["--out", str(out), "--registry", str(site_store["registry"]), "--store", site_store["url"]]
    assert vlc_cli_module("render", "--data-root", str(tmp / "data"), *args).exit_code == 0
    # the verdict files say which instances each model gets right: check them against the per-instance scores
    right = {}
    for model in ("strong", "weak"):
        header, *lines = _read_gz(out / "downloads" / "scores" / f"{model}__bivlc.jsonl.gz").splitlines()
        assert json.loads(header)["header"]["model"] == model
        right[model] = {r["instance"]: _group_right(r["scores"]) for r in map(json.loads, lines)}
    board = json.loads((out / "downloads" / "leaderboard.json").read_text())
    for model in ("strong", "weak"):  # the same rule as the metric: the count is the group score's numerator
        value = next(
            m["value"]
            for c in board["cells"]
            if c["model"] == model and c["benchmark"] == "bivlc"
            for m in c["metrics"]
            if m["metric"] == "group_score" and m["category"] == "all"
        )
        assert sum(right[model].values()) == round(value * 42)
    a_only = [i for i in right["strong"] if right["strong"][i] and not right["weak"][i]]
    b_only = [i for i in right["strong"] if right["weak"][i] and not right["strong"][i]]
    assert a_only and (out / "data" / "instances" / "bivlc" / "models" / "strong.js").is_file()
    driver = _chromium()
    loaded = "return Array.from(document.scripts).map(s => s.src).filter(s => s.includes('/data/instances/'))"
    try:
        # no instance file is fetched until the reader opens the browser (issue 41, item 8)
        driver.get((out / "compare.html").as_uri() + "#a=strong&b=weak")
        status = "return document.getElementById('compare-status').textContent"
        WebDriverWait(driver, 10).until(lambda d: d.execute_script(status))  # the compare rendered (a loaded machine)
        assert not driver.execute_script(loaded) and not driver.find_element(By.ID, "browse-open").get_attribute("open")
        driver.find_element(By.CSS_SELECTOR, "#browse-open summary").click()
        assert _browsed(driver) and driver.execute_script(loaded)
        driver.get("about:blank")
        driver.get((out / "compare.html").as_uri() + "#a=strong&b=weak&bench=bivlc")  # a permalink opens it
        assert _browsed(driver) == f"{len(a_only)} of 42 instances: Strong CLIP right, {EVIL} wrong."
        items = driver.find_elements(By.CSS_SELECTOR, "#browse-list li.instance")
        assert len(a_only) <= 50 and sorted(i.find_element(By.TAG_NAME, "code").text for i in items) == sorted(a_only)
        assert all(len(i.find_elements(By.CSS_SELECTOR, "ol.captions li")) == 2 for i in items)  # BiVLC is MIT
        assert not driver.find_elements(By.CSS_SELECTOR, "#browse-list img")  # COCO images are not ours to publish
        # the significance table: Strong CLIP is better on BiVLC's group score
        verdict = driver.execute_script(
            "const s = document.getElementById('cmp-bivlc').parentElement;"
            "return s.querySelector('tbody tr').cells[3].textContent"
        )
        assert "A better" in verdict or "not significant" in verdict
        # Human and Chance beside the models, and one line of wins per pair over the shared benchmarks
        heads = driver.execute_script(
            "const s = document.getElementById('cmp-bivlc').parentElement;"
            "return Array.from(s.querySelectorAll('thead th')).map(t => t.textContent)"
        )
        assert heads[-2:] == ["Human", "Chance"]
        chance = driver.execute_script(
            "const s = document.getElementById('cmp-bivlc').parentElement;"
            "return s.querySelector('tbody tr').lastChild.textContent"
        )
        assert chance == "16.7"  # BiVLC's group score: 1/6 by chance
        status = driver.find_element(By.ID, "compare-status").text
        assert re.search(r"A better on \d of 2 benchmarks \(headline, significant\), B on \d\.", status), status
        from selenium.webdriver.support.ui import Select

        Select(driver.find_element(By.ID, "browse-which")).select_by_value("ba")
        assert _browsed(driver).startswith(f"{len(b_only)} of 42 instances")
        url = driver.current_url
        assert "show=ba" in url and "bench=bivlc" in url
        driver.get("about:blank")
        driver.get(url)  # the permalink restores models, benchmark and direction
        assert _browsed(driver).startswith(f"{len(b_only)} of 42 instances")
        assert driver.execute_script(
            "return window.__pwned === undefined && !document.querySelector('script:not([src])')"
        )
        errors = [e for e in driver.get_log("browser") if e["level"] in ("SEVERE", "WARNING")]
        assert not errors, errors
    finally:
        driver.quit()


@pytest.mark.browser
def test_instance_browser_shows_images_where_the_license_allows(site_store, monkeypatch, tmp_path):
    from vlc_harness.plugins import get_plugins
    from vlc_harness.registry import load_registry
    from vlc_harness.results import StoredResults
    from vlc_harness.store import open_store
    from vlc_leaderboard.board import build_board
    from vlc_leaderboard.instance_arrays import instance_results
    from vlc_leaderboard.site import render_site

    monkeypatch.setattr(BiVLC, "images_redistributable", True)
    plugins = get_plugins()
    store = open_store(site_store["url"])
    try:
        board = build_board(
            store.latest_cells(include_incomplete=True, with_replicates=True),
            load_registry([site_store["registry"]], plugins),
            plugins,
        )
        instances = instance_results(board, StoredResults(store), site_store["tmp"] / "data")
    finally:
        store.close()
    assert all(e.source is not None for row in instances["bivlc"].images for e in row) and "sugarcrepe" in instances
    assert all(e.source is None for row in instances["sugarcrepe"].images for e in row)  # still not allowed there
    render_site(board, tmp_path / "site", {"harness_version": "test"}, instances=instances)
    images = list((tmp_path / "site" / "data" / "instances" / "bivlc" / "img").iterdir())
    assert len(images) >= 42 and not (tmp_path / "site" / "data" / "instances" / "sugarcrepe" / "img").exists()
    from selenium.webdriver.common.by import By

    driver = _chromium()
    try:
        driver.get((tmp_path / "site" / "compare.html").as_uri() + "#a=strong&b=weak&bench=bivlc")
        _browsed(driver)
        from selenium.webdriver.support.ui import WebDriverWait

        WebDriverWait(driver, 10).until(
            lambda d: d.execute_script(
                "const i = Array.from(document.querySelectorAll('#browse-list img'));"
                "return i.length > 0 && i.every(x => x.complete)"
            )
        )
        shown = driver.find_elements(By.CSS_SELECTOR, "#browse-list img")
        assert shown, (driver.find_element(By.ID, "browse-status").text, driver.get_log("browser"))
        assert all(driver.execute_script("return arguments[0].naturalWidth", i) > 0 for i in shown)
        assert all(i.get_attribute("alt").startswith("image ") for i in shown)
        assert not [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
    finally:
        driver.quit()


def test_no_local_path_in_any_published_file(site_store, vlc_cli_module):
    tmp = site_store["tmp"]
    url, registry = site_store["url"], str(site_store["registry"])
    from vlc_harness.store import open_store

    store = open_store(url)
    try:
        errors = [c.error or "" for c in store.latest_cells(include_incomplete=True)]
    finally:
        store.close()
    planted = str(tmp / PLANTED / "blip-itm-base.jsonl")
    assert any(planted in e for e in errors)  # the plant: a stored reason names a local file
    shown = vlc_cli_module("show", "--partial", "--store", url)
    assert planted in shown.output  # the CLI keeps the full reason
    out = tmp / "site_public"
    args = ["--out", str(out), "--registry", registry, "--store", url, "--data-root", str(tmp / "data")]
    assert vlc_cli_module("render", "--release", "r1", *args).exit_code == 0
    files = [p for p in out.rglob("*") if p.is_file()]
    assert {p.suffix for p in files} >= {".html", ".js", ".json", ".gz", ".csv", ".bib"}
    leaks = [(p, n) for p in files for n in (str(tmp), PLANTED) if n in _text(p)]
    assert not leaks, leaks
    # the check is real: the stored reason, as it is, names the folder
    assert any(str(tmp) in e and PLANTED in e for e in errors)
    pages = [p for p in files if p.suffix in (".html", ".js")]
    assert not [p for p in pages if "HF_HUB_OFFLINE" in p.read_text()]  # pages name no environment variable
    model = (out / "models" / "planted.html").read_text()
    reason = re.search(r"The (model&#39;s|submitted) scores file has no score[^<]*", model)
    assert reason and reason.group(1) == "model&#39;s", model  # not a submitted entry: never called submitted
    data = json.loads((out / "downloads" / "leaderboard.json").read_text())
    failed = next(c for c in data["unpublished"] if c["model"] == "planted")
    assert "<local folder>/blip-itm-base.jsonl has no score for sugarcrepe" in failed["error"]


def test_an_empty_benchmark_page_says_so(tmp_path):
    from bench.render_speed import synthetic_cells
    from vlc_harness.plugins import get_plugins
    from vlc_harness.registry import BenchmarkEntry
    from vlc_leaderboard.board import build_board
    from vlc_leaderboard.site import render_site

    registry, cells = synthetic_cells(3, tmp_path / "work", benchmarks=["winoground"], samples=20)
    params = registry.benchmarks["winoground"].params
    registry.benchmarks["winoground-2"] = BenchmarkEntry("winoground-2", "winoground", params)
    cells.append(
        dataclasses.replace(
            cells[1],
            benchmark_id="winoground-2",
            status="unavailable",
            complete=False,
            metrics=[],
            error="HF_HUB_OFFLINE is set",
            reason_code="weights_missing",
        )
    )
    board = build_board(cells, registry, get_plugins())
    render_site(board, tmp_path / "site", {"harness_version": "test"})
    page = (tmp_path / "site" / "benchmarks" / "winoground-2.html").read_text()
    assert "No published results yet" in page and "nothing to rank" in page
    assert 'model-01</a>: <span class="status status-unavailable">unavailable</span>' in page
    assert "could not be downloaded" in page and "HF_HUB_OFFLINE" not in page
    assert '<table class="ranked' not in page


def test_each_benchmark_page_cites_its_cards_bibtex_and_cite_bib_holds_each_entry_once(tmp_path):
    from bench.render_speed import synthetic_cells
    from vlc_harness.cards import bibtex_entries
    from vlc_harness.plugins import get_plugins
    from vlc_leaderboard.board import build_board
    from vlc_leaderboard.site import render_site

    benchmarks = ["shapes", "winoground", "aro_vg_relation", "aro_coco_order"]
    registry, cells = synthetic_cells(2, tmp_path / "work", benchmarks=benchmarks, samples=0)
    plugins = get_plugins()
    render_site(build_board(cells, registry, plugins), tmp_path / "site", {"harness_version": "test"})
    shapes = (tmp_path / "site" / "benchmarks" / "shapes.html").read_text()
    assert 'class="bibtex"' not in shapes and "No BibTeX is recorded for this benchmark" in shapes
    assert "vlc-harness generated benchmark; negative kinds after Hsieh et al." in shapes  # the card's prose
    wino = (tmp_path / "site" / "benchmarks" / "winoground.html").read_text()
    assert "@inproceedings{thrush2022winoground," in wino and "@inproceedings{diwan2022why," in wino
    bib = (tmp_path / "site" / "cite.bib").read_text()
    keys = re.findall(r"^@\w+\{([^,]+),", bib, re.M)
    assert sorted(keys[1:]) == ["diwan2022why", "thrush2022winoground", "yuksekgonul2023when"]  # the ARO cards: one
    aro = plugins.benchmarks.get("aro_vg_relation").cls.bibtex
    assert bibtex_entries(aro)[0] in bib and keys[0].startswith("vlcharness")


def _read_gz(path: Path) -> str:
    """A gzip-compressed download's text."""
    return gzip.decompress(path.read_bytes()).decode("utf-8")


def _text(path: Path) -> str:
    """A published file's text, a compressed download's decompressed (the leak checks read what a reader gets)."""
    return _read_gz(path) if path.suffix == ".gz" else path.read_text(encoding="utf-8", errors="replace")
