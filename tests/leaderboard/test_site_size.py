"""The rendered site's size: what `render` prints, and its warning past GitHub Pages' 1 GB."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

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


def test_a_scaled_down_grid_renders_compressed_downloads_and_4_characters_a_browser_score(tmp_path):
    import gzip

    from bench.site_size import (
        EXACT_FLOOR,
        PARTS,
        as_json_numbers,
        build_grid,
        full_grid_estimate,
        full_scores,
        render_grid,
        site_parts,
    )

    grid = build_grid(tmp_path, scale=0.001, n_models=3, samples=20)
    seconds, size = render_grid(grid, tmp_path / "site")
    site = tmp_path / "site"
    scores = sorted((site / "downloads" / "scores").iterdir())
    assert len(scores) == 3 * len(grid.instances) and all(p.name.endswith(".jsonl.gz") for p in scores)
    sugarcrepe = site / "downloads" / "scores" / "openai-rn50__sugarcrepe.jsonl.gz"
    header, *lines = gzip.decompress(sugarcrepe.read_bytes()).decode("utf-8").splitlines()
    assert len(lines) == len(grid.instances["sugarcrepe"][1]) and "scores" in json.loads(lines[0])
    assert json.loads(header)["header"]["scores"].startswith("exact")
    assert size.parts["downloads"] and size.parts["instance browser"] and seconds > 0
    # the browser's score shards: 4 base64 characters a score (3 bytes: sign, exponent, 5 digits) and the framing
    packed = shown = 0
    for folder in sorted((site / "data" / "instances").iterdir()):
        items = {shard.name: _script(shard)["items"] for shard in folder.glob("shard-*.js")}
        cells = {name: [(len(i["m"]), len(i["r"])) for i in held] for name, held in items.items()}
        for shard_file in sorted(folder.glob("models/*/shard-*.js")):
            shard = _script(shard_file)
            if "s" in shard:  # NaturalBench's hold answers
                assert isinstance(shard["s"], str)
                packed, shown = packed + len(shard["s"]), shown + sum(r * c for r, c in cells[shard_file.name])
    assert shown > 3_000
    parts = site_parts(site)
    assert packed == 4 * shown and parts["browser score shards"] < 4 * shown + 400 * sum(
        1 for _ in site.glob("data/instances/*/models/*/shard-*.js")
    )
    assert set(parts) == {*PARTS, "the rest"} and sum(parts.values()) == size.total
    before = as_json_numbers(site)  # the same shards with JSON numbers, as they were
    assert before > 1.5 * parts["browser score shards"], (before, parts["browser score shards"])
    # the budget's arithmetic: the full grid's scores, and what one exact copy of them takes at the least
    assert 0.6e6 < full_scores(grid) < 0.75e6 and EXACT_FLOOR == 6.5  # about 670,000 scores a model
    assert full_scores(grid) * 70 * EXACT_FLOOR > 300_000_000  # one exact copy of 70 models' is over 300 MB alone
    assert full_grid_estimate((1_000, 10), (2_000, 20), 100) == (100, 1_000 + 100 * 90)
    again = render_grid(grid, tmp_path / "again")[1]
    assert (tmp_path / "again" / sugarcrepe.relative_to(site)).read_bytes() == sugarcrepe.read_bytes()
    assert again.parts == size.parts


def _script(path: Path) -> Any:
    """The JSON a page data script assigns."""
    return json.loads(path.read_text().split(" = ", 2)[-1].rstrip().rstrip(";"))


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


def test_every_metric_recomputes_exactly_from_the_scores_downloads_ties_included(tmp_path, monkeypatch):
    import dataclasses
    import gzip
    import json

    import numpy as np

    import bench.site_size as grid_bench
    from vlc_harness.choices import AnsweredQuestion, InstanceAnswers
    from vlc_harness.metrics.cell import cell_metrics
    from vlc_harness.metrics.outcomes import choice_outcomes, outcomes_from_matrices

    like = grid_bench.scores_like  # scores at one decimal: ties within instances and across them
    monkeypatch.setattr(grid_bench, "scores_like", lambda rng, shape, single: np.round(like(rng, shape, single), 1))
    grid = grid_bench.build_grid(tmp_path, scale=None, n_models=2, samples=20)
    grid_bench.render_grid(grid, tmp_path / "site")
    cells = json.loads((tmp_path / "site" / "downloads" / "leaderboard.json").read_text())["cells"]
    assert len(cells) == 2 * len(grid.instances)
    with_texts = []
    for cell in cells:
        header, *lines = map(
            json.loads, gzip.decompress((tmp_path / "site" / cell["scores"]).read_bytes()).splitlines()
        )
        assert header["header"]["model"] == cell["model"] and header["header"]["scores"].startswith("exact")
        bench, instances = grid.instances[cell["benchmark"]]
        read = {line["instance"]: line for line in lines}
        if "answers" in lines[0]:  # NaturalBench: the chosen answer per question
            chosen = {i.id: [AnsweredQuestion(q, _choice(read[i.id]["answers"], q.order)) for q in bench.questions(i)]
                      for i in instances}  # fmt: skip
            outcomes = choice_outcomes([InstanceAnswers(i, chosen[i.id]) for i in instances])
        else:
            outcomes = outcomes_from_matrices(
                instances, [np.array(read[i.id]["scores"], dtype=float) for i in instances]
            )
            if "text_scores" in lines[0]:  # SugarCrepe++'s text-only accuracy reads caption x caption scores
                width = max(len(i.texts) for i in instances)
                texts = np.full((len(instances), width, width), np.nan)
                for k, i in enumerate(instances):
                    texts[k, : len(i.texts), : len(i.texts)] = np.array(read[i.id]["text_scores"], dtype=float)
                outcomes = dataclasses.replace(outcomes, text_scores=texts)
                with_texts.append(cell["benchmark"])
        again = [
            (m["metric"], m["category"], m["value"], m["ties"])
            for m in cell_metrics(bench, outcomes, samples=20).metrics
        ]
        assert again == [(m["metric"], m["category"], m["value"], m["ties"]) for m in cell["metrics"]], cell["scores"]
    assert sum(m["ties"] or 0 for cell in cells for m in cell["metrics"]) > 100  # the cells do have ties
    assert with_texts == ["sugarcrepe-pp"], with_texts  # the embed model's text-text scores, recomputed too


def _choice(answers: list[dict], order: int) -> int:
    """The choice a download's answers record for the question presented ``order``-th."""
    return next(a["choice"] for a in answers if a["order"] == order)


def test_render_reads_each_cells_outcomes_once_for_the_browser_and_downloads(tmp_path, monkeypatch):
    """A published cell's outcomes leave the store twice: for its verdicts (the export) and for its records, which
    feed its browser scores and its scores download both (a third read made the full grid's render minutes longer)."""
    from collections import Counter

    from bench.site_size import build_grid, render_grid
    from vlc_harness.results import StoredResults

    grid = build_grid(tmp_path, scale=None, n_models=2, samples=20)
    reads: Counter[int] = Counter()
    original = StoredResults.instance_outcomes

    def counted(self: StoredResults, cell: Any) -> Any:
        reads[cell.id] += 1
        return original(self, cell)

    monkeypatch.setattr(StoredResults, "instance_outcomes", counted)
    render_grid(grid, tmp_path / "site")
    assert len(reads) == 2 * len(grid.instances)  # every published cell
    assert set(reads.values()) <= {1, 2}, reads.most_common(3)
    assert len(list((tmp_path / "site" / "downloads" / "scores").iterdir())) == len(reads)
