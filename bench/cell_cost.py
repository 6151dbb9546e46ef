"""What a cell costs: v0.1's cell path (bench/legacy) against today's, timed in the same run.

For each benchmark with data in ../shared/data (SugarCrepe upstream-7511, BiVLC test-2933, hard
positives REPLACE, VL-CheckList), a cell is built from stored scores as a precomputed model
leaves them (the golden files' adversarial scores: ties, near-ties, negative and large values):
decoding the stored rows, every metric, and the bootstrap intervals. v0.1 runs at its default
of 200 resamples, today's path at its default of 1,000. Each measurement runs in its own process,
which also reports its peak memory (RSS).

Then a warm ``vlc-harness run`` of a complete SugarCrepe cell (precomputed model, 7,511
instances, 1,560 stand-in 640x480 JPEGs whose hashes are cached), wall time with process start;
with ``--legacy-checkout`` (a checkout of v0.1, commit a286a6d) the same for v0.1.

    python bench/cell_cost.py [--shared ../shared/data] [--work /tmp/vlc-cell-cost]
        [--legacy-checkout /path/to/v0.1] [--skip-legacy BENCHMARK ...]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
GOLDEN = REPO / "tests" / "fixtures" / "golden"
CASES = {
    "sugarcrepe": ("sugarcrepe", {"version": "upstream-7511"}),
    "bivlc": ("bivlc", {}),
    "hard_positives": ("hard_positives", {"forms": "replace"}),
    "vl_checklist": ("vl_checklist", {"version": "custom"}),
}
TARGETS = {"sugarcrepe": 0.5, "vl_checklist": 3.0}
BENCHMARK_ID = "sugarcrepe:version=upstream-7511"
"""The warm run's benchmark, as an inline spec (also its id in the precomputed file)."""
WARM_TARGET_S = 1.5
MEMORY_TARGET_MB = 500


def rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def child(name: str, impl: str, shared: Path) -> None:
    """One measurement, in this process: load, score, build the cell; print JSON."""
    sys.path[:0] = [str(GOLDEN), str(REPO)]
    os.environ["VLC_HARNESS_BOOTSTRAP"] = "200" if impl == "legacy" else "1000"
    from adversarial import adversarial_scores, image_keys

    from vlc_harness.params import build
    from vlc_harness.plugins import get_plugins

    type_name, params = CASES[name]
    cls = get_plugins().benchmarks.get(type_name).cls
    bench = cls(build(cls.Params, params), shared)
    instances = bench.load_instances()
    keys, scores = image_keys(instances), adversarial_scores(instances, 99)
    before = rss_mb()
    if impl == "legacy":
        from bench.legacy.cells import collect_scores
    else:
        from vlc_harness.run.collect import collect_scores
    start = time.perf_counter()
    collected = collect_scores(bench, instances, keys, scores, {}, None)
    seconds = time.perf_counter() - start
    headline = next(m for m in collected.metrics if m.get("headline"))
    print(
        json.dumps(
            {
                "seconds": seconds,
                "instances": len(instances),
                "rss_before_mb": before,
                "rss_peak_mb": rss_mb(),
                "headline": [headline["metric"], headline["value"], headline.get("ci95")],
            }
        )
    )


def measure(name: str, impl: str, shared: Path) -> dict:
    out = subprocess.run(
        [sys.executable, __file__, "--child", name, impl, "--shared", str(shared)],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "HF_HUB_OFFLINE": "1"},
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def prepare_warm(shared: Path, work: Path) -> tuple[Path, Path]:
    """A SugarCrepe data root with stand-in images, and a precomputed scores file for it."""
    sys.path[:0] = [str(GOLDEN), str(REPO)]
    from vlc_harness.params import build
    from vlc_harness.testing import standin_image
    from vlc_harness_builtins.benchmarks.sugarcrepe import SugarCrepe

    root = work / "data"
    (root / "sugarcrepe").mkdir(parents=True, exist_ok=True)
    for f in (shared / "sugarcrepe").glob("*.json"):
        shutil.copy(f, root / "sugarcrepe" / f.name)
    images = root / "coco" / "val2017"
    images.mkdir(parents=True, exist_ok=True)
    bench = SugarCrepe(build(SugarCrepe.Params, {"version": "upstream-7511"}), root)
    instances = bench.load_instances()
    for name in sorted({inst.images[0].path.name for inst in instances}):
        if not (images / name).exists():
            standin_image(name, (640, 480)).save(images / name, quality=90)
    path = work / "scores.jsonl"
    with open(path, "w") as f:  # one score per (image, caption): the subsets share pairs
        for inst in instances:
            for i, j in inst.needed_pairs():
                digest = hashlib.sha256(f"{inst.images[i].path.name}\n{inst.texts[j]}".encode()).digest()
                score = int.from_bytes(digest[:4], "big") / 2**32
                line = {"benchmark": BENCHMARK_ID, "version": "upstream-7511", "instance": inst.id}
                f.write(json.dumps(line | {"image": i, "text": j, "score": score}) + "\n")
    return root, path


