"""The rendered site's size: what `render` prints, and its warning past GitHub Pages' 1 GB."""

from __future__ import annotations

import re

import pytest

from tests.leaderboard.test_render_manifest import board_store  # noqa: F401 (fixture)
from vlc_leaderboard.site_size import PUBLISH_LIMIT, site_size

pytestmark = pytest.mark.slow  # builds and renders a board per test module: the full suite's, not the inner loop's


def test_the_size_counts_every_file_and_the_large_parts(tmp_path):
    (tmp_path / "data" / "instances" / "b").mkdir(parents=True)
    (tmp_path / "downloads").mkdir()
    (tmp_path / "index.html").write_bytes(b"x" * 1_000)
    (tmp_path / "data" / "instances" / "b" / "index.js").write_bytes(b"x" * 2_500_000)
    (tmp_path / "downloads" / "scores.jsonl").write_bytes(b"x" * 400_000)
    (tmp_path / "data" / "compare.js").write_bytes(b"x" * 99)
    size = site_size(tmp_path)
    assert (size.total, size.files) == (2_901_099, 4)
    assert size.describe() == "2.9 MB in 4 files (instance browser 2.5 MB, downloads 0.4 MB)"
    assert size.warning() is None


def test_a_site_past_what_pages_publishes_is_warned_of(tmp_path):
    with open(tmp_path / "big.bin", "wb") as handle:  # sparse: its size without its disk
        handle.truncate(PUBLISH_LIMIT + 1)
    warning = site_size(tmp_path).warning()
    assert warning is not None and "over the 1 GB GitHub Pages publishes" in warning


def test_render_prints_the_site_size(board_store, tmp_path):  # noqa: F811
    from tests.leaderboard.test_render_manifest import render

    site = tmp_path / "site"
    done = render(board_store, site)
    assert done.exit_code == 0, done.output
    printed = re.search(r"published cells; ([0-9.]+) MB in ([0-9,]+) files", done.output)
    assert printed, done.output
    assert int(printed[2].replace(",", "")) == sum(1 for p in site.rglob("*") if p.is_file())


def test_the_size_benchmark_covers_the_registry_grid_and_its_arithmetic():
    from bench.site_size import BUDGET, INSTANCES, full_grid_estimate, registry_grid

    models, benchmarks = registry_grid()
    assert (len(models), sorted(INSTANCES)) == (70, sorted(b["id"] for b in benchmarks))
    # two renders: 1 MB at 100 instances, 3 MB at 1,100: 2,000 bytes per instance, 1 MB + 2,000 x 9,900 beyond
    per, estimate = full_grid_estimate((1_000_000, 100), (3_000_000, 1_100), 10_000)
    assert (per, estimate) == (2_000, 1_000_000 + 2_000 * 9_900)
    assert BUDGET == 300_000_000


def test_a_scaled_down_grid_renders_with_compressed_scores_downloads(tmp_path):
    import gzip
    import json

    from bench.site_size import build_grid, render_grid

    grid = build_grid(tmp_path, scale=None, n_models=3, samples=20)
    seconds, size = render_grid(grid, tmp_path / "site")
    scores = sorted((tmp_path / "site" / "downloads" / "scores").iterdir())
    assert len(scores) == 3 * len(grid.instances) and all(p.name.endswith(".jsonl.gz") for p in scores)
    sugarcrepe = tmp_path / "site" / "downloads" / "scores" / "openai-rn50__sugarcrepe.jsonl.gz"
    lines = gzip.decompress(sugarcrepe.read_bytes()).decode("utf-8").splitlines()
    assert len(lines) == len(grid.instances["sugarcrepe"][1]) and "scores" in json.loads(lines[0])
    assert size.parts["downloads"] and size.parts["instance browser"] and seconds > 0
    again = render_grid(grid, tmp_path / "again")[1]
    assert (tmp_path / "again" / sugarcrepe.relative_to(tmp_path / "site")).read_bytes() == sugarcrepe.read_bytes()
    assert again.parts["downloads"] == size.parts["downloads"]


def test_the_size_benchmark_scores_have_the_stored_precision_and_its_parts_add_up(tmp_path):
    import numpy as np

    from bench.site_size import float32_models, scores_like, site_parts

    rng = np.random.default_rng(0)
    single, double = scores_like(rng, (500, 2), True), scores_like(rng, (500, 2), False)
    assert (single == single.astype(np.float32)).all()  # BLIP's heads: float32 values
    assert (double != double.astype(np.float32)).mean() > 0.99  # float64 cosines: a full mantissa
    assert float32_models() == {"blip-itm-base-coco", "blip-itm-base-coco-aro"}
    files = {
        "downloads/scores/m__b.jsonl.gz": 7,
        "downloads/leaderboard.csv": 5,
        "data/instances/b/models/m/shard-0.js": 11,
        "data/instances/b/models/m.js": 13,
        "data/instances/b/shard-2.js": 17,
        "data/instances/b/index.js": 19,
    }
    for name, size in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(b"x" * size)
    assert site_parts(tmp_path) == {
        "scores downloads": 7,
        "browser score shards": 11,
        "browser verdict files": 13,
        "browser instance shards": 17,
        "the rest": 24,
    }
