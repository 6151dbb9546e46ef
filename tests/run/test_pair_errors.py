"""A fault costs only what it touches: a pair without a score fails the instances needing it."""

from __future__ import annotations

import json
from pathlib import Path

from vlc_harness.store import open_store
from vlc_harness_builtins.testing.data_shapes import write_example


def _dump(store, cell, benchmark: str) -> list[dict]:
    """Precomputed-file lines holding every score a cell read."""
    lines = []
    for o in store.outcomes(cell.id):
        for i, row in enumerate(o.scores):
            for j, score in enumerate(row):
                if score is not None:
                    lines.append(
                        {
                            "benchmark": benchmark,
                            "version": cell.data_version,
                            "instance": o.instance_id,
                            "image": i,
                            "text": j,
                            "score": score,
                        }
                    )
    return lines


def _run(vlc_run, model: str, root: Path, *benchmarks: str):
    args = [a for b in benchmarks for a in ("-b", b)]
    return vlc_run("-m", model, *args, data_root=root)


def test_one_missing_line_fails_one_instance_and_names_it(vlc_run, tmp_path, sample_root):
    url = vlc_run.store_url
    assert _run(vlc_run, "random:seed=5", sample_root, "sugarcrepe:version=custom").exit_code == 0
    store = open_store(url)
    (cell,) = store.latest_cells()
    lines = _dump(store, cell, "sugarcrepe:version=custom")
    path = tmp_path / "scores.jsonl"
    dropped = lines[7]
    path.write_text("".join(json.dumps(x) + "\n" for x in lines if x is not dropped))
    out = _run(vlc_run, f"precomputed:path={path}", sample_root, "sugarcrepe:version=custom")
    assert out.exit_code == 3  # its one cell failed: nothing computed
    replay = open_store(url).latest_cells()[-1]
    replay = next(c for c in open_store(url).latest_cells() if c.model_id.startswith("precomputed"))
    assert replay.status == "failed" and replay.n_failed == 1 and replay.n_scored == cell.n_instances - 1
    assert f"{dropped['instance']}: " in replay.error and "has no score for" in replay.error
    failed = [o for o in open_store(url).outcomes(replay.id) if o.error]
    assert [o.instance_id for o in failed] == [dropped["instance"]]
    # the pairs that were there are stored: completing the file computes only the missing one
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    again = _run(vlc_run, f"precomputed:path={path}", sample_root, "sugarcrepe:version=custom")
    assert again.exit_code == 0, again.output


def test_a_file_lacking_one_benchmark_fails_only_that_benchmarks_cells(vlc_run, tmp_path, sample_root):
    params, _ = write_example(sample_root, n_scenes=4, image_size=16, parts="2x2")
    shapes = "shapes:" + ",".join(f"{k}={v}" for k, v in params.items())
    url = vlc_run.store_url
    assert _run(vlc_run, "random:seed=5", sample_root, "sugarcrepe:version=custom", shapes).exit_code == 0
    store = open_store(url)
    sugarcrepe = next(c for c in store.latest_cells() if c.benchmark_id.startswith("sugarcrepe"))
    path = tmp_path / "scores.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in _dump(store, sugarcrepe, "sugarcrepe:version=custom")))
    out = _run(vlc_run, f"precomputed:path={path}", sample_root, "sugarcrepe:version=custom", shapes)
    assert out.exit_code == 1
    cells = {c.benchmark_id: c for c in open_store(url).latest_cells() if c.model_id.startswith("precomputed")}
    assert cells["sugarcrepe:version=custom"].status == "ok"
    assert cells["sugarcrepe:version=custom"].metrics == sugarcrepe.metrics
    broken = cells[shapes]
    assert broken.status == "failed" and broken.n_failed == broken.n_instances
    assert f"has no score for {shapes}" in broken.error and "sugarcrepe" not in broken.error.splitlines()[0]
