"""Rendering the board to a static site with Jinja2 (autoescape on: every string is untrusted).

``site/index.html``, ``site/benchmarks/<id>.html``, ``site/models/<id>.html``, ``site/static/`` and
``site/data/index.js`` (the index's columns for ``static/board.js``: page data travels as a script
loaded with ``<script src>``, since ``fetch()`` fails under ``file://``). Every page carries a strict
Content-Security-Policy: no inline script, style or handler runs. Templates can be overridden per
file from extra folders (``--templates DIR`` or ``$VLC_HARNESS_TEMPLATES``), searched before the
built-in ones.
"""

from __future__ import annotations

import datetime as dt
import json
import math
import os
import re
import shutil
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from vlc_harness.types import MetricSpec
from vlc_leaderboard.board import BenchmarkColumn, Board, Row
from vlc_leaderboard.svg import gap_bar, scatter

TEMPLATES = Path(__file__).with_name("templates")
STATIC = Path(__file__).with_name("static")
ENV_TEMPLATES = "VLC_HARNESS_TEMPLATES"
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
    "base-uri 'none'; form-action 'none'; object-src 'none'"
)
"""The Content-Security-Policy of every page (a ``<meta>``: no server is needed): scripts, styles and
images from the site's own files only, nothing inline, no plugins, no form posts, no fetches."""
INDEX_DATA = "data/index.js"
"""The index's page data, relative to the site root (loaded with ``<script src>``)."""

METRIC_TITLES = {
    "group_score": "Group score",
    "text_score": "Text score",
    "image_score": "Image score",
    "i2t_score": "I2T score",
    "t2i_score": "T2I score",
    "i2t_accuracy": "I2T accuracy",
    "i2t_accuracy_macro": "I2T accuracy",
    "i2t_accuracy_micro": "I2T accuracy (micro)",
    "t2i_accuracy": "T2I accuracy",
    "t2i_accuracy_macro": "T2I accuracy",
    "auc": "ROC AUC",
    "auc_macro": "ROC AUC",
    "aug_accuracy": "Aug. accuracy",
    "orig_accuracy": "Original accuracy",
    "brittleness": "Brittleness",
    "coverage": "Coverage",
}
"""Short human-readable titles of the common metric ids; others are derived from the id."""
_WORDS = {"i2t": "I2T", "t2i": "T2I", "auc": "AUC", "roc": "ROC", "macro": "(macro)", "micro": "(micro)"}
_VARIANTS = {"_ties_half": "ties broken at random", "_answered": "answered only"}
SCORE_METRICS = ("mean_score",)
"""Metric id prefixes whose values are raw model scores, not fractions (never shown as percent)."""


def slug(text: str) -> str:
    """A file-name-safe form of an id (ids may hold ``:``, ``/`` or spaces)."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("_") or "_"


def pct(value: float | None, digits: int = 1) -> str:
    """A fraction as a percentage with ``digits`` decimals ('' for None/NaN)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return f"{100 * value:.{digits}f}"


def metric_title(metric: str) -> str:
    """A short human-readable title for a metric id (``i2t_accuracy_macro`` -> ``I2T accuracy``)."""
    for suffix, words in _VARIANTS.items():
        if metric.endswith(suffix) and len(metric) > len(suffix):
            return f"{metric_title(metric[: -len(suffix)])} ({words})"
    if metric in METRIC_TITLES:
        return METRIC_TITLES[metric]
    words = [_WORDS.get(w, w) for w in metric.split("_") if w]
    if not words:
        return metric
    return " ".join([words[0][:1].upper() + words[0][1:], *words[1:]])


def metric_tooltip(metric: str, spec: MetricSpec | None) -> str:
    """The metric id with its definition and direction: the tooltip of a metric's title."""
    if spec is None:
        return metric
    better = "higher" if spec.higher_is_better else "lower"
    return f"{metric}: {spec.description} ({better} is better)"


def metric_unit(metric: str) -> str:
    """``percent`` for fractions (shown as percent everywhere), ``score`` for raw model scores."""
    return "score" if metric.startswith(SCORE_METRICS) else "percent"


def metric_value(value: float | None, metric: str, digits: int = 1) -> str:
    """A metric's value as the pages show it: percent for fractions, raw (3 decimals) for scores."""
    if metric_unit(metric) == "percent":
        return pct(value, digits)
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return f"{value:.3f}"


