"""The site's size and render time for the registry's grid (issue 41, item 8: under 300 MB).

A synthetic store holds ``registry.yaml``'s 19 benchmarks x its 70 models (the random baseline and 69
others): each benchmark's generated example instances, tiled to ``--scale`` times the benchmark's real
instance count (:data:`INSTANCES`), random scores (answers, for NaturalBench) written through the store
API as a run writes them, no model run. The store is exported and rendered as ``vlc-harness render``
does (:func:`vlc_leaderboard.export.export_board`, :func:`vlc_leaderboard.publish.publish`), the instance
browser included. The baseline, built and rendered in the same run, is the same grid on the examples
alone (no tiling): the difference between the two is what the instances cost, per instance and model,
and the full grid's size is the baseline plus that cost times its instances; the same for the render time.
The cost is printed per part (:data:`PARTS`): the scores downloads, the browser's score shards, its verdict
files and instance shards, and everything else. Writing and rendering 250,000
instances x 70 models takes hours on two cores; ``--scale 1`` does it, the default (0.01) takes minutes.

Each grid is rendered with 1 job and with ``--jobs N`` (``render --jobs``: each benchmark's work in a worker
process; default the CPUs this process may use). The render time is the fastest of ``--repeats`` renders of
each grid and jobs (the machine is shared), also printed per instance x model, and the same in CPU time (this
process's and its workers', ``os.times()``; the least of each grid's renders: on a machine other work loads it
varies less than the wall clock, whose extrapolation is a difference of two noisy times); ``--profile`` prints
the 10 functions the scaled grid's first 1-job render spent the most time in.

    python bench/site_size.py [--scale 0.01] [--models 70] [--samples 100] [--repeats 1] [--jobs N] [--profile]
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import io
import json
import math
import os
import pstats
import re
import shutil
import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from vlc_harness.metrics.cell import cell_metrics, metrics_version
from vlc_harness.metrics.outcomes import choice_outcomes, outcomes_from_matrices
from vlc_harness.metrics.text_only import instance_text_pairs, text_pair_readers
from vlc_harness.params import build
from vlc_harness.plugins import get_plugins
from vlc_harness.records import CellRecord, Outcome
from vlc_harness.registry import BenchmarkEntry, ModelEntry, Registry
from vlc_harness.results import StoredResults
from vlc_harness.run.collect import listed
from vlc_harness.store import open_store
from vlc_harness.testing.examples import example_for
from vlc_leaderboard.fanout import default_jobs
from vlc_leaderboard.site_size import SiteSize, site_size

REGISTRY = Path(__file__).resolve().parents[1] / "registry.yaml"
FLOAT32_TYPES = frozenset({"blip_itm"})
"""Registry model types whose stored scores are float32 values (BLIP's heads: ``scores.double()`` of a float32
tensor); every other built-in type stores float64 arithmetic (cosines summed in float64, ``math.exp``, sums)."""
PARTS = {
    "scores downloads": r"downloads/scores/.*",
    "browser score shards": r"data/instances/[^/]+/models/[^/]+/shard-\d+\.js",
    "browser verdict files": r"data/instances/[^/]+/models/[^/]+\.js",
    "browser instance shards": r"data/instances/[^/]+/shard-\d+\.js",
}
"""The site's parts whose size grows with the instances (everything else: "the rest"), by path pattern."""
PARTS_SCORES, SHARDS = "scores downloads", "browser score shards"
PER_MODEL = ("scores downloads", "browser score shards", "browser verdict files")
"""The parts with a file per model (the others have one per benchmark or per site)."""
EXACT_FLOOR = 52 / 8
"""Bytes a stored float64 score takes at least in any lossless encoding: its 52 mantissa bits are random (a
cosine summed in float64, an ``exp`` of a mean): 6.5 bytes, whatever the compressor."""
BUDGET = 300_000_000
"""The size the full grid's site must stay under (issue 41: 300 MB, against GitHub Pages' 1 GB)."""
INSTANCES = {
    "sugarcrepe": 7_512,  # paper-7512
    "bivlc": 2_933,  # test-2933
    "bivlc-i2t-only": 2_933,
    "winoground": 400,
    "aro-vg-relation": 23_937,  # Yuksekgonul et al. (ICLR 2023), Table 1
    "aro-vg-attribution": 28_748,
    "aro-coco-order": 25_010,
    "aro-flickr30k-order": 5_000,
    "hard-positives": 17_901,  # the card's replace pairs
    "seetrue": 6_930,  # hf-6930
    "vl-checklist": 123_000,  # bench/instance_sizes.py's VL-CheckList size
    "mmvp-vlm": 135,  # 270 statements, 135 pairs
    "eqben-mini": 280,
    "colorswap": 300,
    "vismin": 2_084,  # vismin.COUNTS
    "valse": 6_795,
    "whatsup": 8_226,
    "naturalbench": 1_900,
    "sugarcrepe-pp": 4_757,  # sugarcrepe_pp.COUNTS
}
"""Each registry benchmark's instances in its published data version (the sources of those not in a
version name or a plugin constant: the papers' tables)."""


