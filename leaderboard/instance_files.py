"""The instance browser's page data, written within a size budget and loaded on demand.

Per benchmark ``B`` (file-safe slug) and published model ``M`` (its page slug), under ``data/instances/B/``:

* ``index.js``: the instance count, category names, the shards (consecutive instance ranges), which
  models have results, the verdict letters and the budget (``window.vlcInstances[B]``);
* ``shard-K.js``: shard ``K``'s instances: ``i`` id, ``c`` category index, ``t`` captions (only where
  ``captions_redistributable``), ``r`` each caption's role, ``g`` the gold (image, caption) cells, ``m``
  the images as ``[name, source link, thumbnail, role]``, ``q`` multiple-choice questions
  (``window.vlcShards["B#K"]``);
* ``img/<sha256>.png``: thumbnails, only where ``images_redistributable``
  (:mod:`vlc_leaderboard.thumbnails`: made from the image file, or given as bytes, made beforehand);
* ``models/M.js``: M's verdict on every instance, one letter each (``window.vlcVerdicts["B#M"]``), what the
  browser filters on;
* ``models/M/shard-K.js``: M's stored scores on shard ``K``'s instances at the browser's display precision,
  5 significant digits (the verdicts come from the exact stored scores; the scores downloads keep them as
  stored), text-text scores and answers where stored (``window.vlcScores["B#M#K"]``). Scores (``s``) and
  text-text scores (``x``) are packed, 3 bytes a score in base64 (:mod:`vlc_leaderboard.score_packing`).

The budget (:data:`BUDGET`): no file over :attr:`Budget.max_file_bytes`; a shard holds at most
:attr:`Budget.shard_instances` instances and is cut earlier where its instances' data would pass the
cap. A file that would still pass it (one instance bigger than the cap, a model's scores on a shard,
a verdict string of over a million instances) is not written, and the page says which instances or
models it leaves out. The browser loads a benchmark's index and the picked models' verdict files,
then only the shards that hold the instances it shows, at most :attr:`Budget.shards_per_view` more
per view.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from vlc_leaderboard.board import Board
from vlc_leaderboard.downloads import ScoresFiles
from vlc_leaderboard.fanout import SERIAL, Workers
from vlc_leaderboard.fmt import metric_title, slug
from vlc_leaderboard.instance_arrays import with_results
from vlc_leaderboard.instances import VERDICT_LETTERS, BenchmarkInstances, ModelInstances, published_cells
from vlc_leaderboard.public import redact_paths
from vlc_leaderboard.score_packing import pack_trimmed
from vlc_leaderboard.site_policy import data_header
from vlc_leaderboard.thumbnails import thumbnail

FOLDER = "data/instances"


@dataclass(frozen=True)
class Budget:
    """The size budget of the browser's page data."""

    max_file_bytes: int = 1_048_576
    """No data file is larger (1 MiB)."""
    shard_instances: int = 2_000
    """Instances per shard, at most."""
    shards_per_view: int = 4
    """Shards the browser loads at most for one view (a page of instances, or "show more")."""


BUDGET = Budget()
OVER_INDEX = "its instance index is over the size budget"


def write_instance_files(
    board: Board,
    instances: dict[str, BenchmarkInstances],
    out: Path,
    thumbnails: Mapping[str, bytes] | None = None,
    fill: ScoresFiles | None = None,
    workers: Workers = SERIAL,
) -> tuple[dict[str, str], dict[str, str]]:
    """Write every benchmark's browser files under ``out``; returns (benchmark id -> its index file,
    benchmark id -> why it has no browser). ``thumbnails``: the bytes of the thumbnails the image entries
    name (:attr:`~vlc_leaderboard.instances.ImageEntry.thumbnail`). ``fill``: the models' results are not in
    ``instances`` yet, but read from their cells' records (each cell's scores file written from the same read).
    With several ``workers``, each benchmark's instance shards are written by one of them, then its models'
    files by several where it is large (:func:`model_parts`: no worker waits on one benchmark alone), the
    largest first; its index is written here, from what they return."""
    budget = BUDGET
    slugs = {r.id: r.slug for r in board.rows}
    browsed = [b for b, data in instances.items() if not data.missing]

    def benchmark_files(bench_id: str) -> dict[str, Any]:
        return _write_benchmark(instances[bench_id], out, _folder(bench_id), budget, thumbnails or {})

    sizes = [len(instances[b].ids) for b in browsed]
    indexes = dict(zip(browsed, workers.map(benchmark_files, browsed, sizes)))

    def model_files(part: tuple[str, list[str]]) -> tuple[dict[str, Any], dict[int, Path]]:
        bench_id, models = part
        data = dataclasses.replace(instances[bench_id], models={m: instances[bench_id].models[m] for m in models})
        before = set(fill.written) if fill is not None else set()
        if fill is not None:
            data = with_results(data, published_cells(board, bench_id), fill.records)
        shapes = _shape_arrays(data)
        written = {
            slugs.get(m, m): _write_model(bench_id, slugs.get(m, m), model, shapes, indexes[bench_id], out, budget)
            for m, model in data.models.items()
        }
        return written, ({k: v for k, v in fill.written.items() if k not in before} if fill is not None else {})

    parts = model_parts({b: list(instances[b].models) for b in browsed}, dict(zip(browsed, sizes)), workers.jobs)
    done = workers.map(model_files, parts, [len(instances[b].ids) * max(1, len(models)) for b, models in parts])
    for (bench_id, _), (models, scores) in zip(parts, done):  # the parts of a benchmark hold its models in order
        indexes[bench_id].setdefault("models", {}).update(models)
        if fill is not None:
            fill.written |= scores  # what the worker wrote: not written again (write_downloads)
    indexes_written, missing = {}, {}
    for bench_id, data in instances.items():
        if data.missing:
            missing[bench_id] = data.missing
            continue
        index = indexes[bench_id]
        index.setdefault("models", {})
        if _write(out / _folder(bench_id) / "index.js", index, "vlcInstances", bench_id, budget):
            indexes_written[bench_id] = f"{_folder(bench_id)}/index.js"
        else:
            missing[bench_id] = OVER_INDEX
    return indexes_written, missing


