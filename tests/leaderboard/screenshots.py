"""Screenshots of the leaderboard site for the README: the index, a benchmark page and the compare
view, at desktop (1440 px) and phone (390 px) widths, taken in real Chromium.

The board is a demonstration, not results: each benchmark's generated example instances, scored
with made-up skills by models named "Demo ..." so that no screenshot can pass for a real model's
result (scores are random plus a skill bonus on the gold pairs; one image-blind model; two demo
models borrow a registry entry's ``paper_match`` and SugarCrepe's cells carry the paper's data
version, so that human and paper-reported rows show). A second board of the same models on the
generated shapes alone gives the instance browser with thumbnails (the one benchmark whose images
may be published). Nothing is downloaded.

    python -m tests.leaderboard.screenshots [--out docs/screenshots]
"""

from __future__ import annotations

import argparse
import dataclasses
import tempfile
import time
from pathlib import Path
from typing import Any

MODELS: list[tuple[str, dict[str, Any], float]] = [
    ("model-00", {"display_name": "Random (seeded)", "family": "baseline"}, 0.0),
    (
        "model-01",
        {
            "display_name": "Demo A (contrastive)",
            "family": "contrastive (demo)",
            "parameters_m": 102,
            "open_weights": True,
            "paper_match": "open_clip:RN50/openai",
            "trained_on": ["wit-400m"],
            "source": "demo",
        },
        0.25,
    ),
    ("model-02", {"display_name": "Demo B (contrastive)", "family": "contrastive (demo)", "parameters_m": 428}, 0.35),
    ("model-03", {"display_name": "Demo C (contrastive)", "family": "contrastive (demo)", "parameters_m": 986}, 0.45),
    (
        "model-04",
        {"display_name": "Demo D (contrastive)", "family": "contrastive (demo)", "parameters_m": 428},
        0.4,
    ),
    (
        "model-05",
        {"display_name": "Demo E (sigmoid)", "family": "sigmoid (demo)", "parameters_m": 1136},
        0.55,
    ),
    ("model-06", {"display_name": "Demo blind (text only)", "family": "blind text-only"}, 0.0),
    (
        "model-07",
        {
            "display_name": "Demo F (tuned)",
            "family": "tuned (demo)",
            "parameters_m": 151,
            "paper_match": "negclip:ViT-B-32",
            "trained_on": ["wit-400m", "coco-karpathy-train"],
        },
        0.7,
    ),
    (
        "model-08",
        {"display_name": "Demo G (tuned)", "family": "tuned (demo)", "parameters_m": 151},
        0.8,
    ),
    (
        "model-09",
        {"display_name": "Demo H (matching head)", "family": "matching head (demo)", "parameters_m": 223},
        0.65,
    ),
    (
        "model-10",
        {"display_name": "Demo I (generative)", "family": "generative (demo)", "parameters_m": 11300},
        0.9,
    ),
    ("model-11", {"display_name": "Demo J (contrastive)", "family": "contrastive (demo)", "parameters_m": 428}, 0.5),
]
SIZES = {"desktop": (1440, 900), "phone": (390, 844)}


class _Store:
    """The synthetic cells' per-instance outcomes, as the store would give them."""

    def __init__(self, by_id: dict[int, tuple[list[Any], list[Any]]]) -> None:
        self.by_id = by_id

    def outcomes(self, cell_id: int) -> list[Any]:
        """The cell's outcome rows, one per instance."""
        from vlc_harness.store.store import Outcome

        instances, matrices = self.by_id[cell_id]
        return [
            Outcome(inst.id, inst.category, [[None if v != v else float(v) for v in row] for row in matrix.tolist()])
            for inst, matrix in zip(instances, matrices)
        ]


