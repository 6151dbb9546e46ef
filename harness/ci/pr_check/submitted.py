"""The PR check's ``submitted`` step: each submitted entry a PR adds or changes downloads, matches its
sha256, and scores every needed pair of every benchmark it claims. The entry's type is found through
the plugin manager and asked through :class:`~vlc_harness.submitted.ReplaysScores`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from vlc_harness.ci.pr_check.context import Context, vlc
from vlc_harness.ci.summary import Section, table, tail

if TYPE_CHECKING:
    from vlc_harness.registry import Registry


def step_submitted(ctx: Context) -> Section:
    """Submitted entries the PR adds or changes: download, sha256, completeness, metadata."""
    from vlc_harness.plugins import get_plugins
    from vlc_harness.registry import load_registry
    from vlc_harness.submitted import ReplaysScores, check_submitted

    section = Section("Submitted scores")
    plugins = get_plugins()
    registry = load_registry([ctx.registry], plugins)
    try:
        touched = ctx.touched_models()
    except RuntimeError as exc:
        section.fail(str(exc))
        return section
    entries = [e for e in registry.models.values() if e.meta.get("submitted") and e.id in touched and not e.unavailable]
    if not entries:
        section.verdict = "skipped"
        section.lines.append("The PR adds or changes no submitted entry.")
        return section
    rows = []
    for entry in entries:
        cls = plugins.models.get(entry.type).cls
        problems = check_submitted(entry, cls)
        if problems:
            section.fail()
            rows.append([f"`{entry.id}`", "metadata", "; ".join(problems)])
            continue
        rows.append([f"`{entry.id}`", "metadata", "display name, source, license and link given"])
        assert issubclass(cls, ReplaysScores), "check_submitted reports a type that replays no scores"
        try:
            scores = cls.submitted_scores(entry.params)
        except Exception as exc:
            section.fail()
            rows.append([f"`{entry.id}`", "download", f"{type(exc).__name__}: {exc}"])
            continue
        rows.append([f"`{entry.id}`", "download", f"sha256 matches; {len(scores):,} scores"])
        claimed: dict[str, set[str]] = {}
        for key in scores:
            claimed.setdefault(key[0], set()).add(key[1])
        for bench_id, versions in sorted(claimed.items()):
            verdict = _completeness(ctx, registry, scores, bench_id, versions)
            if verdict.startswith("incomplete") or verdict.startswith("cannot"):
                section.fail()
            rows.append([f"`{entry.id}`", f"`{bench_id}`", verdict])
    section.lines += table(["entry", "check", "result"], rows)
    return section


def _completeness(
    ctx: Context, registry: Registry, scores: Mapping[Any, float], bench_id: str, versions: set[str]
) -> str:
    """Whether ``scores`` cover every needed pair of a benchmark (its annotations are fetched if absent)."""
    from vlc_harness.plugins import get_plugins
    from vlc_harness.run.prepare import prepare
    from vlc_harness.submitted import missing_scores

    if bench_id not in registry.benchmarks:
        return f"cannot check: `{bench_id}` is not a benchmark of {ctx.registry.name}"
    benchmarks = get_plugins().benchmarks
    prepared = prepare(registry.benchmarks[bench_id], benchmarks, ctx.data_root, None)
    if not prepared.ready:
        argv = ["data", "fetch", "-b", bench_id, "--registry", str(ctx.registry), "--no-progress"]
        fetch = vlc([*argv, "--data-root", str(ctx.data_root)], ctx.repo)
        prepared = prepare(registry.benchmarks[bench_id], benchmarks, ctx.data_root, None)
        if not prepared.ready:
            reason = prepared.unavailable or prepared.load_error or tail(fetch.stderr)
            return f"cannot check: its instances cannot be listed here ({reason.splitlines()[0][:200]})"
    if prepared.data_version not in versions:
        given = ", ".join(sorted(versions))
        return f"incomplete: scores for version(s) {given}, the benchmark is {prepared.data_version}"
    missing = missing_scores(scores, bench_id, prepared.data_version, prepared.instances)
    if missing:
        shown = ", ".join(f"{k[2]} ({k[3]},{k[4]})" for k in missing[:5])
        needed = sum(len(inst.needed_pairs()) for inst in prepared.instances)
        return f"incomplete: no score for {len(missing):,} of {needed:,} needed pairs, e.g. {shown}"
    return f"complete: every needed pair of {len(prepared.instances):,} instances ({prepared.data_version})"
