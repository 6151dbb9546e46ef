"""One site tree's files: the static assets, the page data scripts and every page.

Page data travels as scripts loaded with ``<script src>`` (``fetch()`` fails under ``file://``):
``data/index.js`` for the index, ``data/compare.js`` and, when ``render`` could read the
benchmarks' data, ``data/instances/<benchmark>/`` for the compare view's instance browser (per
benchmark and per (benchmark, model), within a size budget: :mod:`vlc_leaderboard.instance_files`).
``cite.bib`` gathers the board's and the benchmarks' BibTeX entries, each once.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from vlc_harness.cards import bibtex_entries
from vlc_leaderboard.board import Board
from vlc_leaderboard.compare import compare_data
from vlc_leaderboard.downloads import ScoresFiles
from vlc_leaderboard.fanout import SERIAL, Workers
from vlc_leaderboard.fmt import slug
from vlc_leaderboard.index_page import INDEX_DATA, index_context
from vlc_leaderboard.instance_files import copy_instance_files, write_instance_files
from vlc_leaderboard.instances import BenchmarkInstances
from vlc_leaderboard.pages import benchmark_context, model_context
from vlc_leaderboard.site_policy import STATIC, data_header

COMPARE_DATA = "data/compare.js"
"""The compare view's values and pair codes (``window.vlcCompare``)."""


def write_pages(
    env: Any,
    board: Board,
    out: Path,
    context: dict[str, Any],
    instances: dict[str, BenchmarkInstances] | None,
    thumbnails: Mapping[str, bytes] | None = None,
    fill: ScoresFiles | None = None,
    workers: Workers = SERIAL,
    browsed_in: Path | None = None,
) -> list[Path]:
    """Write one site tree into ``out`` (the live site or a release's copy): static assets, the index
    and its data, every benchmark and model page, ``cite.bib`` and the compare view.

    ``context["checked"]`` (when this render ran) reaches the index only: every other page depends on
    the stored results alone, so a render that finds nothing new rewrites them byte for byte."""
    with_checked = context
    context = context | {"checked": None}
    (out / "benchmarks").mkdir(parents=True, exist_ok=True)
    (out / "models").mkdir(parents=True, exist_ok=True)
    if (out / "static").exists():
        shutil.rmtree(out / "static")
    (out / "static").mkdir()
    for asset in sorted(STATIC.iterdir()):  # one by one: copytree would gather errors and lose their errno
        shutil.copy2(asset, out / "static" / asset.name)
    if (out / "data").exists():
        shutil.rmtree(out / "data")
    index = index_context(board)
    (out / INDEX_DATA).parent.mkdir(parents=True, exist_ok=True)
    (out / INDEX_DATA).write_text(data_script(index["page_data"]), encoding="utf-8")
    written = [render_page(env, "index.html", out / "index.html", with_checked | {"root": ".", **index})]
    bibtex = [context["board_bibtex"]]
    for col in board.benchmarks:
        page = out / "benchmarks" / f"{slug(col.id)}.html"
        details = benchmark_context(board, col)
        bibtex += bibtex_entries(details["bibtex"])
        written.append(render_page(env, "benchmark.html", page, context | {"root": "..", **details}))
    for row in board.rows:
        page = out / "models" / f"{row.slug}.html"
        written.append(render_page(env, "model.html", page, context | {"root": "..", **model_context(board, row)}))
    (out / "cite.bib").write_text("\n\n".join(dict.fromkeys(bibtex)) + "\n", encoding="utf-8")  # each entry once
    written += write_compare(env, board, out, context, instances, thumbnails, fill, workers, browsed_in)
    return written


def write_compare(
    env: Any,
    board: Board,
    out: Path,
    context: dict[str, Any],
    instances: dict[str, BenchmarkInstances] | None,
    thumbnails: Mapping[str, bytes] | None = None,
    fill: ScoresFiles | None = None,
    workers: Workers = SERIAL,
    browsed_in: Path | None = None,
) -> list[Path]:
    """The compare page and its data: values and pair codes, and the instance browser's files (``fill`` and
    ``workers``: :func:`~vlc_leaderboard.instance_files.write_instance_files`; ``browsed_in``: another tree this
    render wrote them in, copied from there)."""
    data = compare_data(board)
    if browsed_in is not None:
        files = copy_instance_files(instances or {}, browsed_in, out)
    else:
        files = write_instance_files(board, instances or {}, out, thumbnails, fill, workers)
    data["instances"], data["instancesMissing"] = files
    (out / COMPARE_DATA).write_text(data_script(data, "vlcCompare"), encoding="utf-8")
    page = {"root": ".", "compare_data": COMPARE_DATA, "has_instances": bool(data["instances"])}
    return [render_page(env, "compare.html", out / "compare.html", context | page)]


def render_page(env: Any, template: str, path: Path, context: dict[str, Any]) -> Path:
    """Render ``template`` with ``context`` into ``path``."""
    path.write_text(env.get_template(template).render(**context), encoding="utf-8")
    return path


def data_script(data: Any, name: str = "vlcBoard", keyed: str | None = None) -> str:
    """Page data as a script for ``<script src>``: ASCII-only JSON (``<`` escaped too) assigned to
    ``window.NAME`` (or, with ``keyed``, to ``window.NAME[keyed]``, for files loaded on demand)."""
    payload = json.dumps(data, ensure_ascii=True, separators=(",", ":")).replace("<", "\\u003c")
    header = data_header(name)
    if keyed is None:
        return f"{header}\nwindow.{name} = {payload};\n"
    key = json.dumps(keyed, ensure_ascii=True).replace("<", "\\u003c")
    return f"{header}\nwindow.{name} = window.{name} || {{}};\nwindow.{name}[{key}] = {payload};\n"