def build_demo(work: Path, benchmarks: list[str] | None = None) -> Path:
    """Render the demonstration board into ``work/site`` and return the folder (``benchmarks``: the
    example benchmarks it holds, default the 10 of ``bench/render_speed.py``)."""
    from bench.render_speed import synthetic_cells
    from vlc_harness.params import build
    from vlc_harness.plugins import get_plugins
    from vlc_harness.results import StoredResults
    from vlc_leaderboard.board import Board, build_board
    from vlc_leaderboard.downloads import write_downloads
    from vlc_leaderboard.instance_arrays import instance_results
    from vlc_leaderboard.outcome_records import cell_outcomes, outcome_record
    from vlc_leaderboard.site import render_site

    keep: dict[str, Any] = {}
    skill = {model_id: value for model_id, _, value in MODELS}
    registry, cells = synthetic_cells(
        len(MODELS), work / "data", benchmarks, samples=200, blind=("model-06",), skill=skill, keep=keep
    )
    plugins = get_plugins()
    for model_id, meta, _ in MODELS:
        registry.models[model_id].meta.clear()
        registry.models[model_id].meta.update(meta)
    blind = registry.models["model-06"]
    registry.models["model-06"] = dataclasses.replace(
        blind, type="blind_harper", params=build(plugins.models.get("blind_harper").cls.Params, {})
    )
    by_id = {}
    for k, cell in enumerate(cells):
        version = "paper-7512" if cell.benchmark_id == "sugarcrepe" else cell.data_version
        cells[k] = dataclasses.replace(cell, id=k + 1, data_version=version)
        by_id[k + 1] = keep["matrices"][(cell.model_id, cell.benchmark_id)]
        if (cell.model_id, cell.benchmark_id) == ("model-11", "winoground"):
            cells[k] = dataclasses.replace(
                cells[k],
                status="unavailable",
                complete=False,
                metrics=[],
                error="HF_HUB_OFFLINE is set",
                reason_code="weights_missing",
            )
    board = build_board(cells, registry, plugins)
    results = StoredResults(_Store(by_id))
    instances = {}
    for col in board.benchmarks:  # each example benchmark has its own data root
        instances |= instance_results(Board([col], board.rows), results, keep["roots"][col.id])
    site = work / "site"
    provenance = {"harness_version": "demo", "git_sha": "", "registry_digest": registry.digest()}
    render_site(
        board,
        site,
        provenance,
        runs={1: {}},
        downloads=lambda target: write_downloads(
            board, target, lambda cell: cell_outcomes(outcome_record(o) for o in results.instance_outcomes(cell))
        ),
        instances=instances,
    )
    return site


def shoot(site: Path, out: Path) -> list[Path]:
    """Screenshots of the index, the BiVLC page, the compare view and its instance browser at both widths."""
    from tests.leaderboard.test_site import _chromium

    pages = {
        "index": site / "index.html",
        "benchmark": site / "benchmarks" / "bivlc.html",
        "compare": site / "compare.html",
    }
    out.mkdir(parents=True, exist_ok=True)
    written = []
    driver = _chromium()
    try:
        for name, page in pages.items():
            for label, (width, height) in SIZES.items():
                metrics = {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600}
                driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", metrics)
                url = page.as_uri() + ("#a=model-07&b=model-01&c=model-03&bench=bivlc" if name == "compare" else "")
                driver.get("about:blank")
                driver.get(url)
                time.sleep(0.5)  # the compare view loads its instance files on demand
                if name == "index" and label == "desktop":
                    driver.find_element("css selector", 'button.drill[data-drill="sugarcrepe"]').click()
                if name == "index":
                    driver.execute_script(
                        "const d = document.querySelector('#models td.status details.why'); if (d) d.open = true;"
                    )
                full = min(driver.execute_script("return document.documentElement.scrollHeight"), 2400)
                driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", metrics | {"height": full})
                driver.execute_script("window.scrollTo(0, 0)")  # an opened popover may have scrolled the page
                time.sleep(0.3)
                path = out / f"{name}-{label}.png"
                driver.save_screenshot(str(path))
                written.append(path)
                if name == "compare":  # the instance browser, below the tables
                    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", metrics)
                    section = driver.find_element("id", "browser")
                    driver.execute_script("arguments[0].scrollIntoView()", section)
                    time.sleep(0.3)
                    path = out / f"compare-instances-{label}.png"
                    section.screenshot(str(path))
                    written.append(path)
    finally:
        driver.quit()
    return written


def shoot_thumbnails(site: Path, out: Path) -> Path:
    """The instance browser on the generated shapes, the benchmark whose images are published as
    thumbnails, at desktop width."""
    from tests.leaderboard.test_site import _chromium

    driver = _chromium()
    try:
        width, height = SIZES["desktop"]
        metrics = {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False}
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", metrics)
        driver.get((site / "compare.html").as_uri() + "#a=model-07&b=model-06&c=model-01&bench=shapes&show=ab")
        time.sleep(1.0)  # the browser loads its files on demand
        section = driver.find_element("id", "browser")
        driver.execute_script("arguments[0].scrollIntoView()", section)
        time.sleep(0.3)
        path = out / "compare-instances-shapes-desktop.png"
        section.screenshot(str(path))
    finally:
        driver.quit()
    return path


def main() -> None:
    """Build the demonstration board and write the screenshots."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default="docs/screenshots", help="folder for the PNG files")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="vlc-screenshots-"))
    site = build_demo(work)
    for path in shoot(site, Path(args.out)):
        print(path)
    print(f"site: {site / 'index.html'}")
    shapes = build_demo(work / "shapes", ["shapes"])  # the one benchmark whose images may be published
    print(shoot_thumbnails(shapes, Path(args.out)))


if __name__ == "__main__":
    main()