@dataclass
class Grid:
    """A synthetic store of the registry's grid and what its board needs besides."""

    registry: Registry
    store_url: str
    instances: dict[str, tuple[Any, list[Any]]]
    """Per benchmark id: its benchmark object and the (tiled) instances its cells were written on."""

    def loader(self, col: Any) -> tuple[Any, list[Any]] | None:
        """A column's benchmark and instances (``export_board``'s ``instances_of``)."""
        return self.instances.get(col.id)

    @property
    def n_instances(self) -> int:
        """The instances of every benchmark, together."""
        return sum(len(found[1]) for found in self.instances.values())


def full_scores(grid: Grid) -> float:
    """The image-text scores one model stores on the full grid: each benchmark's real instance count times its
    scores per instance (images x captions, on the grid's instances; none for a benchmark that stores answers)."""
    total = 0.0
    for bench_id, (bench, instances) in grid.instances.items():
        if not getattr(bench, "answers_only", False):
            total += INSTANCES[bench_id] * sum(len(i.images) * len(i.texts) for i in instances) / len(instances)
    return total


def registry_grid(path: Path = REGISTRY) -> tuple[list[str], list[dict[str, Any]]]:
    """The model ids and benchmark entries of ``registry.yaml``."""
    doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    return [m["id"] for m in doc["models"]], list(doc["benchmarks"])


def float32_models(path: Path = REGISTRY) -> set[str]:
    """The registry's models whose type stores float32 scores (:data:`FLOAT32_TYPES`)."""
    doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    return {m["id"] for m in doc["models"] if m["type"] in FLOAT32_TYPES}


def text_score_models(path: Path = REGISTRY) -> set[str]:
    """The registry's models whose protocol also stores text-text scores (``embed``: a metric that reads them,
    SugarCrepe++'s text-only accuracy, gets them from the same text vectors)."""
    from vlc_harness.models import EmbeddingModel

    plugins = get_plugins()
    doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    return {m["id"] for m in doc["models"] if issubclass(plugins.models.get(m["type"]).cls, EmbeddingModel)}


def scores_like(rng: np.random.Generator, shape: tuple[int, ...], float32: bool) -> np.ndarray:
    """Scores shaped like a contrastive model's: cosines around 0.28 (sd 0.05), float64 with a full mantissa
    as the embed protocol's float64 dot product stores them, or rounded to float32 (``float32``)."""
    values = rng.normal(0.28, 0.05, shape)
    return values.astype(np.float32).astype(np.float64) if float32 else values


def tiled(instances: list[Any], n: int) -> list[Any]:
    """``n`` instances: ``instances`` repeated, each copy with its own id."""
    return [replace(instances[k % len(instances)], id=f"{instances[k % len(instances)].id}~{k}") for k in range(n)]


