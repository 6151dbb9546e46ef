"""The night for people: the Markdown the job summary shows (a verdict, each step's lines, the run's
counts, reasons and changes)."""

from __future__ import annotations

from typing import Any

from vlc_harness.ci.nightly.steps import Step
from vlc_harness.ci.nightly.stops import unpublished_verdict
from vlc_harness.exit_codes import PUBLISHED, ExitCode


def markdown(code: int, steps: list[Step], run_summary: dict[str, Any] | None) -> str:
    """The night for people: a verdict, then each step's lines and the run's counts, reasons and changes."""
    names = {s.name for s in steps}
    if code not in PUBLISHED:
        verdict = unpublished_verdict(steps)
    elif code == ExitCode.DEADLINE:
        verdict = "partial, continuing: the complete cells are published, the next night computes the rest"
    elif "verify" in names or "render" not in names and "export" not in names:
        verdict = "the site is published"
    elif "render" in names:
        verdict = "the site is rendered; the deploy job checks it before it is published"
    else:
        verdict = "the board bundle is exported; the render job renders it"
    out = [f"## Nightly leaderboard: exit {code} ({verdict})", ""]
    out += [f"- {s.name} exited {s.code}" for s in steps if s.code] + [""]
    for step in steps:
        out.append(f"### {step.name}: exit {step.code}" + (" (skipped)" if step.skipped else ""))
        out += [f"- {line}" for line in step.lines[:40]] + [""]
        if step.name == "run" and run_summary is not None:
            out += run_section(run_summary)
    return "\n".join(out)


def run_section(summary: dict[str, Any], most: int = 30) -> list[str]:
    """The run's summary in Markdown: statuses, grouped reasons, lost, new and changed cells, seconds per model."""
    out = ["| status | cells |", "|---|---:|"] + [f"| {k} | {n} |" for k, n in summary["statuses"].items()]
    out += ["", f"{summary['stored']} of {summary['cells']} cells were stored already.", ""]
    if summary.get("remaining"):  # the run's deadline came first (vlc_harness.run.deadline)
        out += [f"**Remaining**: {summary['remaining']['line']}", ""]
    changed = [
        f"{c['model']} x {c['benchmark']}: {_value(c['before'])} -> {_value(c['after'])}" for c in summary["changed"]
    ]
    for title, lines in (
        ("Without a number", [g["line"] for g in summary["reasons"]]),
        ("Lost (had a number before this run)", [c["line"] for c in summary["lost"]]),
        ("New", [f"{c['model']} x {c['benchmark']}: {_value(c)}" for c in summary["new"]]),
        ("Changed", changed),
    ):
        if lines:
            out += [f"**{title}** ({len(lines)})", ""] + [f"- {line}" for line in lines[:most]]
            out += ([f"- and {len(lines) - most} more"] if len(lines) > most else []) + [""]
    seconds = sorted(summary["seconds_per_model"].items(), key=lambda kv: -kv[1])
    if any(s for _, s in seconds):
        out += ["| model | worker seconds |", "|---|---:|"] + [f"| {m} | {s:.1f} |" for m, s in seconds[:most] if s]
        out += [f"| total | {sum(s for _, s in seconds):.1f} |", ""]
    return out


def _value(view: dict[str, Any]) -> str:
    if view.get("value") is None:
        return view["status"]
    return f"{view['status']} {view['metric']}={view['value']:.4f}"
