"""How well the bundle render's work spreads over N cores: each fan-out item timed, the schedule simulated.

The nightly renders the board bundle on a runner with several cores (4 on a GitHub-hosted runner of a public
repository); this machine has 2, so the render's wall clock on N cores cannot be measured here. This renders a
bundle of ``registry.yaml``'s synthetic grid (:func:`site_size.build_grid` at ``--scale``, exported as the nightly
exports it) with every fan-out's items run one after the other in this process, each item's CPU time taken, and
prints, per fan-out, the time N workers would take to run those items in the order :func:`vlc_leaderboard.fanout.
fan_out` hands them out (the heaviest first, each to the first worker free) beside the ideal (the sum over N).
It does so twice in one run: with the instance browser's work cut for ``--jobs`` workers
(:func:`vlc_leaderboard.instance_files.model_parts`) and with one item a benchmark (as with one job), so the
two schedules are compared on the same machine and load.

    python bench/render_balance.py [--scale 0.02] [--models 70] [--jobs 4]
"""

from __future__ import annotations

import argparse
import contextlib
import heapq
import io
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.nightly_board import export_step  # noqa: E402
from bench.site_size import build_grid  # noqa: E402
from vlc_leaderboard import fanout  # noqa: E402
from vlc_leaderboard.bundle import open_bundle  # noqa: E402
from vlc_leaderboard.publish import publish, site_target, wall_clock  # noqa: E402

WORKERS = (2, 4, 8)


def timed_render(bundle: Path, site: Path, jobs: int) -> list[tuple[str, list[float]]]:
    """Render ``bundle`` planned for ``jobs`` workers, every fan-out run here: each one's name and item times,
    heaviest item first (the order the workers would take them)."""
    log: list[tuple[str, list[float]]] = []

    def timed_map(self: Any, fn: Callable[[Any], Any], items: Sequence[Any], weights: Sequence[float] | None = None):
        order = sorted(range(len(items)), key=lambda k: -(weights[k] if weights else 0))
        out: list[Any] = [None] * len(items)
        times = []
        with fanout.heap_frozen():
            for k in order:
                start = time.process_time()
                out[k] = fn(items[k])
                times.append(time.process_time() - start)
        log.append((fn.__name__, times))
        return out

    shutil.rmtree(site, ignore_errors=True)
    original = fanout.Workers.map
    fanout.Workers.map = timed_map  # type: ignore[method-assign]
    try:
        with open_bundle(bundle) as data, contextlib.redirect_stdout(io.StringIO()):
            publish(data, site_target(str(site), None, None, (), False, jobs), wall_clock())
    finally:
        fanout.Workers.map = original  # type: ignore[method-assign]
    return log


def makespan(times: list[float], workers: int) -> float:
    """The time ``workers`` take for ``times`` given out in this order, each to the first worker free."""
    free = [0.0] * workers
    for t in times:
        heapq.heappush(free, heapq.heappop(free) + t)
    return max(free)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scale", type=float, default=0.02, help="fraction of each benchmark's real instances")
    parser.add_argument("--models", type=int, default=70, help="models (the registry's first N; it has 70)")
    parser.add_argument("--jobs", type=int, default=4, help="the workers the instance browser's work is cut for")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="vlc-render-balance-"))
    try:
        grid = build_grid(work, args.scale, args.models)
        export_step(grid, work / "board.zip")
        print(f"grid at scale {args.scale}: {grid.n_instances:,} instances x {args.models} models")
        for label, jobs in ((f"cut for {args.jobs} workers", args.jobs), ("one item a benchmark", 1)):
            print(f"{label}:")
            for name, times in timed_render(work / "board.zip", work / "site", jobs):
                total = sum(times)
                spans = ", ".join(f"{n}: {makespan(times, n):.1f} s (ideal {total / n:.1f})" for n in WORKERS)
                print(f"  {name}: {len(times)} items, {total:.1f} s of CPU; {spans}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
