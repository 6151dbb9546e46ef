"""Rendering the board to a static site with Jinja2 (autoescape on: every string is untrusted).

``site/index.html``, ``site/compare.html``, ``site/benchmarks/<id>.html``, ``site/models/<id>.html``,
``site/static/``, ``site/cite.bib`` and the page data under ``site/data/``: ``index.js`` (the index's
columns for ``static/board.js``), ``compare.js`` (values and pair verdicts for ``static/compare.js``),
and, when ``render`` could read the benchmarks' data, ``instances/<benchmark>/`` for the instance
browser (:mod:`vlc_leaderboard.instance_files`). Page data travels as scripts loaded with
``<script src>``, since ``fetch()`` fails under ``file://``. Every page carries a strict
Content-Security-Policy: no inline script, style or handler runs. A release (``--release NAME``) is a
frozen copy under ``site/releases/NAME/`` with its ``release.json`` (:mod:`vlc_leaderboard.releases`).
Every tree carries ``manifest.json`` (:mod:`vlc_leaderboard.site_manifest`).

Deterministic: the same store and registry give the same bytes. Pages show "last updated", the newest
published cell's completion time (from the store), never the wall clock; the one exception is the live
index's "last checked" line (when this render ran, by which harness commit), so a night that computes
nothing new changes ``index.html`` in that line only.
Templates can be overridden per file from extra folders (``--templates DIR`` or
``$VLC_HARNESS_TEMPLATES``), searched before the built-in ones.

The parts: :mod:`vlc_leaderboard.templating` (the Jinja2 environment and the CSP),
:mod:`vlc_leaderboard.index_page` (the index's columns), :mod:`vlc_leaderboard.pages` (the benchmark
and model pages), :mod:`vlc_leaderboard.site_files` (writing one site tree); this module renders the
live site and freezes releases.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from vlc_leaderboard import releases
from vlc_leaderboard.board import Board
from vlc_leaderboard.cite import board_bibtex
from vlc_leaderboard.downloads import ScoresFiles
from vlc_leaderboard.fanout import SERIAL, Workers
from vlc_leaderboard.fmt import (
    METRIC_TITLES,
    SCORE_METRICS,
    metric_diff,
    metric_title,
    metric_tooltip,
    metric_unit,
    metric_value,
    pct,
    slug,
)
from vlc_leaderboard.index_page import index_context
from vlc_leaderboard.instances import BenchmarkInstances
from vlc_leaderboard.pages import benchmark_context, model_context
from vlc_leaderboard.site_files import write_pages
from vlc_leaderboard.site_manifest import write_manifest
from vlc_leaderboard.templating import CSP, environment


def render_site(
    board: Board,
    out: Path,
    provenance: dict[str, Any],
    release: str | None = None,
    extra_templates: list[Path] | None = None,
    runs: dict[int, dict[str, Any]] | None = None,
    downloads: Callable[[Path], list[Path]] | None = None,
    instances: dict[str, BenchmarkInstances] | None = None,
    checked: dt.datetime | None = None,
    thumbnails: Mapping[str, bytes] | None = None,
    fill: ScoresFiles | None = None,
    workers: Workers = SERIAL,
) -> list[Path]:
    """Write the site into ``out``; with ``release``, also freeze a copy in ``out/releases/NAME``.

    ``instances`` (from :func:`vlc_leaderboard.instance_arrays.instance_results`) feeds the compare view's
    instance browser; without it the browser says that per-instance results are not in this build.
    ``thumbnails``: the bytes of the thumbnails its image entries name.
    ``checked`` is when this render ran (default: now): shown on the live index only, and the date of
    a release frozen now. ``fill``: ``instances`` hold no model's results yet; they are read from the cells'
    records, each benchmark's by one of ``workers`` (:func:`~vlc_leaderboard.instance_files.write_instance_files`).
    """
    env = environment(extra_templates)
    out.mkdir(parents=True, exist_ok=True)
    releases_dir = out / "releases"
    if release is not None:
        if slug(release) != release:
            raise ValueError(f"release name {release!r} may only hold letters, digits, '.', '_' and '-'")
        if (releases_dir / release).exists():
            raise FileExistsError(f"release {release} already exists in {releases_dir}; releases are never changed")
    now = checked or dt.datetime.now(dt.timezone.utc)
    updated = last_updated(board)
    frozen = releases.manifest(board, release, provenance, now) if release is not None else None
    listed = releases.load(releases_dir, frozen)
    latest = next((r for r in reversed(listed) if r.manifest is not None), None)
    unreleased = []
    if latest is not None and latest.name != release:
        unreleased = releases.changes(latest.manifest or {}, releases.summary(board)) or [
            "no change in the headline results"
        ]
    context = {
        "board": board,
        "provenance": provenance,
        "updated": updated,
        "checked": {"time": now.strftime("%Y-%m-%d %H:%M UTC"), "git_sha": provenance.get("git_sha") or ""},
        "releases": listed,
        "unreleased": unreleased,
        "release": None,
        "runs": runs or {},
        "board_bibtex": board_bibtex(
            provenance,
            updated,
            rendered_year=now.strftime("%Y"),
            published=any(cv.published for row in board.rows for cv in row.cells.values()),
        ),
        "has_downloads": downloads is not None,  # pages link the downloads only where this render writes them
    }
    written = write_pages(env, board, out, context, instances, thumbnails, fill, workers)
    written.append(write_manifest(board, out))
    if downloads is not None:
        written += downloads(out)
    if release is not None and frozen is not None:
        target = releases_dir / release
        frozen_context = context | {
            "release": release,
            "releases": [],
            "unreleased": [],
            "checked": None,
            "board_bibtex": board_bibtex(provenance, frozen["time"], release),
        }
        # the browser's files are the live site's: copied, not made again from the cells' records
        write_pages(env, board, target, frozen_context, instances, thumbnails, fill, workers, browsed_in=out)
        write_manifest(board, target)
        (target / releases.MANIFEST).write_text(json.dumps(frozen, indent=1, sort_keys=True), encoding="utf-8")
        if downloads is not None:
            downloads(target)
        written.append(target)
    return written


def last_updated(board: Board) -> str:
    """When the newest published cell was completed (stored ``created_at``), as the pages show it;
    empty while nothing is published."""
    times = [cv.cell.created_at for row in board.rows for cv in row.cells.values() if cv.published and cv.cell]
    newest = max((t for t in times if t), default="")
    if not newest:
        return ""
    try:
        when = dt.datetime.fromisoformat(newest)
    except ValueError:
        return newest
    if when.tzinfo is not None:
        when = when.astimezone(dt.timezone.utc)
    return when.strftime("%Y-%m-%d %H:%M UTC")


__all__ = [
    "CSP",
    "METRIC_TITLES",
    "SCORE_METRICS",
    "benchmark_context",
    "environment",
    "index_context",
    "last_updated",
    "metric_diff",
    "metric_title",
    "metric_tooltip",
    "metric_unit",
    "metric_value",
    "model_context",
    "pct",
    "render_site",
    "slug",
]
