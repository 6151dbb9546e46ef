"""The PR check's ``baselines`` step: every benchmark entry a PR adds or changes (its params, instances or
data version; or an entry of a type whose package the PR newly names or re-pins) is run, on CPU, on three
baselines: the random baseline, a blind (caption-only) baseline and a tiny image model (:data:`BASELINES`),
``--limit`` :data:`BASELINE_LIMIT` per category. The random baseline's headline must land inside the
binomial 99% interval around the benchmark's declared chance at the instances run (:func:`chance_of`,
:func:`binomial_interval`); each baseline's cell must compute without a failed instance. The numbers go to
the job summary. A benchmark whose data cannot be had here, or to which the random baseline does not apply,
is red with the reason unless the PR carries the smoke step's override label.
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
from typing import Any

from vlc_harness.ci.pr_check.context import Context, vlc
from vlc_harness.ci.pr_check.smoke import TIME_LIMIT_S, cannot_run
from vlc_harness.ci.summary import Section, table, tail

BASELINES = (("random", "random"), ("blind", "blind_harper"), ("tiny image model", "shapes_clip"))
"""(role, inline model spec): uniform hashed scores; minus the grammar-lint count of the caption (no
weights, no network); the 1.8 MB shapes CLIP shipped with the harness."""
BASELINE_LIMIT = 100
"""Instances per category at most."""
LEVEL = 0.99


def binomial_interval(n: int, p: float, level: float = LEVEL) -> tuple[float, float]:
    """The central ``level`` interval of a Binomial(n, p) proportion: ``(lo / n, hi / n)`` with ``lo`` the
    largest count whose lower tail is at most ``(1 - level) / 2`` and ``hi`` the smallest whose CDF is at
    least ``1 - (1 - level) / 2``."""
    if n <= 0:
        return 0.0, 1.0
    alpha = (1 - level) / 2
    if p <= 0 or p >= 1:
        return p, p

    def pmf(k: int) -> float:
        log = math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1) + k * math.log(p)
        return math.exp(log + (n - k) * math.log1p(-p))

    cdf, lo, hi = 0.0, 0, n
    for k in range(n + 1):
        if cdf <= alpha:  # P(X < k) <= alpha: k is still a plausible lowest count
            lo = k
        cdf += pmf(k)
        if cdf >= 1 - alpha:
            hi = k
            break
    return lo / n, hi / n


def chance_of(benchmark: Any) -> tuple[float | None, str]:
    """The declared chance of the headline: its metric spec's, else the card's ``chance`` row (category
    ``all``); ``None`` and why when neither declares one."""
    headline = benchmark.headline_metric()
    spec = next((s for s in benchmark.metric_specs() if s.id == headline), None)
    if spec is not None and spec.chance is not None:
        return float(spec.chance), f"the `{headline}` metric spec"
    for row in benchmark.reference_rows():
        if row.matches == "chance" and row.metric == headline and row.category == "all":
            return float(row.value), "the card's chance row"
    return None, f"neither the `{headline}` metric spec nor the card's reference rows declare its chance"


def baseline_benchmarks(ctx: Context) -> set[str]:
    """Benchmark ids the PR adds or changes, and the entries of types of packages it newly names or re-pins."""
    from vlc_harness.ci.pr_check.conformance import package_types
    from vlc_harness.plugins import get_plugins
    from vlc_harness.registry import load_registry

    ids = ctx.changed_benchmarks()
    provided = {t for types in package_types(ctx)[0].values() for t in types["benchmarks"]}
    if provided:
        registry = load_registry([ctx.registry], get_plugins())
        ids |= {b.id for b in registry.benchmarks.values() if b.type in provided}
    return ids


def step_baselines(ctx: Context) -> Section:
    """The three baselines on each benchmark the PR adds or changes (see the module docstring)."""
    from vlc_harness.plugins import get_plugins
    from vlc_harness.registry import load_registry

    section = Section("Baselines on added or changed benchmarks")
    try:
        ids = baseline_benchmarks(ctx)
    except RuntimeError as exc:
        section.fail(str(exc))
        return section
    plugins = get_plugins()
    registry = load_registry([ctx.registry], plugins)
    ids &= set(registry.benchmarks)
    if not ids:
        section.verdict = "skipped"
        section.lines.append("The PR adds or changes no benchmark entry (params, instances or data version).")
        return section
    rows: list[list[Any]] = []
    for bench_id in sorted(ids):
        entry = registry.benchmarks[bench_id]
        name = f"`{bench_id}`"
        if entry.unavailable:
            section.fail()
            rows.append([name, "-", "not run", entry.unavailable])
            continue
        prepared, why = _ready(ctx, entry, plugins)
        if prepared is None:
            cannot_run(section, ctx, rows, name, "-", why)
            continue
        chance, source = chance_of(prepared.benchmark)
        cells, failure = _run(ctx, bench_id)
        if failure:
            section.fail()
            rows.append([name, "-", "failed", failure])
            continue
        for role, spec in BASELINES:
            cell = cells.get(spec)
            if cell is None:
                section.fail()
                rows.append([name, f"{role} (`{spec}`)", "failed", "no cell recorded"])
                continue
            verdict, detail = _judge(role, cell, chance, source)
            if verdict == "cannot":
                cannot_run(section, ctx, rows, name, f"{role} (`{spec}`)", detail)
                continue
            if verdict == "failed":
                section.fail()
            rows.append([name, f"{role} (`{spec}`)", verdict, detail])
    section.lines += table(["benchmark", "baseline", "check", "result"], rows)
    return section


def _ready(ctx: Context, entry: Any, plugins: Any) -> tuple[Any, str]:
    """The prepared benchmark (its data fetched if absent), or ``None`` and why it cannot be had here."""
    from vlc_harness.run.prepare import prepare

    prepared = prepare(entry, plugins.benchmarks, ctx.data_root, None)
    if prepared.ready:
        return prepared, ""
    argv = ["data", "fetch", "-b", entry.id, "--registry", str(ctx.registry), "--no-progress"]
    fetch = vlc([*argv, "--data-root", str(ctx.data_root)], ctx.repo, timeout=TIME_LIMIT_S)
    prepared = prepare(entry, plugins.benchmarks, ctx.data_root, None)
    if prepared.ready:
        return prepared, ""
    reason = prepared.unavailable or prepared.load_error or tail(fetch.stderr)
    return None, f"its data cannot be had here ({reason.splitlines()[0][:200] if reason else 'no reason given'})"


def _run(ctx: Context, bench_id: str) -> tuple[dict[str, Any], str]:
    """The baselines' cells on ``bench_id`` by model spec, or why the run did not record them."""
    from vlc_harness.store import open_store

    store = ctx.work / f"baselines-{bench_id}.sqlite"
    argv = [arg for _, spec in BASELINES for arg in ("-m", spec)]
    argv += ["-b", bench_id, "--limit", str(BASELINE_LIMIT), "--no-progress", "--registry", str(ctx.registry)]
    argv += ["--data-root", str(ctx.data_root), "--store", f"sqlite:///{store}"]
    env = dict(os.environ, CUDA_VISIBLE_DEVICES="")
    cmd = [sys.executable, "-m", "vlc_harness", "run", *argv]
    try:
        out = subprocess.run(cmd, cwd=ctx.repo, capture_output=True, text=True, env=env, timeout=TIME_LIMIT_S)
    except subprocess.TimeoutExpired:
        return {}, f"the baselines did not finish within {TIME_LIMIT_S // 60} minutes on the CPU runner"
    if not store.is_file():
        return {}, f"no cell recorded (exit {out.returncode}): {tail(out.stderr or out.stdout)}"
    opened = open_store(f"sqlite:///{store}")
    try:
        return {c.model_id: c for c in opened.latest_cells() if c.benchmark_id == bench_id}, ""
    finally:
        opened.close()


