"""The PR check's ``smoke`` step: every model entry a PR adds or changes (its plan cells' model reasons,
and the entries of a type whose package the PR newly names or re-pins) is run on CPU, ``vlc-harness run
--limit 5`` on the generated ``shapes`` benchmark (50 scenes: 50 instances), and must score at least
:data:`MIN_INSTANCES` of them, none failing, within :data:`TIME_LIMIT_S`.

What the loader will read is measured first (:mod:`.weights_size`: files, not ``meta``); a model over
:data:`MAX_WEIGHTS_MB`, or one the check cannot run at all (a paid API: no secrets here), makes the step
red with the reason, unless a maintainer labels the PR :data:`OVERRIDE_LABEL` (the workflow passes the
labels in ``PR_CHECK_LABELS``): then the step is ``overridden``, never ``passed``, and the summary names
what was not checked. A model whose size is unknown here is run all the same, bounded by the time
limit. Submitted scores are checked by their own step. An added model or benchmark entry whose listed
plugin package is not installed here fails the step.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from vlc_harness.ci.pr_check.context import Context
from vlc_harness.ci.pr_check.weights_size import measure
from vlc_harness.ci.summary import Section, table, tail

MAX_WEIGHTS_MB = 2000.0
"""The most a CPU runner is asked to download and load (a ViT-L/14 CLIP is 1.7 GB in fp32)."""
SMOKE_LIMIT = 5
SMOKE_BENCHMARK = "shapes:n_scenes=50"
"""The generated benchmark (nothing to download), small: rendered in about a second; ``--limit 5``
takes the first 5 instances of each of its kinds and tags: 50 instances."""
MIN_INSTANCES = 20
TIME_LIMIT_S = 600
"""The smoke run of one model, download and load included, on the CPU runner."""
OVERRIDE_LABEL = "smoke-override"
"""The pull-request label by which a maintainer accepts a model (or benchmark) the check cannot run."""
NOT_CHECKED = (
    "not checked: that it loads on CPU and scores the shapes benchmark (50 instances) finitely, "
    "without a failed instance, within 10 minutes"
)


def smoke_models(ctx: Context) -> set[str]:
    """Model ids the PR adds or changes: the plan's model reasons, and the entries of a type provided by
    a package the PR newly names or re-pins in ``plugins:``."""
    from vlc_harness.ci.pr_check.conformance import package_types
    from vlc_harness.registry import load_registry

    ids = ctx.changed_models()
    provided = {t for types in package_types(ctx)[0].values() for t in types["models"]}
    if provided:
        from vlc_harness.plugins import get_plugins

        registry = load_registry([ctx.registry], get_plugins())
        ids |= {m.id for m in registry.models.values() if m.type in provided}
    return ids


def cannot_run(section: Section, ctx: Context, rows: list[list[Any]], entry: str, size: str, why: str) -> None:
    """A check that cannot run here: red, unless the PR carries :data:`OVERRIDE_LABEL`."""
    if OVERRIDE_LABEL in ctx.labels:
        section.override()
        rows.append([entry, size, "not run", f"overridden by the `{OVERRIDE_LABEL}` label ({why}); {NOT_CHECKED}"])
    else:
        section.fail()
        rows.append([entry, size, "cannot run", f"{why}; a maintainer may accept it with the `{OVERRIDE_LABEL}` label"])


def step_smoke(ctx: Context) -> Section:
    """Run each model entry the PR adds or changes on CPU (see the module docstring)."""
    from vlc_harness.plugins import get_plugins
    from vlc_harness.registry import load_registry

    section = Section(f"CPU smoke run (--limit {SMOKE_LIMIT}, {SMOKE_BENCHMARK})")
    try:
        touched, new_benchmarks = smoke_models(ctx), ctx.new_benchmarks()
    except RuntimeError as exc:
        section.fail(str(exc))
        return section
    plugins = get_plugins()
    registry = load_registry([ctx.registry], plugins)
    rows: list[list[Any]] = []
    for bench_id in sorted(new_benchmarks & set(registry.benchmarks)):
        if registry.benchmarks[bench_id].unavailable:  # a listed plugin package that this job did not install
            section.fail()
            rows.append([f"benchmark `{bench_id}`", "-", "not run", registry.benchmarks[bench_id].unavailable])
    submitted = 0
    for model_id in sorted(touched & set(registry.models)):
        entry = registry.models[model_id]
        name = f"`{model_id}`"
        if entry.unavailable:  # a listed plugin package that this job did not install
            section.fail()
            rows.append([name, "-", "not run", entry.unavailable])
            continue
        cls = plugins.models.get(entry.type).cls
        if entry.meta.get("submitted"):
            submitted += 1
            rows.append([name, "-", "not run", "submitted scores: the `submitted` step checks them"])
            continue
        if cls.paid_requests:
            cannot_run(section, ctx, rows, name, "-", "a paid API model: this job has no secrets")
            continue
        size = measure(entry, cls, ctx.registry.parent, ctx.data_root)
        shown = f"{size.mb:,.1f} MB ({size.how()})" if size.mb is not None else f"size unknown ({size.how()})"
        if size.mb is not None and size.mb > MAX_WEIGHTS_MB:
            why = f"too large for the CPU runner: {size.mb:,.0f} MB > {MAX_WEIGHTS_MB:,.0f} MB"
            cannot_run(section, ctx, rows, name, shown, why)
            continue
        verdict, result = smoke_run(ctx, model_id)
        if verdict == "cannot":
            cannot_run(section, ctx, rows, name, shown, result)
            continue
        if verdict != "ok":
            section.fail()
        rows.append([name, shown, verdict, result])
    if not rows:
        section.verdict = "skipped"
        section.lines.append("The PR adds or changes no model entry.")
        return section
    if submitted == len(rows) and section.verdict == "passed":
        section.verdict = "skipped"
        section.lines += ["The PR adds or changes submitted entries only (the `submitted` step checks them).", ""]
    if section.verdict == "overridden":
        section.lines += [
            f"⚠️ A maintainer's `{OVERRIDE_LABEL}` label accepts what could not run here; {NOT_CHECKED}.",
            "",
        ]
    section.lines += table(["entry", "reads", "smoke run", "result"], rows)
    return section


def smoke_run(ctx: Context, model_id: str) -> tuple[str, str]:
    """``run --limit 5`` of one model on CPU within :data:`TIME_LIMIT_S`; ``("ok", line)`` when its
    cell scored at least :data:`MIN_INSTANCES` instances and none failed, ``("cannot", why)`` when the
    benchmark does not apply to its protocol, else ``("failed", why)``."""
    store = ctx.work / "smoke-store.sqlite"
    argv = ["run", "-m", model_id, "-b", SMOKE_BENCHMARK, "--limit", str(SMOKE_LIMIT), "--no-progress"]
    argv += ["--registry", str(ctx.registry), "--data-root", str(ctx.data_root), "--store", f"sqlite:///{store}"]
    env = dict(os.environ, CUDA_VISIBLE_DEVICES="")
    started = time.monotonic()
    try:
        out = subprocess.run(
            [sys.executable, "-m", "vlc_harness", *argv],
            cwd=ctx.repo,
            capture_output=True,
            text=True,
            env=env,
            timeout=TIME_LIMIT_S,
        )
    except subprocess.TimeoutExpired:
        return "failed", f"did not finish within {TIME_LIMIT_S // 60} minutes on the CPU runner"
    seconds = time.monotonic() - started
    cell = _cell(store, model_id)
    first = out.stdout.strip().splitlines()[0] if out.stdout.strip() else tail(out.stderr)
    if cell is None:
        return "failed", f"no cell recorded (exit {out.returncode}): {first}"
    why = (cell.error or "").strip().splitlines()[0] if cell.error else ""
    if cell.status == "skipped":
        return "cannot", f"{SMOKE_BENCHMARK} does not apply to it ({why or first})"
    if cell.status not in ("ok", "partial") or cell.n_failed:
        counted = f"{cell.n_failed} of {cell.n_instances} instances failed" if cell.n_failed else ""
        return "failed", f"{cell.status}: {why or counted or first}"
    if cell.n_scored < MIN_INSTANCES:
        return "failed", f"{first}; only {cell.n_scored} instances scored (at least {MIN_INSTANCES} needed)"
    return "ok", f"{first}; {cell.n_scored} instances scored, none failed, in {seconds:.1f} s"


def _cell(store: Path, model_id: str) -> Any:
    """The smoke store's newest cell of ``model_id`` (``None``: none was recorded)."""
    from vlc_harness.store import open_store

    if not store.is_file():
        return None
    opened = open_store(f"sqlite:///{store}")
    try:
        cells = [c for c in opened.latest_cells() if c.model_id == model_id]
    finally:
        opened.close()
    return cells[-1] if cells else None
