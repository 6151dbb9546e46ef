"""Decoding stored scores (or answers) into a cell's outcome arrays, metrics and outcome rows.

Pure functions of what the store holds, so a cell can be rebuilt at any time without a model.
Stored rows are decoded once into outcome arrays (:mod:`vlc_harness.metrics.outcomes`); every
metric, interval and replicate is then computed by :mod:`vlc_harness.metrics`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from vlc_harness.benchmarks import Benchmark
from vlc_harness.choices import AnsweredQuestion, InstanceAnswers
from vlc_harness.metrics.cell import CellMetrics, cell_metrics
from vlc_harness.metrics.outcomes import Outcomes, choice_outcomes
from vlc_harness.metrics.text_only import instance_text_pairs, text_pair_readers
from vlc_harness.reasons import Reason
from vlc_harness.store.scores import text_pair_key
from vlc_harness.store.store import Outcome
from vlc_harness.types import Instance, InstanceKeys


@dataclass
class Collected:
    """What a cell's metrics are computed from, and what kept instances out."""

    outcomes: list[Outcome] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    request_errors: list[str] = field(default_factory=list)
    failure_codes: set[str] = field(default_factory=set)
    """The reason codes of :attr:`failures` (:mod:`vlc_harness.errors`)."""
    request_codes: set[str] = field(default_factory=set)
    """The reason codes of :attr:`request_errors`."""
    cell: CellMetrics = field(default_factory=CellMetrics)
    n_scored: int = 0

    @property
    def metrics(self) -> list[dict[str, Any]]:
        """The cell's metric values (dicts, with intervals)."""
        return self.cell.metrics


def collect_scores(
    benchmark: Benchmark,
    instances: list[Instance],
    keys: InstanceKeys,
    scores: dict[tuple[str, str], float],
    problems: dict[Any, str],
    worker_error: str | None,
    abstained: dict[tuple[str, str], str] | None = None,
    request_failures: dict[tuple[str, str], str] | None = None,
    coverage: bool = False,
    text_scores: dict[tuple[str, str], float] | None = None,
    text_problems: dict[tuple[str, str], str] | None = None,
    codes: Mapping[Any, str] | None = None,
    worker_code: str | None = None,
) -> Collected:
    """Each instance's score matrix from the stored scores; metrics over the complete ones.

    A pair the model declined (``abstained``) or whose request failed (``request_failures``)
    makes its instance an abstention (each metric states how it counts one), with coverage and
    metrics over answered instances reported too (see :mod:`vlc_harness.metrics.engine`);
    ``coverage`` asks for those even when every pair was answered. A failed request also leaves
    the cell ``partial``. A pair with no score for another reason fails its instance only.
    ``text_scores`` (``None``: the model gives none, and text-text metrics are left out) fill
    each instance's text-text matrix where the benchmark's metrics read one; a missing one fails
    its instance, naming ``text_problems``' reason when there is one. ``codes`` gives the reason
    code of each problem and failed request (same keys), ``worker_code`` that of ``worker_error``.
    """
    abstained = abstained or {}
    request_failures = request_failures or {}
    codes = codes or {}
    # a pair nobody reported on
    unscored = (worker_code or Reason.WORKER_ERROR) if worker_error else Reason.NOT_COMPUTED
    n = len(instances)
    n_images = np.fromiter((len(i.images) for i in instances), dtype=np.int64, count=n)
    n_texts = np.fromiter((len(i.texts) for i in instances), dtype=np.int64, count=n)
    tensor = np.full((n, int(n_images.max(initial=1)), int(n_texts.max(initial=1))), np.nan)
    errors: dict[int, str] = {}
    error_codes: dict[int, str] = {}
    where_k: list[int] = []
    where_i: list[int] = []
    where_j: list[int] = []
    pairs: list[tuple[str, str]] = []
    for k, inst in enumerate(instances):  # decoding: the one per-instance loop
        inst_keys = keys[inst.id]
        if isinstance(inst_keys, str):
            errors[k], error_codes[k] = inst_keys, Reason.IMAGE_ERROR
            continue
        for i, j in inst.needed_pairs():
            where_k.append(k)
            where_i.append(i)
            where_j.append(j)
            pairs.append((inst_keys[i], inst.texts[j]))
    values = np.array([scores.get(p, np.nan) for p in pairs], dtype=np.float64)
    tensor[where_k, where_i, where_j] = values
    texts = text_matrices(
        benchmark, instances, errors, text_scores, text_problems or {}, worker_error, error_codes, unscored
    )
    declined: dict[int, list[dict[str, Any]]] = {}
    declined_codes: dict[int, set[str]] = {}
    for m in np.flatnonzero(np.isnan(values)):  # only the pairs without a stored score
        k, pair = where_k[m], pairs[m]
        if k in errors:
            continue
        entry = {"image": where_i[m], "text": where_j[m], "abstained": True}
        if pair in abstained:
            declined.setdefault(k, []).append(entry | {"raw": abstained[pair]})
        elif pair in request_failures:
            declined.setdefault(k, []).append(entry | {"error": request_failures[pair]})
            declined_codes.setdefault(k, set()).add(codes.get(pair, Reason.REQUEST_FAILED))
        else:
            errors[k] = problems.get(pair) or worker_error or "score was not computed"
            error_codes[k] = codes.get(pair, Reason.SCORE_ERROR) if pair in problems else unscored
    out = Collected()
    rows = tensor.tolist()
    padded = (n_images != tensor.shape[1]) | (n_texts != tensor.shape[2]) | np.isnan(tensor).any(axis=(1, 2))
    answered = np.ones(n, dtype=bool)
    for k, inst in enumerate(instances):
        if k in errors:
            error = errors[k]
            out.failures.append(f"{inst.id}: {error.splitlines()[0]}")
            out.failure_codes.add(error_codes[k])
            out.outcomes.append(Outcome(inst.id, inst.category, None, error))
            continue
        matrix = rows[k]
        if padded[k]:
            matrix = [[None if math.isnan(v) else v for v in row[: n_texts[k]]] for row in matrix[: n_images[k]]]
        text_matrix = None if texts is None else listed(texts[k, : n_texts[k], : n_texts[k]])
        if k in declined:
            failed = [d["error"] for d in declined[k] if "error" in d]
            out.request_errors.extend(f"{inst.id}: {e.splitlines()[0]}" for e in failed)
            out.request_codes |= declined_codes.get(k, set())
            answered[k] = False
            out.outcomes.append(Outcome(inst.id, inst.category, matrix, None, declined[k], text_matrix))
            continue
        out.outcomes.append(Outcome(inst.id, inst.category, matrix, text_scores=text_matrix))
    index = np.array([k for k in range(n) if k not in errors], dtype=np.int64)
    kept_texts = None if texts is None else texts[index]
    arrays = Outcomes([instances[k] for k in index], tensor[index], answered[index], kept_texts)
    out.cell = cell_metrics(benchmark, arrays, coverage=bool(coverage or abstained or request_failures))
    out.n_scored = len(index)
    return out