def build_grid(work: Path, scale: float | None, n_models: int = 70, samples: int = 100) -> Grid:
    """The registry's benchmarks x ``n_models`` models in a SQLite store under ``work``, each benchmark's
    instances ``scale`` x its real count (at least its examples'; ``None``: the examples alone)."""
    plugins = get_plugins()
    model_ids, entries = registry_grid()
    single = float32_models()
    texts = text_score_models()
    registry = Registry()
    store_url = f"sqlite:///{work / 'store.sqlite'}"
    store = open_store(store_url)
    run_id = store.start_run({})
    grid = Grid(registry, store_url, {})
    for b_index, entry in enumerate(entries):
        cls = plugins.benchmarks.get(entry["type"]).cls
        params, root = example_for(cls, work / "data" / entry["id"])
        # the registry's own choices (BiVLC's mode, the forms), on the example's data version
        params = params | {k: v for k, v in (entry.get("params") or {}).items() if k != "version"}
        bench = cls(build(cls.Params, params), root)
        examples = list(bench.load_instances())
        n = len(examples) if scale is None else max(len(examples), math.ceil(scale * INSTANCES[entry["id"]]))
        instances = tiled(examples, n)
        grid.instances[entry["id"]] = (bench, instances)
        registry.benchmarks[entry["id"]] = BenchmarkEntry(entry["id"], entry["type"], bench.params)
        for m, model_id in enumerate(model_ids[:n_models]):
            rng = np.random.default_rng(1000 * b_index + m)
            computed, outcomes = _cell(bench, instances, rng, samples, model_id in single, model_id in texts)
            kind, params_of = ("random", {"seed": m}) if m == 0 else ("precomputed", {"path": f"{model_id}.jsonl"})
            kind_cls = plugins.models.get(kind).cls
            registry.models.setdefault(
                model_id,
                ModelEntry(
                    model_id,
                    kind,
                    build(kind_cls.Params, params_of),
                    build(kind_cls.Run, {}),
                    meta={"family": f"family-{m % 12}", "parameters_m": 10 * m + 5, "open_weights": m % 2 == 0},
                ),
            )
            record = CellRecord(
                model_id,
                entry["id"],
                entry["type"],
                "ok",
                fingerprint=model_id,
                data_version=bench.data_version,
                manifest_hash=entry["id"],
                n_instances=n,
                n_scored=n,
                complete=True,
                metrics=computed.metrics,
                provenance={"benchmark_params": params},
                run_id=run_id,
                metrics_version=metrics_version(bench, samples),
                replicates=computed.replicates,
            )
            store.save_cell(record, outcomes)
    store.finish_run(run_id, "ok")
    store.close()
    return grid


def _cell(
    bench: Any, instances: list[Any], rng: np.random.Generator, samples: int, float32: bool, text_scores: bool
) -> tuple[Any, list[Outcome]]:
    """One model's synthetic results on ``instances``: its metrics and its outcomes as a run stores them
    (``text_scores``: with the text-text scores the benchmark's metrics read, as the embed protocol stores them)."""
    if getattr(bench, "answers_only", False):  # its metrics read answers (NaturalBench), not scores
        from vlc_harness.choices import AnsweredQuestion, InstanceAnswers

        results, outcomes = [], []
        for inst in instances:
            answered = [AnsweredQuestion(q, int(rng.integers(0, 2))) for q in bench.questions(inst)]
            results.append(InstanceAnswers(inst, answered))
            record = [{"order": a.question.order, "choice": a.choice, "correct": a.question.correct} for a in answered]
            outcomes.append(Outcome(inst.id, inst.category, None, None, record))
        return cell_metrics(bench, choice_outcomes(results), samples=samples), outcomes
    matrices = [scores_like(rng, (len(inst.images), len(inst.texts)), float32) for inst in instances]
    computed = outcomes_from_matrices(instances, matrices)
    readers = text_pair_readers(bench.metric_families())
    if not (text_scores and readers):
        outcomes = [Outcome(inst.id, inst.category, m.tolist()) for inst, m in zip(instances, matrices)]
        return cell_metrics(bench, computed, samples=samples), outcomes
    width = max(len(inst.texts) for inst in instances)
    texts = np.full((len(instances), width, width), np.nan)
    for k, inst in enumerate(instances):
        for a, b in instance_text_pairs(readers, inst):
            texts[k, a, b] = scores_like(rng, (), float32)
    outcomes = [
        Outcome(inst.id, inst.category, m.tolist(), text_scores=listed(texts[k, : len(inst.texts), : len(inst.texts)]))
        for k, (inst, m) in enumerate(zip(instances, matrices))
    ]
    return cell_metrics(bench, replace(computed, text_scores=texts), samples=samples), outcomes


