"""Time ``vlc-harness plan --all --registry registry.yaml`` offline with an empty data root
(target: 3 s or less), against baselines timed in the same run.

Each timing is a fresh interpreter (``python -m vlc_harness plan ...``, as a maintainer runs it),
the best of ``--repeat`` runs, with ``HF_HUB_OFFLINE=1`` and a store file that does not exist:

* ``python -c pass``: the interpreter alone;
* ``vlc-harness plugins``: the CLI with every plugin loaded, no registry, no plan;
* ``plan`` (availability first): models none of whose cells can run are not identified;
* ``plan --identify-all``: every model identified, as ``plan`` did before (its library imported,
  its weights probed).

With ``--data-root DIR`` (e.g. ``../shared/data``) it also times the plan over that data and,
in process, what identifying the models costs there: the seconds spent in identify (imports and
hub probes included) and how many models were identified.

    python bench/plan_speed.py [--repeat 3] [--registry registry.yaml] [--data-root ../shared/data]
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def timed(argv: list[str], repeat: int) -> tuple[float, float]:
    """Best wall time and best CPU time (user + system) of ``repeat`` runs of ``argv`` (a failed
    run stops the bench). CPU time says what the command costs when other work shares the cores."""
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    best, best_cpu = float("inf"), float("inf")
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        out = subprocess.run(argv, cwd=REPO, capture_output=True, text=True, env=env)
        elapsed = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if out.returncode:
            sys.exit(f"{' '.join(argv)} failed ({out.returncode}): {out.stderr[-2000:]}")
        best = min(best, elapsed)
        best_cpu = min(best_cpu, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return best, best_cpu


def identity_cost(registry: Path, data_root: Path, store: str) -> tuple[float, float, int, int]:
    """In this process: the plan's seconds, the seconds spent identifying models, how many were
    identified, and how many models the grid has."""
    os.environ["HF_HUB_OFFLINE"] = "1"
    from vlc_harness.config import RunConfig
    from vlc_harness.planview import grid, identity
    from vlc_harness.planview import store as plan_store
    from vlc_harness.plugins import get_plugins
    from vlc_harness.registry import load_registry

    spent = [0.0, 0]
    original = identity.identify_model

    def counting(*args, **kwargs):
        start = time.perf_counter()
        try:
            return original(*args, **kwargs)
        finally:
            spent[0] += time.perf_counter() - start
            spent[1] += 1

    identity.identify_model = counting  # LazyIdentity looks it up in its module at call time
    plugins = get_plugins()
    registry = load_registry([registry], plugins)
    config = RunConfig(data_root=data_root)
    models, benchmarks = list(registry.models.values()), list(registry.benchmarks.values())
    start = time.perf_counter()
    handle, _ = plan_store.read_only_store(store)
    try:
        grid.plan_grid(plugins, handle, models, benchmarks, config)
    finally:
        handle.close()
    return time.perf_counter() - start, spent[0], int(spent[1]), len(models)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--registry", type=Path, default=REPO / "registry.yaml")
    parser.add_argument("--data-root", type=Path, default=None, help="also time the plan over this data")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        empty = Path(tmp) / "empty"
        empty.mkdir()
        store = f"sqlite:///{Path(tmp) / 'none.sqlite'}"
        vlc = [sys.executable, "-m", "vlc_harness"]
        plan = [*vlc, "plan", "--all", "--registry", str(args.registry), "--store", store, "--format", "json"]
        rows = [
            ("python -c pass", timed([sys.executable, "-c", "pass"], args.repeat)),
            ("vlc-harness plugins", timed([*vlc, "plugins"], args.repeat)),
            ("plan, empty data root", timed([*plan, "--data-root", str(empty)], args.repeat)),
            ("plan --identify-all, empty data root", timed([*plan, "--data-root", str(empty), "--identify-all"], 1)),
        ]
        if args.data_root is not None:
            rows.append((f"plan, data root {args.data_root}", timed([*plan, "--data-root", str(args.data_root)], 1)))
        base = rows[0][1][0]
        print(f"best of {args.repeat} (the --identify-all and data-root rows: one run), HF_HUB_OFFLINE=1, no store:")
        print(f"  {'':<44} {'wall':>9}  {'ratio':>8}  {'CPU':>9}")
        for name, (seconds, cpu) in rows:
            print(f"  {name:<44} {seconds:7.2f} s  {seconds / base:7.1f}x  {cpu:7.2f} s")
        (fast, fast_cpu), (old, old_cpu) = rows[2][1], rows[3][1]
        verdict = "met" if fast <= 3 else "NOT met"
        print(f"plan, empty data root: {fast:.2f} s wall, {fast_cpu:.2f} s CPU (target <= 3 s wall: {verdict})")
        print(f"  {old / fast:.1f}x faster than identifying every model ({old:.2f} s wall, {old_cpu:.2f} s CPU)")
        if args.data_root is not None:
            total, spent, identified, n = identity_cost(args.registry, args.data_root, store)
            print(
                f"in process over {args.data_root}: plan_grid {total:.2f} s, of which identifying {identified} of "
                f"{n} models {spent:.2f} s (their libraries' imports and hub probes included)"
            )


if __name__ == "__main__":
    main()
