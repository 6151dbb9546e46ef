"""The compare view's data: per-category values and paired-bootstrap significance for every pair
of models, and per-instance correctness as compact bitsets.

Everything is precomputed, so the compare page is static files: ``data/compare.js`` holds, per
benchmark, the headline and index metrics overall and the headline's categories (its drilldown),
each with every model's value and, for every pair of models, whether one is significantly better
on the same resamples (from the stored per-category replicates; pairs over different instances or
resample counts are not compared). Per-instance results need the benchmark's data (the
instances' ids, captions and images) and each cell's verdicts, which the results API reads from
the store (:meth:`vlc_harness.results.StoredResults.verdicts`); ``render`` gathers them
(:func:`instance_results`) and writes ``data/instances/<benchmark>.js`` (ids, categories, captions
and images where the license allows) and ``data/correct/<model>.js`` (base64 bitsets over that
instance order: right, wrong, tie). Values, intervals and replicates are the stored ones
(:mod:`vlc_harness.results`); nothing here computes a metric.
"""

from __future__ import annotations

import base64
import hashlib
import shutil
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from vlc_harness.results import (
    NoVerdicts,
    OutcomesUnreadable,
    StoredResults,
    pairable,
    pairing_key,
    replicates,
    stored_value,
)
from vlc_leaderboard.board import BenchmarkColumn, Board, Row
from vlc_leaderboard.fmt import metric_title, slug
from vlc_leaderboard.public import redact_paths
from vlc_leaderboard.stats import pair_codes

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".gif", ".webp")


def compared_rows(board: Board) -> list[Row]:
    """The models the compare view offers: those with a published cell."""
    return [r for r in board.rows if any(cv.published for cv in r.cells.values())]


def _bits(flags: Iterable[bool]) -> str:
    """Booleans as base64 (bit ``k`` of the list is bit ``k % 8`` of byte ``k // 8``, little-endian)."""
    array = np.fromiter(flags, dtype=bool)
    return base64.b64encode(np.packbits(array, bitorder="little").tobytes()).decode("ascii")


def _lines(col: BenchmarkColumn) -> list[tuple[str, str, str]]:
    """(metric, category, label) of the values compared on a benchmark."""
    out = [(mc.metric, "all", metric_title(mc.metric)) for mc in col.metrics]
    if col.drill is not None:
        out += [(col.drill.metric, c, c) for c in col.drill.categories]
    return out


def compare_data(board: Board) -> dict[str, Any]:
    """``window.vlcCompare``: models, and per benchmark its compared values and pair codes."""
    rows = compared_rows(board)
    benchmarks = []
    for col in board.benchmarks:
        cells = [r.cells.get(col.id) for r in rows]
        if not any(cv is not None and cv.published for cv in cells):
            continue
        lines = []
        for metric, category, label in _lines(col):
            spec = col.specs.get(metric)
            higher = spec.higher_is_better if spec is not None else True
            values: list[float | None] = []
            intervals: list[list[float] | None] = []
            reps: list[np.ndarray | None] = []
            groups: list[Any] = []
            for cv in cells:
                cell = cv.cell if cv is not None and cv.published else None
                found = stored_value(cell, metric, category) if cell is not None else None
                values.append(None if found is None else round(found.value, 6))
                ci = found.ci95 if found is not None else None
                intervals.append([round(float(ci[0]), 6), round(float(ci[1]), 6)] if ci else None)
                array = replicates(cell, metric, category) if cell is not None and found is not None else None
                reps.append(array if pairable(array) else None)
                groups.append(None if array is None or cell is None else pairing_key(cell, array))
            lines.append(
                {
                    "metric": metric,
                    "category": category,
                    "label": label,
                    "better": "higher" if higher else "lower",
                    "unit": "score" if metric.startswith("mean_score") else "percent",
                    "values": values,
                    "ci": intervals,
                    "pairs": pair_codes(reps, groups, higher),
                }
            )
        ties = {}
        for i, cv in enumerate(cells):
            head = cv.values.get(col.metrics[0].metric) if cv is not None and cv.published and col.metrics else None
            if head is not None and head.tie_heavy:
                ties[str(i)] = round(head.tie_share, 4)
        benchmarks.append({"id": col.id, "title": col.title, "slug": slug(col.id), "lines": lines, "tieHeavy": ties})
    return {
        "models": [
            {
                "id": r.slug,  # unique and file-safe: the compare view's permalinks use it
                "slug": r.slug,
                "name": r.name,
                "kind": r.kind,
                "family": str(r.meta.get("family") or ""),
            }
            for r in rows
        ],
        "benchmarks": benchmarks,
    }


