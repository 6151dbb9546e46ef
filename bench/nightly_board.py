"""The nightly's two board steps on registry.yaml's synthetic grid: ``board export`` and the bundle's render.

The nightly does not render from the store: its run job exports the board bundle (``vlc-harness board export``,
in the run's process, one job, the bundle written under :func:`vlc_leaderboard.fanout.heap_frozen` as the
command writes it) and its render job renders that file where no plugin is loaded (``python -m
vlc_leaderboard.render_bundle``, ``--jobs`` the runner's CPUs). ``bench/site_size.py`` times ``vlc-harness
render`` from the store, both halves in one process; this times each step as the nightly runs it, on the same
synthetic grids (:func:`site_size.build_grid`: the examples alone as the baseline, and the grid at ``--scale``
of the real instance counts), and extrapolates the full grid's time the same way (the baseline plus each
instance's cost times the full grid's instances). The export is timed once per grid; the render with 1 job and
``--jobs N``, the fastest of ``--repeats``, on the wall clock and in CPU time with the workers'.

    python bench/nightly_board.py [--scale 0.02] [--models 70] [--repeats 2] [--jobs N]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import shutil
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.site_size import INSTANCES, Grid, build_grid, cpu_seconds, full_grid_estimate  # noqa: E402
from vlc_harness.plugins import get_plugins  # noqa: E402
from vlc_harness.results import StoredResults  # noqa: E402
from vlc_harness.store import open_store  # noqa: E402
from vlc_leaderboard.bundle import open_bundle, write_bundle  # noqa: E402
from vlc_leaderboard.export import export_board  # noqa: E402
from vlc_leaderboard.fanout import default_jobs, heap_frozen  # noqa: E402
from vlc_leaderboard.publish import publish, site_target, wall_clock  # noqa: E402

Timing = tuple[float, float]
"""Wall-clock seconds and CPU seconds (the workers' included)."""


def export_step(grid: Grid, bundle: Path) -> Timing:
    """``board export`` of the grid's store into ``bundle``, as the nightly's run job does (one job)."""
    store = open_store(grid.store_url)
    start, start_cpu = time.perf_counter(), cpu_seconds()
    try:
        export = export_board(StoredResults(store), grid.registry, get_plugins(), bundle.parent, False, set(), {},
                              grid.loader)  # fmt: skip
        with heap_frozen():  # as the command writes it
            write_bundle(export, bundle)
    finally:
        store.close()
    return time.perf_counter() - start, cpu_seconds() - start_cpu


def render_step(bundle: Path, site: Path, jobs: int, repeats: int) -> Timing:
    """The bundle rendered into ``site`` with ``jobs`` workers, as the nightly's render job does: the fastest of
    ``repeats`` (and the least CPU time of them)."""
    walls, cpus = [], []
    for _ in range(repeats):
        if site.exists():
            shutil.rmtree(site)
        start, start_cpu = time.perf_counter(), cpu_seconds()
        with open_bundle(bundle) as data, contextlib.redirect_stdout(io.StringIO()):
            publish(data, site_target(str(site), None, None, (), False, jobs), wall_clock())
        walls.append(time.perf_counter() - start)
        cpus.append(cpu_seconds() - start_cpu)
    return min(walls), min(cpus)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scale", type=float, default=0.02, help="fraction of each benchmark's real instances")
    parser.add_argument("--models", type=int, default=70, help="models (the registry's first N; it has 70)")
    parser.add_argument("--repeats", type=int, default=2, help="renders of each bundle and jobs; the fastest counts")
    parser.add_argument("--jobs", type=int, default=default_jobs(), help="also render with this many workers")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="vlc-nightly-board-"))
    jobs = sorted({1, args.jobs})
    steps: dict[str, list[tuple[int, Timing]]] = {}
    for name, scale in (("baseline (examples only)", None), (f"grid at scale {args.scale}", args.scale)):
        folder = work / ("baseline" if scale is None else "grid")
        folder.mkdir()
        grid = build_grid(folder, scale, args.models)
        bundle = folder / "board.zip"
        timed = {"board export (1 job)": export_step(grid, bundle)}
        for j in jobs:
            timed[f"render_bundle ({j} job{'s' if j > 1 else ''})"] = render_step(
                bundle, folder / "site", j, args.repeats
            )
        for step, timing in timed.items():
            steps.setdefault(step, []).append((grid.n_instances, timing))
        said = ", ".join(f"{step} {wall:.1f} s ({cpu:.1f} s CPU)" for step, (wall, cpu) in timed.items())
        print(f"{name}: {grid.n_instances:,} instances x {args.models} models, a {bundle.stat().st_size / 1e6:.1f} MB "
              f"bundle; {said}")  # fmt: skip
    full = sum(INSTANCES.values())
    print(f"the full grid ({full:,} instances x {args.models} models), extrapolated:")
    for step, ((n0, (w0, c0)), (n1, (w1, c1))) in steps.items():
        per_wall, wall = full_grid_estimate((w0, n0), (w1, n1), full)
        per_cpu, cpu = full_grid_estimate((c0, n0), (c1, n1), full)
        print(f"  {step}: {1e6 * per_wall / args.models:.1f} us per instance x model, {wall / 60:.1f} min "
              f"(CPU {1e6 * per_cpu / args.models:.1f} us, {cpu / 60:.1f} min)")  # fmt: skip
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
