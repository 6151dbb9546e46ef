"""Frozen copy of v0.1's cell path (``harness/cells.py`` at commit a286a6d): stored scores or
answers -> per-instance results -> the benchmark's metrics (``bench.legacy.benchmarks``) with
bootstrap intervals (``bench.legacy.intervals``).

Used by ``bench/cell_cost.py`` (old against new in the same run) and by the golden-file generator.
"""

from __future__ import annotations

import functools
import math
import os
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from bench.legacy import intervals
from bench.legacy.benchmarks import CHOICES, COMPUTE, InstanceScores
from bench.legacy.coverage import AbstainedInstance, AbstentionAwareCompute
from vlc_harness.choices import AnsweredQuestion, InstanceAnswers, question_key
from vlc_harness.types import Instance


@dataclass(frozen=True)
class Outcome:
    """One instance of a cell (v0.1 ``vlc_harness.store.store.Outcome``)."""

    instance_id: str
    category: str
    scores: list[list[float | None]] | None
    error: str | None = None
    answers: list[dict[str, Any]] | None = None


InstanceKeys = dict[str, "list[str] | str"]
"""Per instance id: its image keys, or why they cannot be had (a missing image)."""


@dataclass
class Collected:
    """What a cell's metrics are computed from, and what kept instances out."""

    outcomes: list[Outcome] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    request_errors: list[str] = field(default_factory=list)
    metrics: list[dict[str, Any]] = field(default_factory=list)
    n_scored: int = 0


def collect_scores(
    benchmark: Any,
    instances: list[Instance],
    keys: InstanceKeys,
    scores: dict[tuple[str, str], float],
    problems: dict[Any, str],
    worker_error: str | None,
    abstained: dict[tuple[str, str], str] | None = None,
    request_failures: dict[tuple[str, str], str] | None = None,
    coverage: bool = False,
) -> Collected:
    """Each instance's score matrix from the stored scores; metrics over the complete ones.

    A pair the model declined (``abstained``) or whose request failed (``request_failures``)
    makes its instance an abstention, counted wrong, with coverage and accuracy on answered
    instances reported too (see :mod:`vlc_harness.coverage`); ``coverage`` asks for those even when
    every pair was answered. A failed request also leaves the cell ``partial``.
    """
    abstained = abstained or {}
    request_failures = request_failures or {}
    out = Collected()
    results: list[Any] = []
    for inst in instances:
        inst_keys = keys[inst.id]
        error = inst_keys if isinstance(inst_keys, str) else None
        matrix = np.full((len(inst.images), len(inst.texts)), np.nan)
        declined: list[dict[str, Any]] = []
        if error is None:
            for i, j in inst.needed_pairs():
                pair = (inst_keys[i], inst.texts[j])
                if pair in scores:
                    matrix[i, j] = scores[pair]
                elif pair in abstained:
                    declined.append({"image": i, "text": j, "abstained": True, "raw": abstained[pair]})
                elif pair in request_failures:
                    declined.append({"image": i, "text": j, "abstained": True, "error": request_failures[pair]})
                else:
                    error = problems.get(pair) or worker_error or "score was not computed"
                    break
        if error is not None:
            out.failures.append(f"{inst.id}: {error.splitlines()[0]}")
            out.outcomes.append(Outcome(inst.id, inst.category, None, error))
            continue
        scores_json = [[None if math.isnan(v) else float(v) for v in row] for row in matrix.tolist()]
        if declined:
            failed = [d["error"] for d in declined if "error" in d]
            out.request_errors.extend(f"{inst.id}: {e.splitlines()[0]}" for e in failed)
            results.append(AbstainedInstance(inst, failed[0] if failed else declined[0]["raw"]))
            out.outcomes.append(Outcome(inst.id, inst.category, scores_json, None, declined))
            continue
        results.append(InstanceScores(inst, matrix))
        out.outcomes.append(Outcome(inst.id, inst.category, scores_json))
    compute: Any = functools.partial(COMPUTE[benchmark.type_name], benchmark)
    if coverage or abstained or request_failures:
        compute = AbstentionAwareCompute(compute)
    out.metrics = _with_intervals(results, compute, benchmark.headline_metric())
    out.n_scored = len(results)
    return out


