"""The plan as aligned text (``vlc-harness plan``'s table), with the diff's column and summary."""

from __future__ import annotations

from typing import Any

from vlc_harness.gpucost import duration
from vlc_harness.planview.gpu import gpu_lines
from vlc_harness.planview.identity import UNKNOWN
from vlc_harness.status import Status

MAX_REASON = 240
"""Longer reasons are cut under the table (the JSON has them whole)."""


def table_lines(out: dict[str, Any]) -> list[str]:
    """The plan (and its diff, where there is one) as aligned text: ``plan --format json``'s document in."""
    diff = out.get("diff")
    changes = {(c["model"], c["benchmark"]): c for c in (diff or {}).get("cells", [])}
    fingerprints = {m["id"]: m["fingerprint"] for m in out["models"]}
    header = ["model", "fingerprint", "benchmark", "status", "work", "cost", "gpu"]
    header += ["vs " + diff["ref"]] if diff else []
    rows = []
    for c in out["cells"]:
        row = [
            c["model"],
            fingerprints.get(c["model"], "")[:12],
            c["benchmark"],
            c["status"] + (f" ({c['stored_status']})" if c.get("stored_status") not in (None, Status.OK) else ""),
            work_text(c["work"], c["unit"], c["status"])
            + (f" ({c['requests']:,} requests)" if c["requests"] is not None and c["work"] else ""),
            c["cost"],
            c["gpu"],
        ]
        if diff:
            row.append("?" if diff.get("error") else _change_text(changes.get((c["model"], c["benchmark"]))))
        rows.append(row)
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(str(v).ljust(w) for v, w in zip(r, widths)).rstrip() for r in [header, *rows]]
    lines += _reasons(out["cells"])
    counts: dict[str, int] = {}
    for c in out["cells"]:
        counts[c["status"]] = counts.get(c["status"], 0) + 1
    lines.append("cells: " + ", ".join(f"{n} {s}" for s, n in sorted(counts.items())))
    for m in out["models"]:
        if m["work"]:
            cost = f", cost {m['cost']}" if m["cost"] != "-" else ""
            bound = "at most " if m["unknown"] else ""
            gpu = f", GPU {m['gpu']} ({m['gpu_basis']})" if m["gpu_kind"] != "none" else ""
            lines.append(f"model {m['id']}: {bound}{m['work']:,} {m['unit']} to compute (shared ones once){cost}{gpu}")
    if out.get("gpu"):
        lines += gpu_lines(out["gpu"])
    skipped = [m["id"] for m in out["models"] if m.get("not_identified")]
    if skipped:
        lines.append(f"note: {len(skipped)} models not identified (no fingerprint): none of their cells can run here")
    if out.get("store_note"):
        lines.append(f"note: {out['store_note']}")
    lines += stack_notes(out)
    if diff:
        lines += _diff_summary(diff, out["cells"])
    return lines


def stack_notes(out: dict[str, Any]) -> list[str]:
    """Where the scoring stacks come from, the distributions no pin covers, and installed versions
    that differ from the pins."""
    where = out.get("constraints")
    lines = [] if where else ["note: no constraints.txt found: each model's scoring stack is the installed versions"]
    unpinned: dict[str, list[str]] = {}
    for m in out["models"]:
        for name in m.get("unpinned") or []:
            unpinned.setdefault(name, []).append(m["id"])
    for name, models in sorted(unpinned.items()):
        who = ", ".join(models) if len(models) <= 3 else f"{len(models)} models"
        lines.append(
            f"note: {name} ({who}) is not pinned in {where or 'constraints.txt'}: its installed version is used"
        )
    if out.get("off_pin"):
        found = ", ".join(
            f"{d['name']} {d['installed'] or 'not installed'} (pinned {d['pinned']})" for d in out["off_pin"]
        )
        lines.append(
            f"note: installed here, off the pins: {found}; a run here fingerprints with the installed versions"
        )
    return lines


def _reasons(cells: list[dict[str, Any]]) -> list[str]:
    """One line per distinct reason, naming the cells it covers."""
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for c in cells:
        if c["reason"] and c["status"] != "complete":
            groups.setdefault((c["status"], c["reason"].splitlines()[0]), []).append(c)
    lines = []
    for (status, reason), group in groups.items():
        models, benchmarks = {c["model"] for c in group}, {c["benchmark"] for c in group}
        if len(group) == 1:
            who = f"{group[0]['model']} x {group[0]['benchmark']}"
        elif len(benchmarks) == 1:
            who = f"{len(models)} models x {group[0]['benchmark']}"
        elif len(models) == 1:
            who = f"{group[0]['model']} x {len(benchmarks)} benchmarks"
        else:
            who = f"{len(group)} cells"
        lines.append(f"  {status} {who}: {reason if len(reason) <= MAX_REASON else reason[: MAX_REASON - 3] + '...'}")
    return lines


def _change_text(change: dict[str, Any] | None) -> str:
    if change is None:
        return "unchanged"
    if change["change"] == "unknown":
        return "unknown"  # why: once, under the table
    return change["change"] + (f": {', '.join(change['why'])}" if change.get("why") else "")


def _diff_summary(diff: dict[str, Any], cells: list[dict[str, Any]]) -> list[str]:
    counts: dict[str, int] = {}
    for c in diff["cells"]:
        counts[c["change"]] = counts.get(c["change"], 0) + 1
    lines = [
        f"vs {diff['ref']} ({diff['commit'][:12]}): "
        + (", ".join(f"{n} {s}" for s, n in sorted(counts.items())) or "no cell added or changed")
    ]
    moved = {(c["model"], c["benchmark"]) for c in diff["cells"] if c["change"] in ("added", "changed")}
    seconds = [c["gpu_seconds"] for c in cells if (c["model"], c["benchmark"]) in moved and c.get("gpu_seconds")]
    if seconds:
        lines.append(
            f"  GPU time of the added and changed cells still to compute: {duration(sum(seconds))} (summed per cell)"
        )
    for why in sorted({w for c in diff["cells"] if c["change"] == "unknown" for w in c["why"]}):
        lines.append(f"  unknown: {why}")
    for c in diff["removed"]:
        lines.append(f"  removed: {c['model']} x {c['benchmark']}")
    if diff.get("error"):
        lines.append(f"  the grid of {diff['ref']} could not be evaluated: {diff['error']}")
    return lines


def work_text(work: int | None, unit: str, status: str) -> str:
    """``1,234 pairs``, ``<= 1,234 pairs`` for an unknown identity, or ``-``."""
    if work is None:
        return "-"
    return f"{'<= ' if status == UNKNOWN else ''}{work:,} {unit}"


__all__ = ["table_lines", "work_text"]
