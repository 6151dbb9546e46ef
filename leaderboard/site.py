"""Rendering the board to a static site with Jinja2 (autoescape on: every string is untrusted).

``site/index.html``, ``site/compare.html``, ``site/benchmarks/<id>.html``, ``site/models/<id>.html``,
``site/static/``, ``site/cite.bib`` and the page data under ``site/data/``: ``index.js`` (the index's
columns for ``static/board.js``), ``compare.js`` (values and pair verdicts for ``static/compare.js``),
and, when ``render`` could read the benchmarks' data, ``instances/<benchmark>.js`` and
``correct/<model>.js`` for the instance browser. Page data travels as scripts loaded with
``<script src>``, since ``fetch()`` fails under ``file://``. Every page carries a strict
Content-Security-Policy: no inline script, style or handler runs. A release (``--release NAME``) is a
frozen copy under ``site/releases/NAME/`` with its ``release.json`` (:mod:`vlc_leaderboard.releases`).
Templates can be overridden per file from extra folders (``--templates DIR`` or
``$VLC_HARNESS_TEMPLATES``), searched before the built-in ones.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from vlc_leaderboard import releases
from vlc_leaderboard.board import BenchmarkColumn, Board
from vlc_leaderboard.cite import board_bibtex
from vlc_leaderboard.compare import BenchmarkInstances, compare_data, copy_images, instance_scripts
from vlc_leaderboard.fmt import (
    METRIC_TITLES,
    SCORE_METRICS,
    metric_diff,
    metric_title,
    metric_tooltip,
    metric_unit,
    metric_value,
    number,
    pct,
    slug,
)
from vlc_leaderboard.pages import benchmark_context, model_context
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
COMPARE_DATA = "data/compare.js"
"""The compare view's values and pair codes (``window.vlcCompare``)."""


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
    env.filters["number"] = number
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
    instances: dict[str, BenchmarkInstances] | None = None,
) -> list[Path]:
    """Write the site into ``out``; with ``release``, also freeze a copy in ``out/releases/NAME``.

    ``instances`` (from :func:`vlc_leaderboard.compare.instance_results`) feeds the compare view's
    instance browser; without it the browser says that per-instance results are not in this build.
    """
    env = environment(extra_templates)
    out.mkdir(parents=True, exist_ok=True)
    releases_dir = out / "releases"
    if release is not None:
        if slug(release) != release:
            raise ValueError(f"release name {release!r} may only hold letters, digits, '.', '_' and '-'")
        if (releases_dir / release).exists():
            raise FileExistsError(f"release {release} already exists in {releases_dir}; releases are never changed")
    now = dt.datetime.now(dt.timezone.utc)
    generated = now.strftime("%Y-%m-%d %H:%M UTC")
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
        "generated": generated,
        "releases": listed,
        "unreleased": unreleased,
        "release": None,
        "runs": runs or {},
        "board_bibtex": board_bibtex(provenance, generated),
    }
    written = _write_pages(env, board, out, context, instances)
    if downloads is not None:
        written += downloads(out)
    if release is not None and frozen is not None:
        target = releases_dir / release
        frozen_context = context | {
            "release": release,
            "releases": [],
            "unreleased": [],
            "board_bibtex": board_bibtex(provenance, generated, release),
        }
        _write_pages(env, board, target, frozen_context, instances)
        (target / releases.MANIFEST).write_text(json.dumps(frozen, indent=1, sort_keys=True), encoding="utf-8")
        if downloads is not None:
            downloads(target)
        written.append(target)
    return written


def _write_pages(
    env: Any, board: Board, out: Path, context: dict[str, Any], instances: dict[str, BenchmarkInstances] | None
) -> list[Path]:
    (out / "benchmarks").mkdir(parents=True, exist_ok=True)
    (out / "models").mkdir(parents=True, exist_ok=True)
    if (out / "static").exists():
        shutil.rmtree(out / "static")
    shutil.copytree(STATIC, out / "static")
    if (out / "data").exists():
        shutil.rmtree(out / "data")
    index = index_context(board)
    (out / INDEX_DATA).parent.mkdir(parents=True, exist_ok=True)
    (out / INDEX_DATA).write_text(_data_script(index["page_data"]), encoding="utf-8")
    written = [_page(env, "index.html", out / "index.html", context | {"root": ".", **index})]
    bibtex = [context["board_bibtex"]]
    for col in board.benchmarks:
        page = out / "benchmarks" / f"{slug(col.id)}.html"
        details = benchmark_context(board, col)
        if details["bibtex"]:
            bibtex.append(details["bibtex"])
        written.append(_page(env, "benchmark.html", page, context | {"root": "..", **details}))
    for row in board.rows:
        page = out / "models" / f"{row.slug}.html"
        written.append(_page(env, "model.html", page, context | {"root": "..", **model_context(board, row)}))
    (out / "cite.bib").write_text("\n\n".join(dict.fromkeys(bibtex)) + "\n", encoding="utf-8")
    written += _write_compare(env, board, out, context, instances)
    return written