def collect_answers(
    benchmark: Any,
    instances: list[Instance],
    keys: InstanceKeys,
    answers: dict[str, int | None],
    problems: dict[Any, str],
    worker_error: str | None,
) -> Collected:
    """Each instance's answers; a question without a stored answer is an abstention with its error."""
    out = Collected()
    results = []
    for inst in instances:
        inst_keys = keys[inst.id]
        if isinstance(inst_keys, str):
            out.failures.append(f"{inst.id}: {inst_keys}")
            out.outcomes.append(Outcome(inst.id, inst.category, None, inst_keys))
            continue
        answered = []
        for q in benchmark.questions(inst):
            key = question_key(q.kind, [inst_keys[i] for i in q.images], [inst.texts[j] for j in q.texts])
            if key in answers:
                answered.append(AnsweredQuestion(q, answers[key]))
            else:
                error = problems.get(key) or worker_error or "question was not asked"
                out.request_errors.append(f"{inst.id}: {error.splitlines()[0]}")
                answered.append(AnsweredQuestion(q, None, error))
        results.append(InstanceAnswers(inst, answered))
        record = [
            {"order": a.question.order, "choice": a.choice, "correct": a.question.correct}
            | ({"error": a.error} if a.error else {})
            for a in answered
        ]
        out.outcomes.append(Outcome(inst.id, inst.category, None, None, record))
    out.metrics = _with_intervals(
        results, functools.partial(CHOICES[benchmark.type_name], benchmark), benchmark.headline_metric()
    )
    out.n_scored = len(results)
    return out


def _with_intervals(results: list[Any], compute: Any, headline: str) -> list[dict[str, Any]]:
    """The metrics of ``results``, each with its bootstrap interval (see :mod:`vlc_harness.intervals`);
    the overall headline value is marked ``"headline": true``."""
    if not results:
        return []
    metrics = [m.as_dict() for m in compute(results)]
    for m in metrics:
        if m["metric"] == headline and m["category"] == "all":
            m["headline"] = True
    ids = [r.instance.id for r in results]
    categories = [r.instance.category for r in results]
    samples = bootstrap_samples()
    if samples:
        intervals.attach(metrics, intervals.bootstrap(results, ids, categories, compute, samples))
    return metrics


def bootstrap_samples() -> int:
    """Resamples per cell: ``$VLC_HARNESS_BOOTSTRAP`` (0 turns intervals off), else the default."""
    value = os.environ.get("VLC_HARNESS_BOOTSTRAP")
    return intervals.SAMPLES if value is None or value == "" else int(value)


def status_and_error(
    collected: Collected, worker_error: str | None, n: int, limited: bool, stopped: str | None = None
) -> tuple[str, str | None]:
    """``failed`` when the worker failed or instances could not be scored; ``partial`` for a
    ``--limit`` or failed requests (a rerun asks them again); else ``ok``. ``stopped`` (why an API
    model stopped sending, e.g. the cost budget) leads the message."""
    lines = [stopped] if stopped else []
    if worker_error:
        lines.append(worker_error.splitlines()[0])
    if collected.failures:
        lines.append(f"{len(collected.failures)} of {n} instances failed, e.g. " + "; ".join(collected.failures[:3]))
    if collected.request_errors:
        lines.append(
            f"{len(collected.request_errors)} requests failed (counted as abstentions, not stored; a rerun asks "
            "them again), e.g. " + "; ".join(collected.request_errors[:3])
        )
    if worker_error:
        lines.append(worker_error)  # the full traceback, after the summary
    if worker_error or collected.failures:
        status = "failed"
    elif collected.request_errors or limited:
        status = "partial"
    else:
        status = "ok"
    return status, "\n".join(lines) or None
