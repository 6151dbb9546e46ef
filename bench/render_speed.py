"""Time building and rendering the site for 50 models x 10 benchmarks (target: under 5 s).

Cells are synthetic but shaped like real ones: each benchmark's own metric code runs on random
scores over its generated example instances, with 1,000 bootstrap replicates stored per value
and per category (as the store keeps them), so build_board ranks the 49 non-baseline models by
paired bootstrap as it does on the real board, and render_site writes the compare view's pair
codes for every pair of models, every benchmark and every drilldown category from the
per-category replicates. One model is image-blind (one score per text: its text-to-image choices
tie), so tie-heavy ranking runs too. The baseline, timed in the same run, is serialising the same
cells to JSON (the least any renderer must do). tests/leaderboard/test_site_layout.py renders its
wide board from :func:`synthetic_cells` too.

    python bench/render_speed.py [--models 50] [--samples 1000]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from vlc_harness.metrics.bootstrap import SAMPLES
from vlc_harness.metrics.cell import cell_metrics, metrics_version
from vlc_harness.metrics.outcomes import outcomes_from_matrices
from vlc_harness.params import build
from vlc_harness.plugins import get_plugins
from vlc_harness.registry import BenchmarkEntry, ModelEntry, Registry
from vlc_harness.store.store import CellRecord
from vlc_harness.testing.examples import example_for
from vlc_leaderboard.board import build_board
from vlc_leaderboard.site import render_site

BENCHMARKS = [
    "sugarcrepe",
    "bivlc",
    "winoground",
    "seetrue",
    "vl_checklist",
    "hard_positives",
    "aro_vg_relation",
    "aro_vg_attribution",
    "aro_coco_order",
    "aro_flickr30k_order",
]


def synthetic_cells(
    n_models: int,
    work: Path,
    benchmarks: list[str] | None = None,
    samples: int = 200,
    blind: tuple[str, ...] = (),
    skill: dict[str, float] | None = None,
    keep: dict[str, Any] | None = None,
) -> tuple[Registry, list[CellRecord]]:
    """A registry of ``n_models`` random-scoring models and their complete cells on ``benchmarks``
    (default: the 10 of the benchmark), each benchmark's example instances, ``samples`` resamples.
    Models in ``blind`` score like an image-blind model: one score per text, whatever the image;
    ``skill`` adds a model's value to its gold pairs' scores (the diagonal of a square instance, the
    first text of a one-image one). ``keep``, when given, receives each benchmark's data root
    (``roots``) and each cell's instances and score matrices (``matrices``, by (model, benchmark))."""
    plugins = get_plugins()
    registry = Registry()
    cells = []
    for b_index, name in enumerate(benchmarks or BENCHMARKS):
        cls = plugins.benchmarks.get(name).cls
        example = example_for(cls, work / name)
        assert example is not None, name
        params, root = example
        bench = cls(build(cls.Params, params), root)
        instances = bench.load_instances()
        registry.benchmarks[name] = BenchmarkEntry(name, name, bench.params)
        for m in range(n_models):
            rng = np.random.default_rng(1000 * b_index + m)
            model_id = f"model-{m:02d}"
            bonus = (skill or {}).get(model_id, 0.0)
            matrices = []
            for inst in instances:
                scores = np.full((len(inst.images), len(inst.texts)), np.nan)
                per_text = rng.random(len(inst.texts))
                for i, j in inst.needed_pairs():
                    gold = i == j if len(inst.images) > 1 else j == 0
                    score = per_text[j] if model_id in blind else rng.random()
                    scores[i, j] = score + (bonus if gold and model_id not in blind else 0.0)
                matrices.append(scores)
            if keep is not None:
                keep.setdefault("roots", {})[name] = root
                keep.setdefault("matrices", {})[(model_id, name)] = (instances, matrices)
            computed = cell_metrics(bench, outcomes_from_matrices(instances, matrices), samples=samples)
            # model-00 is the random baseline; the others are ranked, as the registry's models are
            kind, params_of = ("random", {"seed": m}) if m == 0 else ("precomputed", {"path": f"{model_id}.jsonl"})
            registry.models.setdefault(
                model_id,
                ModelEntry(
                    model_id,
                    kind,
                    build(plugins.models.get(kind).cls.Params, params_of),
                    build(plugins.models.get(kind).cls.Run, {}),
                    meta={"family": f"family-{m % 5}", "parameters_m": 10 * m + 5, "open_weights": m % 2 == 0},
                ),
            )
            cells.append(
                CellRecord(
                    model_id,
                    name,
                    name,
                    "ok",
                    complete=True,
                    data_version=bench.data_version,
                    manifest_hash=name,
                    n_instances=len(instances),
                    n_scored=len(instances),
                    metrics=computed.metrics,
                    provenance={"benchmark_params": params},
                    run_id=1,
                    metrics_version=metrics_version(bench, samples),
                    replicates=computed.replicates,
                )
            )
    return registry, cells


def _jsonable(cell: CellRecord) -> dict[str, Any]:
    """A cell as JSON-ready data, its replicates keyed by ``metric/category`` as plain lists."""
    reps = {f"{m}/{c}": np.asarray(v).tolist() for (m, c), v in (cell.replicates or {}).items()}
    return cell.__dict__ | {"replicates": reps}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", type=int, default=50)
    parser.add_argument(
        "--samples", type=int, default=SAMPLES, help="bootstrap replicates per value (the store's 1,000)"
    )
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="vlc-render-bench-"))
    registry, cells = synthetic_cells(args.models, work, samples=args.samples, blind=("model-06",))
    plugins = get_plugins()

    start = time.perf_counter()
    payload = json.dumps([_jsonable(c) for c in cells], default=str)
    baseline = time.perf_counter() - start

    start = time.perf_counter()
    board = build_board(cells, registry, plugins)
    built = time.perf_counter() - start
    start = time.perf_counter()
    pages = render_site(board, work / "site", {"harness_version": "bench", "git_sha": ""}, runs={1: {}})
    rendered = time.perf_counter() - start
    total = built + rendered
    replicates = sum(len(c.replicates or {}) for c in cells)
    print(
        f"{args.models} models x {len(BENCHMARKS)} benchmarks, {len(cells)} cells, {len(pages)} pages, "
        f"{replicates} replicate arrays of {args.samples} (every value, per category), "
        f"{len(payload) / 1e6:.1f} MB of cell JSON"
    )
    print(f"baseline (json.dumps of the cells): {baseline:.3f} s")
    print(
        f"build_board: {built:.3f} s, render_site: {rendered:.3f} s, total {total:.3f} s "
        f"({total / baseline:.1f}x the baseline; target under 5 s: {'met' if total < 5 else 'NOT met'})"
    )


if __name__ == "__main__":
    main()