def model_parts(models: Mapping[str, list[str]], sizes: Mapping[str, int], jobs: int) -> list[tuple[str, list[str]]]:
    """Each benchmark's models cut into consecutive parts, one worker's item each: with one job, one part a
    benchmark; else parts of about a quarter of a worker's share of the whole (instances x models), so that a
    benchmark holding half the instances (VL-CheckList's) is spread over the workers."""
    total = sum(sizes[b] * len(ms) for b, ms in models.items())
    target = total / (4 * jobs) if jobs > 1 else float("inf")
    parts = []
    for bench_id, ms in models.items():
        count = max(1, min(len(ms), round(sizes[bench_id] * len(ms) / target))) if target else 1
        step = max(1, -(-len(ms) // count))  # ceiling: at most count parts
        parts += [(bench_id, ms[k : k + step]) for k in range(0, len(ms), step)] or [(bench_id, [])]
    return parts


def _folder(bench_id: str) -> str:
    return f"{FOLDER}/{slug(bench_id)}"


def copy_instance_files(
    instances: dict[str, BenchmarkInstances], written: Path, out: Path
) -> tuple[dict[str, str], dict[str, str]]:
    """The browser files :func:`write_instance_files` wrote for ``instances`` under ``written`` (the live site, in
    this render), copied under ``out`` (a release frozen in it): the same bytes, without reading the cells'
    records again; returns what :func:`write_instance_files` returned there."""
    if (written / FOLDER).is_dir():
        shutil.copytree(written / FOLDER, out / FOLDER, copy_function=shutil.copyfile)
    indexes, missing = {}, {}
    for bench_id, data in instances.items():
        index = f"{FOLDER}/{slug(bench_id)}/index.js"
        if data.missing:
            missing[bench_id] = data.missing
        elif (out / index).is_file():
            indexes[bench_id] = index
        else:
            missing[bench_id] = OVER_INDEX
    return indexes, missing


def data_script(data: Any, name: str, keyed: str) -> str:
    """Page data for ``<script src>``: ASCII-only JSON (``<`` escaped) assigned to ``window.NAME[keyed]``."""
    payload = json.dumps(data, ensure_ascii=True, separators=(",", ":")).replace("<", "\\u003c")
    key = json.dumps(keyed, ensure_ascii=True).replace("<", "\\u003c")
    return f"{data_header(name)}\nwindow.{name} = window.{name} || {{}};\nwindow.{name}[{key}] = {payload};\n"


def _write(path: Path, data: Any, name: str, keyed: str, budget: Budget) -> bool:
    """Write a data script unless it is over the budget's cap; whether it was written."""
    text = data_script(data, name, keyed).encode("ascii")
    if len(text) > budget.max_file_bytes:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text)
    return True


def _write_benchmark(
    data: BenchmarkInstances, out: Path, folder: str, budget: Budget, thumbnails: Mapping[str, bytes]
) -> dict[str, Any]:
    """The benchmark's shards and thumbnails; the index without its models."""
    categories = list(dict.fromkeys(data.categories))
    category_index = {c: k for k, c in enumerate(categories)}
    entries = [_entry(data, k, category_index, out, folder, thumbnails) for k in range(len(data.ids))]
    bounds = _shards([len(json.dumps(e, ensure_ascii=True, separators=(",", ":"))) + 1 for e in entries], budget)
    shards = []
    for k, (start, end) in enumerate(bounds):
        path = f"{folder}/shard-{k}.js"
        shard = {"start": start, "items": entries[start:end]}
        written = _write(out / path, shard, "vlcShards", f"{data.benchmark}#{k}", budget)
        shards.append({"start": start, "end": end, "file": path if written else None})
    spans: dict[str, list[int]] = {}
    for k, (start, end) in enumerate(bounds):
        for name in dict.fromkeys(data.categories[start:end]):
            spans.setdefault(name, [k, k])[1] = k
    images = "thumbnails" if any(e.source or e.thumbnail for row in data.images for e in row) else "names"
    return {
        "id": data.benchmark,
        "metric": data.metric,
        "metricTitle": metric_title(data.metric),
        "tieRule": data.tie_rule,
        "count": len(data.ids),
        "categories": categories,
        "categoryShards": spans,
        "shards": shards,
        "captions": data.captions is not None,
        "images": images,
        "letters": VERDICT_LETTERS,
        "budget": {
            "maxFileBytes": budget.max_file_bytes,
            "shardInstances": budget.shard_instances,
            "shardsPerView": budget.shards_per_view,
        },
    }


def _shards(sizes: list[int], budget: Budget) -> list[tuple[int, int]]:
    """Consecutive ``(start, end)`` ranges: at most ``shard_instances`` each, cut before passing the cap."""
    room = budget.max_file_bytes - 512  # the script's header and the shard's own keys
    bounds, start, used = [], 0, 0
    for k, size in enumerate(sizes):
        if k > start and (k - start >= budget.shard_instances or used + size > room):
            bounds.append((start, k))
            start, used = k, 0
        used += size
    if sizes:
        bounds.append((start, len(sizes)))
    return bounds


def _entry(
    data: BenchmarkInstances,
    k: int,
    categories: dict[str, int],
    out: Path,
    folder: str,
    thumbnails: Mapping[str, bytes],
) -> dict[str, Any]:
    """One instance as its shard holds it (short keys: a benchmark may have 100,000 instances)."""
    entry: dict[str, Any] = {"i": redact_paths(data.ids[k]), "c": categories[data.categories[k]]}
    if data.captions is not None:
        entry["t"] = data.captions[k]
    entry["r"] = data.roles[k]
    entry["g"] = data.gold[k]
    images = []
    for image in data.images[k]:
        thumb = None
        if image.thumbnail is not None or image.source is not None:
            if image.thumbnail is not None:
                name, png = image.thumbnail, thumbnails[image.thumbnail]
            else:
                assert image.source is not None
                name, png = thumbnail(image.source)
            thumb = f"{folder}/img/{name}"
            target = out / thumb
            if not target.exists():
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(png)
        images.append([redact_paths(image.name), image.link, thumb, image.role])
    entry["m"] = images
    if data.questions is not None and data.questions[k] is not None:
        entry["q"] = data.questions[k]
    return entry


def _write_model(
    bench_id: str,
    model: str,
    results: ModelInstances,
    shapes: tuple[np.ndarray, np.ndarray],
    index: dict[str, Any],
    out: Path,
    budget: Budget,
) -> dict[str, Any]:
    """A model's verdict file and score shards (``shapes``: each instance's image and caption counts); what the
    index says of them."""
    folder = f"{FOLDER}/{slug(bench_id)}/models"
    verdicts = {"verdicts": results.verdicts}
    if not _write(out / folder / f"{model}.js", verdicts, "vlcVerdicts", f"{bench_id}#{model}", budget):
        return {"over": True}
    files: list[str | None] = []
    for k, shard in enumerate(index["shards"]):
        path = f"{folder}/{model}/shard-{k}.js"
        payload = _scores(results, shapes, shard["start"], shard["end"])
        ok = _write(out / path, payload, "vlcScores", f"{bench_id}#{model}#{k}", budget)
        files.append(path if ok else None)
    return {"verdicts": f"{folder}/{model}.js", "scores": files}


def _scores(results: ModelInstances, shapes: tuple[np.ndarray, np.ndarray], start: int, end: int) -> dict[str, Any]:
    """A model's stored scores on instances ``start:end``, each trimmed to the instance's images and captions
    (``shapes``: their counts per instance)."""
    payload: dict[str, Any] = {"start": start}
    rows, cols = shapes[0][start:end], shapes[1][start:end]
    if results.scores is not None:
        payload["s"] = pack_trimmed(results.scores[start:end], rows, cols)
    if results.text_scores is not None:
        payload["x"] = pack_trimmed(results.text_scores[start:end], cols, cols)
    if results.answers:
        payload["a"] = [results.answers.get(k) for k in range(start, end)]
    return payload


def _shape_arrays(data: BenchmarkInstances) -> tuple[np.ndarray, np.ndarray]:
    """Each instance's image and caption counts, as arrays (made once per benchmark for all its models)."""
    images = np.fromiter((len(row) for row in data.images), dtype=np.int64, count=len(data.images))
    captions = np.fromiter((len(row) for row in data.roles), dtype=np.int64, count=len(data.roles))
    return images, captions