def warm_runs(checkout: Path, root: Path, scores: Path, work: Path, label: str) -> tuple[float, float]:
    """Cold, then the best of 3 warm ``vlc-harness run`` walls, with ``checkout`` first on the path."""
    store = work / f"store-{label}.sqlite"
    store.unlink(missing_ok=True)
    env = {
        **os.environ,
        "PYTHONPATH": str(checkout),
        "HF_HUB_OFFLINE": "1",
        "VLC_HARNESS_CACHE_DIR": str(work / "cache"),
    }
    env.pop("VLC_HARNESS_BOOTSTRAP", None)
    module = "harness" if label == "legacy" else "vlc_harness"  # v0.1's import name was harness
    cmd = [sys.executable, "-m", module, "run", "-m", f"precomputed:path={scores}", "-b", BENCHMARK_ID]
    cmd += ["--data-root", str(root), "--store", f"sqlite:///{store}", "--no-progress"]
    start = time.perf_counter()
    first = subprocess.run(cmd, env=env, capture_output=True, text=True, cwd=work)
    cold = time.perf_counter() - start
    if first.returncode:
        raise SystemExit(f"the cold {label} run failed:\n{first.stdout}\n{first.stderr}")
    walls = []
    for _ in range(3):
        start = time.perf_counter()
        out = subprocess.run(cmd, check=True, env=env, capture_output=True, text=True, cwd=work)
        walls.append(time.perf_counter() - start)
    if label == "new":
        assert "[stored]" in out.stdout, out.stdout
    return cold, min(walls)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", type=Path, default=REPO.parent / "shared" / "data")
    parser.add_argument("--work", type=Path, default=Path("/tmp/vlc-cell-cost"))
    parser.add_argument("--legacy-checkout", type=Path, default=None)
    parser.add_argument("--skip-legacy", nargs="*", default=[], help="benchmarks whose v0.1 cell is not timed")
    parser.add_argument("--warm-only", action="store_true", help="time the warm runs only")
    parser.add_argument("--child", nargs=2, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child[0], args.child[1], args.shared)
        return
    print(f"# cell cost on {os.cpu_count()} CPUs; v0.1 at 200 resamples, today at 1,000; each in its own process")
    print(
        f"{'benchmark':<16}{'instances':>10}{'v0.1 s':>10}{'new s':>9}{'ratio':>8}{'v0.1 MB':>9}{'new MB':>8}  target"
    )
    for name in [] if args.warm_only else CASES:
        new = measure(name, "new", args.shared)
        old = None if name in args.skip_legacy else measure(name, "legacy", args.shared)
        target = TARGETS.get(name)
        verdict = f"<= {target} s: {'met' if new['seconds'] <= target else 'MISSED'}" if target else ""
        if name == "vl_checklist":
            verdict += (
                f"; peak <= {MEMORY_TARGET_MB} MB: {'met' if new['rss_peak_mb'] <= MEMORY_TARGET_MB else 'MISSED'}"
            )
        ratio = f"{old['seconds'] / new['seconds']:.1f}x" if old else "-"
        old_s = f"{old['seconds']:.2f}" if old else "-"
        old_mb = f"{old['rss_peak_mb']:.0f}" if old else "-"
        print(
            f"{name:<16}{new['instances']:>10}{old_s:>10}{new['seconds']:>9.2f}{ratio:>8}{old_mb:>9}"
            f"{new['rss_peak_mb']:>8.0f}  {verdict}"
        )
    args.work.mkdir(parents=True, exist_ok=True)
    root, scores = prepare_warm(args.shared, args.work)
    cold, warm = warm_runs(REPO, root, scores, args.work, "new")
    line = f"warm `vlc-harness run`, complete SugarCrepe cell: {warm:.2f} s (cold {cold:.1f} s)"
    line += f"; target <= {WARM_TARGET_S} s: {'met' if warm <= WARM_TARGET_S else 'MISSED'}"
    if args.legacy_checkout:
        old_cold, old_warm = warm_runs(args.legacy_checkout, root, scores, args.work, "legacy")
        line += f"; v0.1: {old_warm:.2f} s (cold {old_cold:.1f} s), {old_warm / warm:.1f}x"
    print(line)


if __name__ == "__main__":
    main()
