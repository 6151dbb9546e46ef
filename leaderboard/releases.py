"""Frozen releases (``render --release NAME``): their dates and a changelog between them.

Each release folder holds ``release.json``: its name, date, harness version and commit, registry digest
and a summary of the board (models, benchmarks, and every published headline value with its rank, model
fingerprint, benchmark fingerprint and data version), next to the release's ``manifest.json``
(:mod:`vlc_leaderboard.site_manifest`).
The index lists the releases, newest first, each with what changed since the one before, and
what changed on the live board since the latest release. A release frozen before manifests
existed is listed with its folder's date and no changes.
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vlc_leaderboard.board import Board
from vlc_leaderboard.site_manifest import benchmark_fingerprint

MANIFEST = "release.json"
CHANGED = 0.0005
"""A headline value that moved by at least this much (0.05 points) is listed as changed."""


def summary(board: Board) -> dict[str, Any]:
    """What a changelog compares: models, benchmarks, and each published headline value (with what
    keys it: the model and benchmark fingerprints and the data version)."""
    cells: dict[str, dict[str, Any]] = {}
    for row in board.rows:
        for col in board.benchmarks:
            cv = row.cells.get(col.id)
            if cv is None or cv.cell is None or not cv.published or not col.metrics:
                continue
            value = cv.values.get(col.metrics[0].metric)
            if value is not None:
                cells[f"{row.public_id}|{col.id}"] = {
                    "value": value.value,
                    "rank": value.rank,
                    "model_fingerprint": cv.cell.fingerprint,
                    "benchmark_fingerprint": benchmark_fingerprint(cv.cell),
                    "data_version": cv.cell.data_version,
                }
    return {
        "models": {row.public_id: row.name for row in board.rows},
        "benchmarks": {col.id: col.title for col in board.benchmarks},
        "cells": cells,
    }


def manifest(board: Board, name: str, provenance: dict[str, Any], now: dt.datetime | None = None) -> dict[str, Any]:
    """The ``release.json`` of a release frozen now."""
    when = now or dt.datetime.now(dt.timezone.utc)
    return {
        "schema": 1,
        "name": name,
        "date": when.strftime("%Y-%m-%d"),
        "time": when.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "harness_version": str(provenance.get("harness_version", "")),
        "git_sha": str(provenance.get("git_sha") or ""),
        "registry_digest": str(provenance.get("registry_digest", "")),
        **summary(board),
    }


@dataclass
class Release:
    """A frozen release as the index lists it."""

    name: str
    date: str
    manifest: dict[str, Any] | None = None
    changes: list[str] = field(default_factory=list)


def load(releases_dir: Path, extra: dict[str, Any] | None = None) -> list[Release]:
    """The releases under ``releases_dir`` (plus ``extra``, a manifest not yet written), oldest
    first, each with its changes since the one before."""
    found: dict[str, Release] = {}
    if releases_dir.is_dir():
        for folder in sorted(p for p in releases_dir.iterdir() if p.is_dir()):
            data = _read(folder / MANIFEST)
            if data is not None:
                found[folder.name] = Release(folder.name, str(data.get("date", "")), data)
            else:
                stamp = folder / "index.html"
                mtime = (stamp if stamp.exists() else folder).stat().st_mtime
                date = dt.datetime.fromtimestamp(mtime, dt.timezone.utc).strftime("%Y-%m-%d")
                found[folder.name] = Release(folder.name, date)
    if extra is not None:
        found[extra["name"]] = Release(extra["name"], extra["date"], extra)
    ordered = sorted(found.values(), key=lambda r: (r.manifest.get("time", r.date) if r.manifest else r.date, r.name))
    previous: dict[str, Any] | None = None
    for release in ordered:
        if release.manifest is None:
            release.changes = ["frozen before release manifests: no changelog"]
        elif previous is None:
            release.changes = [_first(release.manifest)]
        else:
            release.changes = changes(previous, release.manifest) or ["no change in the headline results"]
        previous = release.manifest or previous
    return ordered


def _read(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _first(data: dict[str, Any]) -> str:
    return (
        f"first release: {len(data.get('models', {}))} models, {len(data.get('benchmarks', {}))} benchmarks, "
        f"{len(data.get('cells', {}))} published results"
    )


def changes(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    """What changed from ``old`` to ``new`` (two summaries), one line per kind of change."""
    out = []
    for key, what in (("models", "model"), ("benchmarks", "benchmark")):
        before, after = old.get(key, {}), new.get(key, {})
        added = [after[k] for k in after if k not in before]
        removed = [before[k] for k in before if k not in after]
        if added:
            out.append(f"added {_count(len(added), what)}: {_names(added)}")
        if removed:
            out.append(f"removed {_count(len(removed), what)}: {_names(removed)}")
    before, after = old.get("cells", {}), new.get("cells", {})
    models = new.get("models", {}) | old.get("models", {})
    benchmarks = new.get("benchmarks", {}) | old.get("benchmarks", {})

    def label(key: str) -> str:
        model, _, bench = key.partition("|")
        return f"{models.get(model, model)} on {benchmarks.get(bench, bench)}"

    published = [label(k) for k in after if k not in before]
    withdrawn = [label(k) for k in before if k not in after]
    moved = [
        f"{label(k)} {100 * before[k]['value']:.1f} → {100 * after[k]['value']:.1f}"
        for k in after
        if k in before and abs(float(after[k]["value"]) - float(before[k]["value"])) >= CHANGED
    ]
    if published:
        out.append(f"{_count(len(published), 'new result')}: {_names(published)}")
    if withdrawn:
        out.append(f"{_count(len(withdrawn), 'result')} no longer published: {_names(withdrawn)}")
    if moved:
        out.append(f"{_count(len(moved), 'headline value')} changed: {_names(moved)}")
    return out


def _count(n: int, what: str) -> str:
    return f"{n} {what}" + ("" if n == 1 else "s")


def _names(items: list[str], most: int = 5) -> str:
    shown = ", ".join(items[:most])
    return shown + (f" and {len(items) - most} more" if len(items) > most else "")
