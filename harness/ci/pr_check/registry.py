"""The PR check's ``registry`` step: every registry file loads, and its submitted entries are well-formed."""

from __future__ import annotations

from pathlib import Path

from vlc_harness.ci.pr_check.context import Context
from vlc_harness.ci.summary import Section, table


def registry_files(ctx: Context) -> list[Path]:
    """The registry and the examples' registries."""
    files = [ctx.registry, *sorted((ctx.repo / "examples").glob("*.yaml"))]
    return [f for f in dict.fromkeys(files) if f.is_file()]


def step_registry(ctx: Context) -> Section:
    """Every registry file loads; submitted entries are well-formed (their type, found through the
    plugin manager, answers :class:`~vlc_harness.submitted.ReplaysScores`)."""
    from vlc_harness.errors import HarnessError
    from vlc_harness.plugins import get_plugins
    from vlc_harness.registry import load_registry
    from vlc_harness.submitted import check_submitted

    section = Section("Registry validation")
    plugins = get_plugins()
    rows = []
    for path in registry_files(ctx):
        name = path.relative_to(ctx.repo) if path.is_relative_to(ctx.repo) else path
        try:
            registry = load_registry([path], plugins)
        except (HarnessError, ValueError) as exc:
            section.fail()
            rows.append([f"`{name}`", "does not load", str(exc)])
            continue
        rows.append([f"`{name}`", "loads", f"{len(registry.models)} models, {len(registry.benchmarks)} benchmarks"])
        for entry in registry.models.values():
            if entry.meta.get("submitted") and not entry.unavailable:
                problems = check_submitted(entry, plugins.models.get(entry.type).cls)
                if problems:
                    section.fail()
                rows.append([f"`{name}`: `{entry.id}`", "submitted", "; ".join(problems) or "well-formed"])
    section.lines += table(["file / entry", "", "detail"], rows)
    return section