def text_matrices(
    benchmark: Benchmark,
    instances: list[Instance],
    errors: dict[int, str],
    text_scores: dict[tuple[str, str], float] | None,
    problems: dict[tuple[str, str], str],
    worker_error: str | None,
    error_codes: dict[int, str] | None = None,
    unscored: str = Reason.NOT_COMPUTED,
) -> np.ndarray | None:
    """``[N, T, T]``: each instance's stored text-text scores where the benchmark's metrics read
    them (NaN elsewhere); ``None`` without text-text scores or metrics that read them. An
    instance missing one is added to ``errors``, and its reason code to ``error_codes``
    (``Reason.SCORE_ERROR`` for a problem, else ``unscored``)."""
    readers = text_pair_readers(benchmark.metric_families())
    if text_scores is None or not readers:
        return None
    width = max((len(inst.texts) for inst in instances), default=1)
    out = np.full((len(instances), width, width), np.nan)
    for k, inst in enumerate(instances):  # decoding, as for the image-text scores
        if k in errors:
            continue
        for a, b in instance_text_pairs(readers, inst):
            key = text_pair_key(inst.texts[a], inst.texts[b])
            if key not in text_scores:
                errors[k] = problems.get(key) or worker_error or "text-text score was not computed"
                if error_codes is not None:
                    error_codes[k] = Reason.SCORE_ERROR if key in problems else unscored
                break
            out[k, a, b] = text_scores[key]
    return out


def listed(matrix: np.ndarray) -> list[list[float | None]]:
    """A score matrix as an outcome stores it: nested lists, ``None`` where NaN (a pair not scored or not read)."""
    return [[None if math.isnan(v) else v for v in row] for row in matrix.tolist()]


def collect_answers(
    benchmark: Benchmark,
    instances: list[Instance],
    keys: InstanceKeys,
    answers: dict[str, int | None],
    problems: dict[Any, str],
    worker_error: str | None,
    codes: Mapping[Any, str] | None = None,
    worker_code: str | None = None,
) -> Collected:
    """Each instance's answers; a question without a stored answer is an abstention with its error
    (``codes``: the reason code of each problem; ``worker_code``: that of ``worker_error``)."""
    codes = codes or {}
    unasked = (worker_code or Reason.WORKER_ERROR) if worker_error else Reason.NOT_COMPUTED
    out = Collected()
    results = []
    for inst in instances:
        inst_keys = keys[inst.id]
        if isinstance(inst_keys, str):
            out.failures.append(f"{inst.id}: {inst_keys}")
            out.failure_codes.add(Reason.IMAGE_ERROR)
            out.outcomes.append(Outcome(inst.id, inst.category, None, inst_keys))
            continue
        answered = []
        for q in benchmark.questions(inst):
            key = q.key(inst, inst_keys)
            if key in answers:
                answered.append(AnsweredQuestion(q, answers[key]))
            else:
                error = problems.get(key) or worker_error or "question was not asked"
                out.request_errors.append(f"{inst.id}: {error.splitlines()[0]}")
                out.request_codes.add(codes.get(key, Reason.REQUEST_FAILED) if key in problems else unasked)
                answered.append(AnsweredQuestion(q, None, error))
        results.append(InstanceAnswers(inst, answered))
        record = [
            {"order": a.question.order, "choice": a.choice, "correct": a.question.correct}
            | ({"error": a.error} if a.error else {})
            for a in answered
        ]
        out.outcomes.append(Outcome(inst.id, inst.category, None, None, record))
    out.cell = cell_metrics(benchmark, choice_outcomes(results))
    out.n_scored = len(results)
    return out