def _headline(cell: Any) -> tuple[str, float, int] | None:
    for m in cell.metrics:
        if m.get("headline") and m.get("category", "all") == "all" and m.get("value") is not None:
            return str(m["metric"]), float(m["value"]), int(m.get("n") or 0)
    return None


def _judge(role: str, cell: Any, chance: float | None, source: str) -> tuple[str, str]:
    """``(verdict, detail)`` of one baseline's cell: ``ok``, ``failed``, ``not applicable`` or ``cannot``."""
    why = (cell.error or "").strip().splitlines()[0] if cell.error else ""
    if cell.status == "skipped":
        if role == "random":
            return "cannot", f"the random baseline does not apply, so its chance cannot be checked ({why})"
        return "not applicable", f"skipped: {why}"
    if cell.status not in ("ok", "partial") or cell.n_failed:
        counted = f"{cell.n_failed} of {cell.n_instances} instances failed" if cell.n_failed else ""
        return "failed", f"{cell.status}: {why or counted}"
    headline = _headline(cell)
    if headline is None:
        return "failed", "the cell has no headline value"
    metric, value, n = headline
    shown = f"{metric} = {value:.4f} on {n} instances ({cell.n_scored} scored, none failed)"
    if role != "random":
        return "ok", shown
    if chance is None:
        return "failed", f"{shown}; cannot check it against chance: {source}"
    lo, hi = binomial_interval(n, chance)
    inside = lo - 1e-9 <= value <= hi + 1e-9
    verdict = f"chance {chance:.4f} ({source}); binomial 99% interval at n={n}: [{lo:.4f}, {hi:.4f}]"
    if inside:
        return "ok", f"{shown}; inside the {verdict}"
    return "failed", f"{shown}; OUTSIDE the {verdict}: the metric, its chance or the instances are suspect"