def render_grid(
    grid: Grid,
    site: Path,
    repeats: int = 1,
    profile: cProfile.Profile | None = None,
    cpu: list[float] | None = None,
    jobs: int = 1,
) -> tuple[float, SiteSize]:
    """Export the grid's store and render it into ``site`` as ``render --jobs JOBS`` does, ``repeats`` times (the
    machine is shared: the fastest counts): seconds taken, the site's size. ``profile`` profiles the first render
    (this process only); ``cpu`` receives each render's CPU seconds, its worker processes' included (less swayed
    than the wall clock by other work on the machine)."""
    from vlc_leaderboard.export import export_board, in_memory
    from vlc_leaderboard.publish import publish, site_target, wall_clock

    times = []
    for k in range(repeats):
        if site.exists():
            shutil.rmtree(site)
        store = open_store(grid.store_url)
        start, start_cpu = time.perf_counter(), cpu_seconds()
        if profile is not None and k == 0:
            profile.enable()
        try:
            results = StoredResults(store)
            export = export_board(
                results, grid.registry, get_plugins(), site.parent, False, set(), {}, grid.loader, jobs
            )
            target = site_target(str(site), None, None, (), False, jobs)
            with contextlib.redirect_stdout(io.StringIO()):  # "nothing to compare, every cell is new", each time
                publish(in_memory(export), target, wall_clock())
        finally:
            if profile is not None:
                profile.disable()
            store.close()
        times.append(time.perf_counter() - start)
        if cpu is not None:
            cpu.append(cpu_seconds() - start_cpu)
    return min(times), site_size(site)


