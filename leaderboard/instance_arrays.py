"""The instance browser's per-model scores and answers, filled in from the cells' outcome records.

:func:`vlc_leaderboard.instances.gather_instances` decides, with the benchmarks' plugins, which instances
the browser lists and each published model's verdict letter on them; what each model stored on those
instances (score matrices, text-text scores, answers) comes here from its cell's outcome records
(:mod:`vlc_leaderboard.outcome_records`), with no plugin. A model's results are filled in only on the
instances it has a verdict on, as stored (the last record of an instance counts).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from vlc_leaderboard.instances import BenchmarkInstances, ModelInstances, gather_instances, published_cells
from vlc_leaderboard.public import redact_paths

if TYPE_CHECKING:
    from vlc_harness.results import StoredResults
    from vlc_leaderboard.board import Board

Records = Callable[[Any], Iterable[Mapping[str, Any]]]
"""A cell's outcome records."""


def with_results(data: BenchmarkInstances, cells: Mapping[str, Any], records: Records) -> BenchmarkInstances:
    """``data`` with each model's stored results filled in from its cell (``cells``: model id -> cell)."""
    if data.missing:
        return data
    position = {redact_paths(iid): k for k, iid in enumerate(data.ids)}  # a record's id is published: redacted
    n_images = max((len(images) for images in data.images), default=0)
    n_texts = max((len(roles) for roles in data.roles), default=0)
    models = {}
    for model_id, model in data.models.items():
        last = {r["instance"]: r for r in records(cells[model_id])}
        models[model_id] = _filled(model.verdicts, position, last, (len(data.ids), n_images, n_texts))
    return dataclasses.replace(data, models=models)


def instance_results(board: Board, results: StoredResults, data_root: Path | None) -> dict[str, BenchmarkInstances]:
    """Per benchmark with a published cell: its instances and each published model's verdicts and scores
    (or why there are none: its data is not at hand, or its headline has no per-instance verdict)."""
    from vlc_leaderboard.outcome_records import outcome_record

    gathered = gather_instances(board, results, data_root)

    def records(cell: Any) -> list[dict[str, Any]]:
        return [outcome_record(o) for o in results.instance_outcomes(cell)]

    return {b: with_results(data, published_cells(board, b), records) for b, data in gathered.items()}


def _filled(
    verdicts: str, position: dict[str, int], records: Mapping[str, Mapping[str, Any]], shape: tuple[int, int, int]
) -> ModelInstances:
    """One model's score arrays and answers on the instances it has a verdict on."""
    model = ModelInstances(verdicts)
    n, n_images, n_texts = shape
    scores: dict[int, Any] = {}
    text_scores: dict[int, Any] = {}
    for iid, record in records.items():
        k = position.get(iid)
        if k is None or verdicts[k] == "-":
            continue
        if "scores" in record:
            scores[k] = record["scores"]
        if "text_scores" in record:
            text_scores[k] = record["text_scores"]
        answers = record.get("answers")
        if not answers:
            continue
        # answers to questions carry their order; a declined pair ({"image", "text", "abstained"}) is no
        # answer: its score stays NaN and its verdict letter says it abstained
        questions = [a for a in answers if "order" in a]
        if questions:
            model.answers[k] = [a.get("choice") for a in sorted(questions, key=lambda a: a["order"])]
    if scores:
        model.scores = _stacked(np.full((n, n_images, n_texts), np.nan), scores)
    if text_scores:
        model.text_scores = _stacked(np.full((n, n_texts, n_texts), np.nan), text_scores)
    return model


def _stacked(target: np.ndarray, matrices: Mapping[int, list[list[float | None]]]) -> np.ndarray:
    """``target`` with each stored matrix copied into its instance's place (by index): in one copy where the
    matrices share one shape (``None`` reads as NaN), else one at a time."""
    try:
        values = np.array(list(matrices.values()), dtype=np.float64)
    except (ValueError, TypeError):  # matrices of several shapes
        values = None
    if values is not None and values.ndim == 3:
        target[list(matrices), : values.shape[1], : values.shape[2]] = values
        return target
    for k, matrix in matrices.items():
        _fill(target[k], matrix)
    return target


def _fill(target: np.ndarray, matrix: list[list[float | None]]) -> None:
    """Copy a stored score matrix into ``target`` (``None``: not scored, stays NaN)."""
    values = (
        np.array(matrix, dtype=np.float64) if matrix and all(len(row) == len(matrix[0]) for row in matrix) else None
    )
    if values is not None and values.ndim == 2:  # one copy for a rectangular matrix (None reads as NaN)
        target[: values.shape[0], : values.shape[1]] = values
        return
    for i, row in enumerate(matrix):
        for j, value in enumerate(row):
            if value is not None:
                target[i, j] = value
