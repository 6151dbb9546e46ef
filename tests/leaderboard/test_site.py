"""The static site: rendered from a store filled through the precomputed model over a generated
2x2 benchmark (BiVLC format, so gaps and T2I exist) plus the SugarCrepe sample."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from pathlib import Path

import numpy as np
import pytest

from vlc_harness.params import build
from vlc_harness.testing import write_standin_images
from vlc_harness_builtins.benchmarks.bivlc import BiVLC, write_example
from vlc_harness_builtins.benchmarks.sugarcrepe import SugarCrepe

EVIL = '<script>alert("x")</script>\'"&'


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
    registry = tmp / "site.yaml"
    registry.write_text(
        "models:\n"
        f"  - {{id: strong, type: precomputed, params: {{path: '{tmp / 'strong.jsonl'}'}}, "
        "meta: {display_name: 'Strong CLIP', family: CLIP, parameters_m: 150, open_weights: true}}\n"
        f"  - {{id: weak, type: precomputed, params: {{path: '{tmp / 'weak.jsonl'}'}}, "
        f"meta: {{display_name: {json.dumps(EVIL)}, family: Other, parameters_m: 20, open_weights: false}}}}\n"
        "  - {id: random, type: random, params: {seed: 3}, meta: {display_name: Random, family: baseline}}\n"
        "  - {id: absent, type: open_clip, params: {arch: ViT-B-32, pretrained: openai}}\n"
        "benchmarks:\n"
        f"  - {{id: bivlc, type: bivlc, params: {{version: custom}}, meta: {{note: {json.dumps(EVIL)}}}}}\n"
        "  - {id: sugarcrepe, type: sugarcrepe, params: {version: custom}}\n"
    )
    url = f"sqlite:///{tmp / 'store.sqlite'}"
    out = vlc_cli_module(
        "run", "--all", "--registry", str(registry), "--data-root", str(root), "--store", url, "--no-progress"
    )
    assert out.exit_code == 0, out.output
    # a partial cell must never be published
    vlc_cli_module(
        "run",
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
        assert "Strong CLIP" in before and len(before) == 4
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
    assert {r["model"] for r in rows} == {"strong", "weak", "random"}
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
    lines = [json.loads(x) for x in (site / "downloads" / "scores" / "strong__bivlc.jsonl").read_text().splitlines()]
    assert len(lines) == 42 and all(len(x["scores"]) == 2 for x in lines)
    assert "texts" not in lines[0]  # render was not given the data root: ids and scores only
    assert "registry" in (site / "index.html").read_text()


def test_captions_ship_only_where_the_license_allows(site_store, vlc_cli_module):
    out = site_store["tmp"] / "site_with_captions"
    args = ["--out", str(out), "--registry", str(site_store["registry"]), "--store", site_store["url"]]
    assert vlc_cli_module("render", "--data-root", str(site_store["tmp"] / "data"), *args).exit_code == 0
    first = json.loads((out / "downloads" / "scores" / "strong__bivlc.jsonl").read_text().splitlines()[0])
    assert len(first["texts"]) == 2  # BiVLC is MIT
    from vlc_harness_builtins.benchmarks.hard_positives import HardPositives
    from vlc_harness_builtins.benchmarks.vl_checklist import VLCheckList

    assert not HardPositives.captions_redistributable and not VLCheckList.captions_redistributable