def metric_diff(diff: float | None, metric: str) -> str:
    """A signed difference of two values of a metric, in the unit the pages show it in."""
    if diff is None or (isinstance(diff, float) and math.isnan(diff)):
        return ""
    return f"{100 * diff:+.2f}" if metric_unit(metric) == "percent" else f"{diff:+.3f}"


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
    env.filters["metric_title"] = metric_title
    env.filters["metric_value"] = metric_value
    env.filters["metric_diff"] = metric_diff
    env.globals.update(gap_bar=gap_bar, scatter=scatter, metric_tooltip=metric_tooltip, csp=CSP)
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
    index = index_context(board)
    (out / INDEX_DATA).parent.mkdir(parents=True, exist_ok=True)
    (out / INDEX_DATA).write_text(_data_script(index["page_data"]), encoding="utf-8")
    written = [_page(env, "index.html", out / "index.html", context | {"root": ".", **index})]
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


@dataclass(frozen=True)
class IndexColumn:
    """One column of the index table, as the template and ``static/board.js`` see it."""

    key: str
    """Stable id, used in permalinks: ``model``, ``family``, ``params``, ``open``, ``<benchmark>.<metric>``
    or ``<benchmark>.gap``."""
    title: str
    tooltip: str = ""
    type: str = "num"
    """``num`` or ``text``: how the column sorts."""
    better: str = ""
    """``higher``, ``lower`` or ``""`` (no direction): the first click sorts the better end first."""
    group: str = ""
    """The benchmark's title (``""`` for the model's own columns)."""
    metric: str = ""
    hidden: bool = False
    """Hidden until the reader shows it with the column chooser."""
    label: str = ""
    """The column's name in the phone layout's cards (benchmark and title)."""


MODEL_COLUMNS = (
    IndexColumn("model", "Model", "the model's display name", "text"),
    IndexColumn("family", "Family", "model family", "text", hidden=True, label="Family"),
    IndexColumn("params", "Params (M)", "parameters, millions", "num", label="Params (M)"),
    IndexColumn("open", "Open weights", "weights published", "text", hidden=True, label="Open weights"),
)


def index_context(board: Board) -> dict[str, Any]:
    """The index's columns: the model's own, then per benchmark its metrics and its gap."""
    groups = []
    keys: set[str] = {c.key for c in MODEL_COLUMNS}
    for col in board.benchmarks:
        base = slug(col.id)
        while any(k.startswith(base + ".") for k in keys):
            base += "_"
        columns = [
            IndexColumn(
                f"{base}.{mc.metric}",
                metric_title(mc.metric),
                metric_tooltip(mc.metric, col.specs.get(mc.metric)),
                "num",
                "higher" if mc.higher_is_better else "lower",
                col.title,
                mc.metric,
                label=f"{col.title} · {metric_title(mc.metric)}",
            )
            for mc in col.metrics
        ]
        if col.gap:
            title = f"{metric_title(col.gap[0])} − {metric_title(col.gap[1])}"
            columns.append(
                IndexColumn(
                    f"{base}.gap",
                    "Gap",
                    f"{col.gap[0]} minus {col.gap[1]}: positive when image-to-text is higher ({title})",
                    "num",
                    "",
                    col.title,
                    label=f"{col.title} · I2T − T2I gap",
                )
            )
        keys.update(c.key for c in columns)
        groups.append({"col": col, "columns": columns, "keys": " ".join(c.key for c in columns)})
    leaves = [*MODEL_COLUMNS, *(c for g in groups for c in g["columns"])]
    page_data = {"columns": [asdict(c) for c in leaves]}
    return {"model_columns": MODEL_COLUMNS, "groups": groups, "page_data": page_data, "index_data": INDEX_DATA}


def _data_script(data: dict[str, Any]) -> str:
    """Page data as a script for ``<script src>``: ASCII-only JSON (``<`` escaped too) assigned to
    ``window.vlcBoard``."""
    payload = json.dumps(data, ensure_ascii=True, separators=(",", ":")).replace("<", "\\u003c")
    header = "// Generated by vlc-harness render: the leaderboard's columns, for static/board.js."
    return f"{header}\nwindow.vlcBoard = {payload};\n"


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