@dataclass
class BenchmarkInstances:
    """One benchmark's instances for the browser, and each model's results on them."""

    benchmark: str
    metric: str
    ids: list[str]
    categories: list[str]
    texts: list[list[str]] | None = None
    images: list[list[Path]] | None = None
    results: dict[str, dict[str, str]] = field(default_factory=dict)
    """Model id -> {"right": bits, "wrong": bits, "tie": bits} over :attr:`ids`."""


def instance_results(board: Board, results: StoredResults, data_root: Path | None) -> dict[str, BenchmarkInstances]:
    """Per benchmark whose data is at hand: which instances each published model gets right.

    Correctness is the headline's per-instance verdict from the results API (derived from the
    stored outcomes under the benchmark's own tie rule; a tie is marked separately); benchmarks
    scored by a ranking statistic (ROC AUC) have no per-instance verdicts and are left out.
    """
    out: dict[str, BenchmarkInstances] = {}
    if data_root is None:
        return out
    for col in board.benchmarks:
        bench = col.benchmark
        published = [(r, r.cells[col.id].cell) for r in board.rows if r.cells.get(col.id) and r.cells[col.id].published]
        if bench is None or not published or not col.metrics:
            continue
        try:
            copy = type(bench)(bench.params, data_root)
            copy.check_data()
            instances = copy.load_instances()
        except Exception:  # the data is not here: the browser says so
            continue
        by_id = {inst.id: inst for inst in instances}
        order: list[str] = []
        found: dict[str, dict[str, tuple[bool, bool, bool]]] = {}
        for row, cell in published:
            try:
                verdicts = results.verdicts(cell, copy, instances, col.metrics[0].metric)
            except OutcomesUnreadable:  # outcomes this declaration cannot read: no browser for this cell
                continue
            except NoVerdicts:  # a ranking statistic: no instance is right or wrong on its own
                break
            if verdicts is None:
                continue
            found[row.id] = {
                iid: (bool(verdicts.full_credit[k]), bool(verdicts.no_credit[k]), bool(verdicts.tied[k]))
                for k, iid in enumerate(verdicts.ids)
            }
            for iid in verdicts.ids:
                if iid not in order:
                    order.append(iid)
        if not found:
            continue
        position = {iid: k for k, iid in enumerate(order)}
        metric = col.drill.metric if col.drill is not None else col.metrics[0].metric
        result = BenchmarkInstances(col.id, metric, order, [by_id[i].category for i in order])
        if bench.captions_redistributable:
            result.texts = [list(by_id[i].texts) for i in order]
        if getattr(bench, "images_redistributable", False):
            result.images = [[src.path for src in by_id[i].images if not src.transform] for i in order]
        for model_id, marks in found.items():
            flags = [[False] * len(order) for _ in range(3)]
            for iid, triple in marks.items():
                for part in range(3):
                    flags[part][position[iid]] = triple[part]
            result.results[model_id] = {name: _bits(flags[k]) for k, name in enumerate(("right", "wrong", "tie"))}
        out[col.id] = result
    return out


def instance_scripts(
    board: Board, instances: dict[str, BenchmarkInstances], out: Path
) -> tuple[dict[str, dict[str, Any]], dict[str, dict[str, Any]], list[tuple[Path, Path]]]:
    """The browser's page data: per benchmark (ids, categories, texts, image files), per model
    (bitsets), and the images to copy as (source, target) pairs."""
    per_bench: dict[str, dict[str, Any]] = {}
    per_model: dict[str, dict[str, Any]] = {}
    copies: list[tuple[Path, Path]] = []
    slugs = {r.id: r.slug for r in board.rows}
    for bench_id, data in instances.items():
        entry: dict[str, Any] = {
            "metric": data.metric,
            "ids": [redact_paths(i) for i in data.ids],
            "categories": data.categories,
        }
        if data.texts is not None:
            entry["texts"] = data.texts
        if data.images is not None:
            files = []
            for paths in data.images:
                names = []
                for path in paths:
                    if path.suffix.lower() not in IMAGE_SUFFIXES or not path.is_file():
                        continue
                    digest = hashlib.sha256(str(path).encode("utf-8")).hexdigest()[:16]
                    name = f"data/images/{slug(bench_id)}/{digest}{path.suffix.lower()}"
                    copies.append((path, out / name))
                    names.append(name)
                files.append(names)
            entry["images"] = files
        per_bench[bench_id] = entry
        for model_id, bits in data.results.items():
            per_model.setdefault(slugs.get(model_id, model_id), {})[bench_id] = bits
    return per_bench, per_model, copies


def copy_images(copies: list[tuple[Path, Path]]) -> None:
    """Copy the browser's images into the site (skipping those already there)."""
    for source, target in copies:
        if target.exists():
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
