"""The instance browser's data, gathered from the store and the benchmarks' data: per benchmark its
instances (ids, categories, captions where the license allows, which caption and image are gold, each
image as a thumbnail source, a source link or a name) and per published model its verdict and stored
scores (or answers) on each instance.

Everything comes from stored results through the results API: each cell's per-instance outcomes
(:meth:`vlc_harness.results.StoredResults.instance_outcomes`) and the headline's per-instance verdicts
derived from them by the engine's own column code under the benchmark's tie rule
(:func:`vlc_harness.results.instance_verdicts`). Nothing here computes a metric.

Two steps: :func:`gather_instances` reads the benchmarks' data and decides each published model's
verdict letters (it needs the benchmarks' plugins: a board bundle carries what it gathers); the
models' scores and answers are then filled in from the cells' outcome records
(:func:`vlc_leaderboard.instance_arrays.with_results`, which needs no plugin).
:mod:`vlc_leaderboard.instance_files` writes the result as the site's page data.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from vlc_harness.results import InstanceVerdicts, NoVerdicts, OutcomesUnreadable, StoredResults, instance_verdicts
from vlc_harness.types import ImageSource, Instance
from vlc_leaderboard.board import Board
from vlc_leaderboard.instance_gold import (
    caption_roles,
    coco_source,
    gold_cells,
    image_name,
    image_roles,
    question_labels,
)

VERDICT_LETTERS = {
    "R": "right",
    "W": "wrong",
    "T": "tie, counted wrong",
    "U": "tie, counted right",
    "H": "tie, part credit",
    "P": "part credit",
    "A": "abstained",
    "-": "no result",
}
"""One letter per instance in a model's verdict string: what the headline's per-instance credit says.
"Right" in the browser's filters is R or U (full credit); "wrong" is W, T or A (no credit)."""
NO_VERDICTS = "its headline ranks instances (a ranking statistic): no instance is right or wrong on its own"
NO_DATA = "its data could not be read when this board was rendered"
NO_OUTCOMES = "no published cell has per-instance outcomes its declaration can read"


@dataclass(frozen=True)
class ImageEntry:
    """One image of an instance as the browser shows it."""

    name: str
    """Its path under the data root (or file name), with its crop."""
    link: str | None = None
    """Its source URL (COCO), where the path says it."""
    role: str = ""
    """The caption it is gold for, where the instance has several images."""
    source: ImageSource | None = None
    """The file to make a thumbnail from: only for a benchmark whose images are redistributable."""
    thumbnail: str | None = None
    """The file name of its thumbnail, made already (a bundle carries the bytes): instead of :attr:`source`."""


@dataclass
class ModelInstances:
    """One model's results on a benchmark's instances, in :attr:`BenchmarkInstances.ids` order."""

    verdicts: str
    """One letter per instance (:data:`VERDICT_LETTERS`)."""
    scores: np.ndarray | None = None
    """Image-text scores, ``(instances, images, captions)``, NaN where none is stored."""
    text_scores: np.ndarray | None = None
    """Caption-caption scores, ``(instances, captions, captions)``, where the benchmark reads them."""
    answers: dict[int, list[int | None]] = field(default_factory=dict)
    """Instance position -> the chosen candidate per question (in presentation order), ``None``: abstained."""


@dataclass
class BenchmarkInstances:
    """One benchmark's instances for the browser, and each published model's results on them."""

    benchmark: str
    metric: str = ""
    """The per-instance column the verdicts are read from (the headline's)."""
    tie_rule: str = ""
    ids: list[str] = field(default_factory=list)
    categories: list[str] = field(default_factory=list)
    captions: list[list[str]] | None = None
    """The captions, only where ``captions_redistributable``."""
    roles: list[list[str]] = field(default_factory=list)
    """Per instance, per caption: its role (gold, also true, foil, image k's caption, ...)."""
    gold: list[list[list[int]]] = field(default_factory=list)
    """Per instance, the gold (image, caption) score cells."""
    images: list[list[ImageEntry]] = field(default_factory=list)
    questions: list[list[list[Any]] | None] | None = None
    """Per instance, its multiple-choice questions (:func:`~vlc_leaderboard.instance_gold.question_labels`),
    where a model answered instead of scoring."""
    models: dict[str, ModelInstances] = field(default_factory=dict)
    """Model id -> its results."""
    missing: str = ""
    """Why the browser has nothing for this benchmark (then every list above is empty)."""


Loaded = Callable[[Any], "tuple[Any, list[Instance]] | None"]
"""A column's benchmark made for the data root and its instances (``None``: its data is not here)."""


def load_instances(bench: Any, data_root: Path) -> tuple[Any, list[Instance]] | None:
    """A copy of ``bench`` made for ``data_root`` and its instances there, or ``None`` when its data cannot
    be read there."""
    try:
        copy = type(bench)(bench.params, data_root)
        copy.check_data()
        return copy, list(copy.load_instances())
    except Exception:  # the data is not here: the browser says so, the downloads have no captions
        return None


def published_cells(board: Board, bench_id: str) -> dict[str, Any]:
    """Model id -> its published cell on ``bench_id``, in the board's row order."""
    return {r.id: cv.cell for r in board.rows if (cv := r.cells.get(bench_id)) and cv.published and cv.cell}


