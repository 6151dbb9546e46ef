"""The PR check's ``plan`` step: the cells a PR adds or whose fingerprint changes, from ``vlc-harness
plan --diff``; cells whose change cannot be known here (offline) counted in one line."""

from __future__ import annotations

from typing import Any

from vlc_harness.ci.pr_check.context import Context
from vlc_harness.ci.summary import Section, table

CHANGE_ORDER = {"added": 0, "changed": 1}
"""The plan table's order: the cells the PR adds first, then those it changes."""


def step_plan(ctx: Context) -> Section:
    """Cells the PR adds or whose fingerprint changes, from ``vlc-harness plan --diff``."""
    section = Section(f"Plan against {ctx.base}" if ctx.base else "Plan")
    try:
        plan = ctx.plan()
    except RuntimeError as exc:
        section.fail(str(exc))
        return section
    diff = plan.get("diff")
    if diff is None:
        section.lines.append(f"No base revision: {len(plan['cells'])} cells in the grid.")
        return section
    if diff.get("error"):
        section.fail(f"The grid of `{diff['ref']}` could not be evaluated by its own code: {diff['error']}")
        return section
    counts: dict[str, int] = {}
    for c in diff["cells"]:
        counts[c["change"]] = counts.get(c["change"], 0) + 1
    summary = ", ".join(f"{n} {k}" for k, n in sorted(counts.items())) or "no cell added or changed"
    removed = len(diff["removed"])
    section.lines.append(f"Against `{diff['ref']}` (`{diff['commit'][:12]}`): {summary}; {removed} removed.")
    fingerprints = {m["id"]: m["fingerprint"][:12] for m in plan["models"]}
    known = [c for c in diff["cells"] if c["change"] != "unknown"]
    known.sort(key=lambda c: CHANGE_ORDER.get(c["change"], len(CHANGE_ORDER)))
    rows = [
        [f"`{c['model']}`", f"`{c['benchmark']}`", c["change"], "; ".join(c["why"]), fingerprints.get(c["model"], "")]
        for c in known
    ]
    if rows:
        section.lines += ["", *table(["model", "benchmark", "change", "why", "fingerprint"], rows)]
    section.lines += _unknown_line([c for c in diff["cells"] if c["change"] == "unknown"])
    if diff["removed"]:
        section.lines += ["", "Removed: " + ", ".join(f"`{c['model']}` x `{c['benchmark']}`" for c in diff["removed"])]
    return section


def _unknown_line(cells: list[dict[str, Any]]) -> list[str]:
    """One line for the cells whose change cannot be known here (offline: identities needing the network)."""
    if not cells:
        return []
    models = sorted({c["model"] for c in cells})
    shown = ", ".join(f"`{m}`" for m in models[:8]) + (f" and {len(models) - 8} more" if len(models) > 8 else "")
    whys = sorted({w for c in cells for w in c["why"]})
    why = "; ".join(whys[:3]) + (f"; and {len(whys) - 3} more reasons" if len(whys) > 3 else "")
    return ["", f"Change unknown here for {len(cells)} cells of {len(models)} models ({shown}): {why}"]