def _write_compare(
    env: Any, board: Board, out: Path, context: dict[str, Any], instances: dict[str, BenchmarkInstances] | None
) -> list[Path]:
    """The compare page and its data: values and pair codes, instance lists, model bitsets."""
    data = compare_data(board)
    per_bench, per_model, copies = instance_scripts(board, instances or {}, out)
    data["instances"] = {bench_id: f"data/instances/{slug(bench_id)}.js" for bench_id in per_bench}
    data["correct"] = {model: f"data/correct/{model}.js" for model in per_model}
    (out / COMPARE_DATA).write_text(_data_script(data, "vlcCompare"), encoding="utf-8")
    for bench_id, entry in per_bench.items():
        path = out / data["instances"][bench_id]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(_data_script({"id": bench_id, **entry}, "vlcInstances", keyed=bench_id), encoding="utf-8")
    for model, entry in per_model.items():
        path = out / data["correct"][model]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(_data_script(entry, "vlcCorrect", keyed=model), encoding="utf-8")
    copy_images(copies)
    page = {"root": ".", "compare_data": COMPARE_DATA, "has_instances": bool(per_bench)}
    return [_page(env, "compare.html", out / "compare.html", context | page)]


def _page(env: Any, template: str, path: Path, context: dict[str, Any]) -> Path:
    path.write_text(env.get_template(template).render(**context), encoding="utf-8")
    return path


@dataclass(frozen=True)
class IndexColumn:
    """One column of the index table, as the template and ``static/board.js`` see it."""

    key: str
    """Stable id, used in permalinks: ``model``, ``overall``, ``family``, ``params``, ``open``,
    ``<benchmark>.<metric>``, ``<benchmark>.gap`` or ``<benchmark>.~<category>`` (a drilldown)."""
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
    """Hidden until the reader shows it with the column chooser (or the drilldown toggle)."""
    label: str = ""
    """The column's name in the phone layout's cards (benchmark and title)."""
    drill: str = ""
    """For a drilldown column: the benchmark's key prefix (its toggle shows and hides them together)."""
    category: str = ""


MODEL_COLUMNS = (
    IndexColumn("model", "Model", "the model's display name", "text"),
    IndexColumn(
        "overall",
        "Mean rank",
        "the mean of the model's headline ranks over the benchmarks that rank models",
        "num",
        "lower",
        label="Overall",
    ),
    IndexColumn("family", "Family", "model family", "text", hidden=True, label="Family"),
    IndexColumn("params", "Params (M)", "parameters, millions", "num", label="Params (M)"),
    IndexColumn("open", "Open weights", "weights published", "text", hidden=True, label="Open weights"),
)
DEFAULT_SORT = "overall"
"""The index's order until the reader picks another: the overall column, best first."""


def drill_label(col: BenchmarkColumn) -> str:
    """The drilldown toggle's words: ``7 subsets`` for a macro's parts, else ``10 categories``."""
    if col.drill is None:
        return ""
    count = len(col.drill.categories)
    headline = col.metrics[0].metric if col.metrics else ""
    unit = col.drill.unit if col.drill.metric != headline and col.drill.unit else "category"
    plural = unit[:-1] + "ies" if unit.endswith("y") else unit + "s"
    return f"{count} {unit if count == 1 else plural}"


def index_context(board: Board) -> dict[str, Any]:
    """The index's columns: the model's own, then per benchmark its metrics, its gap and its
    drilldown (hidden until toggled)."""
    groups = []
    keys: set[str] = {c.key for c in MODEL_COLUMNS}
    for col in board.benchmarks:
        base = slug(col.id)
        while any(k.startswith(base + ".") for k in keys):
            base += "_"
        metric_columns = [
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
        gap_columns = []
        if col.gap:
            title = f"{metric_title(col.gap[0])} − {metric_title(col.gap[1])}"
            gap_columns.append(
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
        drill_columns = []
        if col.drill is not None:
            spec = col.specs.get(col.drill.metric)
            for category in col.drill.categories:
                drill_columns.append(
                    IndexColumn(
                        f"{base}.~{category}",
                        category,
                        f"{metric_title(col.drill.metric)} on {category} ({col.drill.metric})",
                        "num",
                        "higher" if spec is None or spec.higher_is_better else "lower",
                        col.title,
                        col.drill.metric,
                        hidden=True,
                        label=f"{col.title} · {category}",
                        drill=base,
                        category=category,
                    )
                )
        columns = metric_columns + gap_columns + drill_columns
        keys.update(c.key for c in columns)
        groups.append(
            {
                "col": col,
                "base": base,
                "columns": columns,
                "metric_columns": metric_columns,
                "drill_columns": drill_columns,
                "drill_label": drill_label(col),
                "keys": " ".join(c.key for c in columns),
            }
        )
    leaves = [*MODEL_COLUMNS, *(c for g in groups for c in g["columns"])]
    page_data = {"columns": [asdict(c) for c in leaves], "defaultSort": DEFAULT_SORT}
    return {
        "model_columns": MODEL_COLUMNS,
        "groups": groups,
        "page_data": page_data,
        "index_data": INDEX_DATA,
        "counted": board.counted,
    }


def _data_script(data: Any, name: str = "vlcBoard", keyed: str | None = None) -> str:
    """Page data as a script for ``<script src>``: ASCII-only JSON (``<`` escaped too) assigned to
    ``window.NAME`` (or, with ``keyed``, to ``window.NAME[keyed]``, for files loaded on demand)."""
    payload = json.dumps(data, ensure_ascii=True, separators=(",", ":")).replace("<", "\\u003c")
    header = f"// Generated by vlc-harness render: page data ({name}) for the site's scripts."
    if keyed is None:
        return f"{header}\nwindow.{name} = {payload};\n"
    key = json.dumps(keyed, ensure_ascii=True).replace("<", "\\u003c")
    return f"{header}\nwindow.{name} = window.{name} || {{}};\nwindow.{name}[{key}] = {payload};\n"


__all__ = [
    "CSP",
    "METRIC_TITLES",
    "SCORE_METRICS",
    "benchmark_context",
    "environment",
    "index_context",
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
