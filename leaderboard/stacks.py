"""What the board says about the scoring stack behind its numbers.

Each cell carries the stack it was computed with in its provenance (the model's identity record,
``model.stack``: the public versions of the distributions that can change its scores) and, when a run
computed it with installed versions other than the pins, which (``off_pin``). The board marks such a
cell (a small mark whose tooltip names the versions) and never shows a row whose published cells were
computed under different stacks without a note saying which versions differ on which benchmarks.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from vlc_harness.results import CellRecord


def off_pin_text(cell: CellRecord | None) -> str:
    """``computed off the pins: transformers 5.25.0 (pinned 5.24.0)``, or '' for a cell on the pins."""
    found = (cell.provenance.get("off_pin") if cell is not None else None) or []
    parts = [
        f"{d.get('name')} {d.get('installed') or 'not installed'} (pinned {d.get('pinned')})"
        for d in found
        if isinstance(d, Mapping)
    ]
    return "computed off the pins: " + ", ".join(parts) if parts else ""


def cell_stack(cell: CellRecord) -> Mapping[str, Any] | None:
    """The scoring stack a cell was computed with (``None``: it records none)."""
    model = cell.provenance.get("model")
    stack = model.get("stack") if isinstance(model, Mapping) else None
    return stack if isinstance(stack, Mapping) else None


def mixed_stacks_note(cells: Iterable[tuple[str, CellRecord]]) -> str:
    """For a row's published cells (``(benchmark title, cell)``), what differs between their stacks:
    ``scoring stacks differ across this row: transformers 5.24.0 (SugarCrepe, ARO), 5.25.0
    (Winoground)``; '' when they agree."""
    stacks = [(title, stack) for title, cell in cells if (stack := cell_stack(cell)) is not None]
    if len({_key(s) for _, s in stacks}) < 2:
        return ""
    parts = []
    for name in sorted({n for _, s in stacks for n in _parts(s)}):
        by_version: dict[str, list[str]] = {}
        for title, stack in stacks:
            by_version.setdefault(_parts(stack).get(name, "not recorded"), []).append(title)
        if len(by_version) > 1:
            parts.append(name + " " + ", ".join(f"{v} ({', '.join(t)})" for v, t in by_version.items()))
    return "scoring stacks differ across this row: " + "; ".join(parts)


def _parts(stack: Mapping[str, Any]) -> dict[str, str]:
    """A stack as ``{distribution: version}``; the plugin's own code as one part."""
    if "unknown" in stack:
        return {"stack": f"unknown ({stack['unknown']})"}
    out = {str(k): "not installed" if v is None else str(v) for k, v in (stack.get("packages") or {}).items()}
    plugin = stack.get("plugin")
    if isinstance(plugin, Mapping):
        name = str(plugin.get("distribution") or plugin.get("module") or "plugin")
        source = str(plugin.get("source", ""))
        out[name] = " ".join(
            filter(
                None,
                [str(plugin.get("version") or ""), f"source {source[7:19]}" if source.startswith("sha256:") else ""],
            )
        ) or str(plugin.get("unknown") or "recorded")
    return out


def _key(stack: Mapping[str, Any]) -> tuple[tuple[str, str], ...]:
    return tuple(sorted(_parts(stack).items()))


__all__ = ["cell_stack", "mixed_stacks_note", "off_pin_text"]