def gather_instances(
    board: Board, results: StoredResults, data_root: Path | None, loaded: Loaded | None = None
) -> dict[str, BenchmarkInstances]:
    """Per benchmark with a published cell: its instances and each published model's verdict letters, without
    the models' scores (or why the browser has nothing: its data is not at hand, or its headline has no
    per-instance verdict). ``loaded`` loads a column's instances (default: :func:`load_instances`)."""
    if data_root is None:
        return {}
    root = data_root
    load = loaded or (lambda col: load_instances(col.benchmark, root))
    return {col.id: gather_column(board, col, results, root, load) for col in browsed_columns(board)}


def browsed_columns(board: Board) -> list[Any]:
    """The columns :func:`gather_instances` gathers: a benchmark with a published cell and a headline metric."""
    return [
        col for col in board.benchmarks if col.benchmark is not None and col.metrics and published_cells(board, col.id)
    ]


def gather_column(board: Board, col: Any, results: StoredResults, data_root: Path, load: Loaded) -> BenchmarkInstances:
    """One column of :func:`gather_instances` (one of :func:`browsed_columns`), its instances loaded by ``load``."""
    found = load(col)
    if found is None:
        return BenchmarkInstances(col.id, missing=NO_DATA)
    copy, instances = found
    published = list(published_cells(board, col.id).items())
    return _gather(col.id, copy, instances, published, results, col.metrics[0].metric, data_root)


def _gather(
    bench_id: str,
    bench: Any,
    instances: list[Instance],
    published: list[tuple[str, Any]],
    results: StoredResults,
    metric: str,
    data_root: Path,
) -> BenchmarkInstances:
    """Verdict letters of every published cell of one benchmark, over its instances in load order (those no
    model has a verdict on left out). Each cell's outcomes are read, reduced to letters, and let go before
    the next is read."""
    position = {inst.id: k for k, inst in enumerate(instances)}
    models: dict[str, ModelInstances] = {}
    answered = False
    first: InstanceVerdicts | None = None
    for model_id, cell in published:
        rows = {o.instance_id: o for o in results.instance_outcomes(cell)}
        try:
            verdicts = instance_verdicts(bench, instances, rows, metric)
        except OutcomesUnreadable:  # outcomes this declaration cannot read: no browsing for this cell
            continue
        except NoVerdicts:
            return BenchmarkInstances(bench_id, missing=NO_VERDICTS)
        if verdicts is not None:
            letters = np.full(len(instances), ord("-"), dtype=np.uint8)
            letters[[position[iid] for iid in verdicts.ids]] = _letter_codes(verdicts)
            models[model_id] = ModelInstances(letters.tobytes().decode("ascii"))
            answered = answered or any(rows[iid].answers is not None for iid in verdicts.ids)
            first = first or verdicts
    if first is None:
        return BenchmarkInstances(bench_id, missing=NO_OUTCOMES)
    scored = np.zeros(len(instances), dtype=bool)
    for model in models.values():
        scored |= np.frombuffer(model.verdicts.encode("ascii"), dtype=np.uint8) != ord("-")
    keep = np.flatnonzero(scored).tolist()
    chosen = [instances[k] for k in keep]
    result = BenchmarkInstances(bench_id, first.metric, first.tie_rule, [i.id for i in chosen])
    result.categories = [i.category for i in chosen]
    if bench.captions_redistributable:
        result.captions = [list(i.texts) for i in chosen]
    result.roles = [caption_roles(i) for i in chosen]
    result.gold = [gold_cells(i) for i in chosen]
    result.images = [_images(i, bench.images_redistributable, data_root) for i in chosen]
    result.models = {model_id: ModelInstances("".join(m.verdicts[k] for k in keep)) for model_id, m in models.items()}
    if answered:
        result.questions = [question_labels(bench, i) for i in chosen]
    return result


def _images(instance: Instance, redistributable: bool, data_root: Path) -> list[ImageEntry]:
    roles = image_roles(instance)
    return [
        ImageEntry(image_name(src, data_root), coco_source(src.path), roles[k], src if redistributable else None)
        for k, src in enumerate(instance.images)
    ]


def _letters(verdicts: InstanceVerdicts) -> list[str]:
    """Each instance's verdict letter (:data:`VERDICT_LETTERS`)."""
    return [chr(code) for code in _letter_codes(verdicts).tolist()]


def _letter_codes(verdicts: InstanceVerdicts) -> np.ndarray:
    """Each instance's verdict letter as its ASCII code, for all instances at once: abstained, else a tie
    (credited fully, not, or in part), else right, wrong or part credit."""
    full, none, tied, answered = (
        np.asarray(a, dtype=bool).reshape(len(verdicts.ids))
        for a in (verdicts.full_credit, verdicts.no_credit, verdicts.tied, verdicts.answered)
    )
    untied = np.where(full, ord("R"), np.where(none, ord("W"), ord("P")))
    letters = np.where(tied, np.where(full, ord("U"), np.where(none, ord("T"), ord("H"))), untied)
    return np.where(~answered & none, ord("A"), letters).astype(np.uint8)