def cpu_seconds() -> float:
    """CPU seconds this process and its reaped children have used (``time.process_time()`` misses the children)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def top_of(profile: cProfile.Profile, lines: int = 10) -> str:
    """The ``lines`` functions of ``profile`` that took the most time of their own (pstats' ``tottime``)."""
    text = io.StringIO()
    stats = pstats.Stats(profile, stream=text)
    stats.sort_stats("tottime").print_stats(lines)
    table = text.getvalue()
    return table[table.index("ncalls") :].rstrip()


def site_parts(site: Path) -> dict[str, int]:
    """Bytes per part of a rendered site (:data:`PARTS`, then "the rest")."""
    sizes = dict.fromkeys([*PARTS, "the rest"], 0)
    patterns = {name: re.compile(pattern) for name, pattern in PARTS.items()}
    for path in site.rglob("*"):
        if path.is_file():
            relative = path.relative_to(site).as_posix()
            name = next((n for n, pattern in patterns.items() if pattern.fullmatch(relative)), "the rest")
            sizes[name] += path.stat().st_size
    return sizes


def as_json_numbers(site: Path) -> int:
    """Bytes the browser's score shards would take with their scores as JSON numbers at 5 significant digits, as
    they were written before :mod:`vlc_leaderboard.score_packing` packed them (the size before, in the same run)."""
    from vlc_leaderboard.score_packing import unpack_scores

    total = 0
    for folder in sorted((site / "data" / "instances").iterdir()):
        items = {f.name: _assigned(f)["items"] for f in folder.glob("shard-*.js")}
        shapes = {name: [(len(i["m"]), len(i["r"])) for i in held] for name, held in items.items()}
        for path in folder.glob("models/*/shard-*.js"):
            payload = _assigned(path)
            unpacked = {
                k: unpack_scores(v, shapes[path.name]) if k in ("s", "x") and isinstance(v, str) else v
                for k, v in payload.items()
            }
            total += path.stat().st_size - len(_compact(payload)) + len(_compact(unpacked))
    return total


def _assigned(path: Path) -> Any:
    """The JSON a page data script assigns."""
    return json.loads(path.read_text(encoding="ascii").split(" = ", 2)[-1].rstrip().rstrip(";"))


def _compact(data: Any) -> str:
    """JSON as the page data scripts write it."""
    return json.dumps(data, ensure_ascii=True, separators=(",", ":"))


def full_grid_estimate(
    baseline: tuple[float, int], scaled: tuple[float, int], full_instances: int
) -> tuple[float, float]:
    """Cost per instance (all models' files of it, or seconds) and the full grid's, from two renders given as
    (bytes or seconds, instances): the baseline plus each instance's cost times the instances beyond its own."""
    per_instance = (scaled[0] - baseline[0]) / (scaled[1] - baseline[1])
    return per_instance, baseline[0] + per_instance * (full_instances - baseline[1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scale", type=float, default=0.01, help="fraction of each benchmark's real instances")
    parser.add_argument("--models", type=int, default=70, help="models (the registry's first N; it has 70)")
    parser.add_argument("--samples", type=int, default=100, help="bootstrap replicates per value")
    parser.add_argument("--repeats", type=int, default=1, help="renders of each grid; the fastest counts")
    parser.add_argument("--profile", action="store_true", help="print the top 10 of the scaled grid's render")
    parser.add_argument(
        "--jobs", type=int, default=default_jobs(), help="also render with this many workers (default: the CPUs)"
    )
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="vlc-site-size-"))
    runs = []
    jobs = sorted({1, args.jobs})
    timed: dict[int, list[tuple[float, float]]] = {j: [] for j in jobs}  # per jobs: (wall, CPU) of each grid
    profile = cProfile.Profile() if args.profile else None
    for name, scale in (("baseline (examples only)", None), (f"grid at scale {args.scale}", args.scale)):
        folder = work / ("baseline" if scale is None else "grid")
        folder.mkdir()
        start = time.perf_counter()
        grid = build_grid(folder, scale, args.models, args.samples)
        built = time.perf_counter() - start
        said = []
        for j in jobs:
            cpu: list[float] = []
            profiled = profile if scale is not None and j == 1 else None
            seconds, size = render_grid(grid, folder / "site", args.repeats, profiled, cpu, j)
            timed[j].append((seconds, min(cpu)))
            said.append(f"{j} jobs {seconds:.1f} s ({min(cpu):.1f} s CPU)")
        runs.append((grid.n_instances, seconds, size, site_parts(folder / "site"), as_json_numbers(folder / "site")))
        print(f"{name}: {args.models} models x {len(grid.instances)} benchmarks, {grid.n_instances:,} instances; "
              f"store written in {built:.1f} s; rendered in {', '.join(said)}: {size.describe()}")  # fmt: skip
    (n0, s0, size0, parts0, json0), (n1, s1, size1, parts1, json1) = runs
    full = sum(INSTANCES.values())
    print(f"the full grid ({full:,} instances x {args.models} models), extrapolated per part:")
    for part in parts0:
        per, estimate = full_grid_estimate((parts0[part], n0), (parts1[part], n1), full)
        each = f" ({per / args.models:.1f} per instance x model)" if part in PER_MODEL else ""
        print(f"  {part}: {per:,.0f} bytes per instance{each}: {estimate / 1e6:,.1f} MB")
    scores = full_scores(grid) * args.models
    downloads = full_grid_estimate((parts0[PARTS_SCORES], n0), (parts1[PARTS_SCORES], n1), full)[1]
    print(f"the full grid's {scores / 1e6:,.1f} M scores ({args.models} models): {downloads / scores:.2f} bytes "
          f"a score in the downloads; stored exactly they need at least {EXACT_FLOOR} bytes a score in any encoding "
          f"(52 random mantissa bits): {scores * EXACT_FLOOR / 1e6:,.0f} MB for one exact copy")  # fmt: skip
    per, estimate = full_grid_estimate((size0.total, n0), (size1.total, n1), full)
    packed = full_grid_estimate((parts0[SHARDS], n0), (parts1[SHARDS], n1), full)[1]
    before = estimate - packed + full_grid_estimate((json0, n0), (json1, n1), full)[1]
    verdict = "met" if estimate <= BUDGET else "NOT met"
    print(f"per instance ({args.models} models): {per:,.0f} bytes; the full grid's {full:,} instances: "
          f"{estimate / 1e6:,.1f} MB (budget {BUDGET / 1e6:.0f} MB: {verdict}; before the score shards were packed: "
          f"{before / 1e6:,.1f} MB)")  # fmt: skip
    for j in jobs:
        (w0, c0), (w1, c1) = timed[j]
        per_second, seconds = full_grid_estimate((w0, n0), (w1, n1), full)
        per_cpu, cpu_total = full_grid_estimate((c0, n0), (c1, n1), full)
        print(f"render with {j} jobs (fastest of {args.repeats}): wall {w1:.1f} s ({w1 / w0:.2f} x the baseline's "
              f"{w0:.1f} s), {1e6 * per_second / args.models:.1f} us per instance x model, the full grid "
              f"{seconds / 60:.1f} min (target 2); CPU with the workers' (the least of each grid's renders): "
              f"{1e6 * per_cpu / args.models:.1f} us per instance x model over a baseline of {c0:.1f} s, "
              f"the full grid {cpu_total / 60:.1f} min")  # fmt: skip
    if profile is not None:
        print(f"the scaled grid's first render, top 10 by own time:\n{top_of(profile)}")


if __name__ == "__main__":
    main()
