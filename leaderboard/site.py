"""Rendering the board to a static site with Jinja2 (autoescape on: every string is untrusted).

``site/index.html``, ``site/benchmarks/<id>.html``, ``site/models/<id>.html`` and ``site/static/``.
Templates can be overridden per file from extra folders (``--templates DIR`` or
``$VLC_HARNESS_TEMPLATES``), searched before the built-in ones.
"""

from __future__ import annotations

import datetime as dt
import math
import os
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from leaderboard.board import BenchmarkColumn, Board, Row
from leaderboard.svg import gap_bar, scatter

TEMPLATES = Path(__file__).with_name("templates")
STATIC = Path(__file__).with_name("static")
ENV_TEMPLATES = "VLC_HARNESS_TEMPLATES"


def slug(text: str) -> str:
    """A file-name-safe form of an id (ids may hold ``:``, ``/`` or spaces)."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("_") or "_"


def pct(value: float | None, digits: int = 1) -> str:
    """A fraction as a percentage with ``digits`` decimals ('' for None/NaN)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return f"{100 * value:.{digits}f}"


def environment(extra_templates: list[Path] | None = None) -> Any:
    """The Jinja2 environment: autoescape for every template, extra template folders first."""
    import jinja2

    folders = [*(extra_templates or [])]
    if os.environ.get(ENV_TEMPLATES):
        folders += [Path(p) for p in os.environ[ENV_TEMPLATES].split(os.pathsep) if p]
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader([*map(str, folders), str(TEMPLATES)]),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["pct"] = pct
    env.filters["slug"] = slug
    env.globals.update(gap_bar=gap_bar, scatter=scatter)
    return env


def render_site(
    board: Board,
    out: Path,
    provenance: dict[str, Any],
    release: str | None = None,
    extra_templates: list[Path] | None = None,
    runs: dict[int, dict[str, Any]] | None = None,
    downloads: Callable[[Path], list[Path]] | None = None,
) -> list[Path]:
    """Write the site into ``out``; with ``release``, also freeze a copy in ``out/releases/NAME``."""
    env = environment(extra_templates)
    out.mkdir(parents=True, exist_ok=True)
    releases_dir = out / "releases"
    if release is not None:
        if slug(release) != release:
            raise ValueError(f"release name {release!r} may only hold letters, digits, '.', '_' and '-'")
        if (releases_dir / release).exists():
            raise FileExistsError(f"release {release} already exists in {releases_dir}; releases are never changed")
    releases = sorted(p.name for p in releases_dir.iterdir() if p.is_dir()) if releases_dir.is_dir() else []
    if release is not None:
        releases = sorted({*releases, release})
    context = {
        "board": board,
        "provenance": provenance,
        "generated": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "releases": releases,
        "release": None,
        "runs": runs or {},
    }
    written = _write_pages(env, board, out, context)
    if downloads is not None:
        written += downloads(out)
    if release is not None:
        target = releases_dir / release
        _write_pages(env, board, target, context | {"release": release, "releases": []})
        if downloads is not None:
            downloads(target)
        written.append(target)
    return written


def _write_pages(env: Any, board: Board, out: Path, context: dict[str, Any]) -> list[Path]:
    (out / "benchmarks").mkdir(parents=True, exist_ok=True)
    (out / "models").mkdir(parents=True, exist_ok=True)
    if (out / "static").exists():
        shutil.rmtree(out / "static")
    shutil.copytree(STATIC, out / "static")
    written = [_page(env, "index.html", out / "index.html", context | {"root": "."})]
    for col in board.benchmarks:
        page = out / "benchmarks" / f"{slug(col.id)}.html"
        written.append(_page(env, "benchmark.html", page, context | {"root": "..", **benchmark_context(board, col)}))
    for row in board.rows:
        page = out / "models" / f"{slug(row.id)}.html"
        written.append(_page(env, "model.html", page, context | {"root": "..", **model_context(board, row)}))
    return written


def _page(env: Any, template: str, path: Path, context: dict[str, Any]) -> Path:
    path.write_text(env.get_template(template).render(**context), encoding="utf-8")
    return path


def benchmark_context(board: Board, col: BenchmarkColumn) -> dict[str, Any]:
    """Per metric: the categories present and every published model's value per category."""
    published = [r for r in board.rows if r.cells.get(col.id) and r.cells[col.id].published]
    tables = []
    for spec in col.specs.values():
        categories: list[str] = []
        values: dict[str, dict[str, dict[str, Any]]] = {}
        for row in published:
            cell = row.cells[col.id].cell
            assert cell is not None
            for m in cell.metrics:
                if m["metric"] != spec.id:
                    continue
                if m["category"] not in categories:
                    categories.append(m["category"])
                values.setdefault(row.id, {})[m["category"]] = m
        if not categories:
            continue
        categories.sort(key=lambda c: (c != "all", c))
        paper: dict[str, dict[str, dict[str, Any]]] = {}
        for row in published:
            match = row.meta.get("paper_match")
            for ref in col.references:
                if match and ref.matches == match and ref.metric == spec.id and ref.category in categories:
                    ours = values.get(row.id, {}).get(ref.category)
                    diff = None if ours is None else float(ours["value"]) - ref.value
                    paper.setdefault(row.id, {})[ref.category] = {"value": ref.value, "diff": diff, "table": ref.table}
        references = [r for r in col.references if r.metric == spec.id and r.category in categories]
        sources: dict[str, dict[str, Any]] = {}
        for r in references:
            sources.setdefault(f"{r.source} [{r.table}]", {"row": r, "values": {}})["values"][r.category] = r.value
        tables.append(
            {
                "spec": spec,
                "categories": categories,
                "values": values,
                "paper": paper,
                "references": list(sources.values()),
            }
        )
    points = []
    if col.gap:
        for row in published:
            vals = row.cells[col.id].values
            if all(m in vals for m in col.gap):
                points.append((row.name, vals[col.gap[0]].value, vals[col.gap[1]].value, row.kind))
    humans = {(r.metric, r.category): r.value for r in col.references if r.matches == "human"}
    human_point = None
    if col.gap and all((m, "all") in humans for m in col.gap):
        human_point = (humans[(col.gap[0], "all")], humans[(col.gap[1], "all")])
    chance_point = None
    if col.gap and all(col.specs.get(m) and col.specs[m].chance is not None for m in col.gap):
        chance_point = (col.specs[col.gap[0]].chance, col.specs[col.gap[1]].chance)
    return {
        "col": col,
        "published": published,
        "tables": tables,
        "plot": scatter(points, human_point, chance_point, col.gap) if col.gap and points else "",
    }


def model_context(board: Board, row: Row) -> dict[str, Any]:
    """The model's metadata, its cells' provenance and every metric."""
    cells = [(col, row.cells[col.id]) for col in board.benchmarks if col.id in row.cells]
    return {"row": row, "cells": cells}
