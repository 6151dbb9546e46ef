"""The site manifest's rules, with the standard library only: reading a published ``manifest.json`` and what
keeps a new one from replacing it (a published value lost, or changed while everything that keys it stayed).

``render`` applies them before it swaps a site in (:mod:`vlc_leaderboard.site_manifest` writes the manifest),
and the deploy check (:mod:`vlc_leaderboard.verify_site`) applies them again to the site it is given.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

FILE = "manifest.json"
SCHEMA = 1
SAME_VALUE = 1e-9
"""Two values closer than this are the same number: it absorbs float summation order, and is far
below one instance's weight in any benchmark (1 / n instances)."""
KEYS = ("model_fingerprint", "benchmark_fingerprint", "data_version")
"""What keys a cell's number: a value may change only where one of these changes."""


def read_manifest(site: Path) -> dict[str, Any] | None:
    """The manifest published in ``site``, ``None`` where it has none; ``ValueError`` when it is unreadable."""
    return read_manifest_file(site / FILE)


def read_manifest_file(path: Path) -> dict[str, Any] | None:
    """The manifest in the file ``path``, ``None`` where there is none; ``ValueError`` when it is unreadable."""
    if not path.exists():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ValueError(f"cannot read {path}: {exc}") from None
    if not isinstance(data, dict) or not isinstance(data.get("cells"), list):
        raise ValueError(f"{path} is not a site manifest (no list of cells)")
    return data


@dataclass(frozen=True)
class Refusal:
    """A published value the new site would lose, or change while everything that keys it stayed."""

    kind: str
    """``lost`` or ``changed``."""
    model: str
    benchmark: str
    metric: str
    old: float
    new: float | None = None

    def line(self) -> str:
        """One line for the maintainer."""
        where = f"{self.model} x {self.benchmark} ({self.metric} {self.old:.4f}"
        if self.kind == "lost":
            return f"lost: {where} no longer published)"
        return f"changed: {where} -> {self.new:.4f}, same model and benchmark fingerprints and data version)"


def refusals(published: dict[str, Any], new: dict[str, Any]) -> list[Refusal]:
    """What keeps ``new`` from replacing ``published``: values lost, and values changed without a key change."""
    after = {(c["model"], c["benchmark"]): c for c in new.get("cells", [])}
    out = []
    for old in published.get("cells", []):
        if old.get("value") is None:
            continue
        now = after.get((old["model"], old["benchmark"]))
        args = (old["model"], old["benchmark"], str(old.get("metric", "")), float(old["value"]))
        if now is None or now.get("value") is None:
            out.append(Refusal("lost", *args))
        elif all(now.get(k) == old.get(k) for k in KEYS) and not _same(now["value"], old["value"]):
            out.append(Refusal("changed", *args, float(now["value"])))
    return out


def changes(published: dict[str, Any], new: dict[str, Any]) -> dict[str, int]:
    """Counts of what ``new`` adds to ``published``: new values, and values changed with a new key."""
    before = {(c["model"], c["benchmark"]): c for c in published.get("cells", []) if c.get("value") is not None}
    added = moved = 0
    for cell in new.get("cells", []):
        if cell.get("value") is None:
            continue
        old = before.get((cell["model"], cell["benchmark"]))
        if old is None:
            added += 1
        elif not _same(cell["value"], old["value"]):
            moved += 1
    return {"new": added, "changed": moved}


def _same(a: Any, b: Any) -> bool:
    return abs(float(a) - float(b)) <= SAME_VALUE
