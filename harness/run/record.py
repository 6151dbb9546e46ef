"""Recording a worker's events: scores, text-text scores and answers into the store, problems into
the run's sink.

One handler per event type (:data:`HANDLERS`); each finished batch is written in its own
transaction. A non-finite score is never stored: its pair becomes a problem that fails the
instances needing it.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any

from vlc_harness.models import Usage
from vlc_harness.reasons import Reason
from vlc_harness.run.jobs import (
    Abstained,
    AnswerFailed,
    Answers,
    ImageFailed,
    Job,
    Loaded,
    PairFailed,
    Progress,
    Scores,
    Spent,
    Stopped,
    TextScores,
    Unscored,
)
from vlc_harness.run.plan import ModelWork
from vlc_harness.store import Store
from vlc_harness.store.scores import text_pair_key


class Recorder:
    """What event handlers need: the store, the model's row and sink, the progress bar."""

    def __init__(self, store: Store, work: ModelWork, bar: Any, job: Job) -> None:
        if work.model_row is None:
            raise ValueError(f"{work.label}: no model row in the store to record its results under")
        self.store, self.run, self.bar = store, work, bar
        self.row = work.model_row
        self.device: str | None = None
        self.paths = {t.key: t for t in job.tasks}
        self.questions = {
            q.key: {"kind": q.kind, "images": [k for k, _, _ in q.images], "texts": q.texts}
            | ({"question": q.question} if q.question else {})
            for q in job.questions
        }


def _timed(write: Callable[..., Any]) -> Callable[..., Any]:
    """Count the wall time of store writes (the run's provenance reports it)."""

    def timed(s: Recorder, e: Any) -> None:
        start = time.perf_counter()
        write(s, e)
        s.run.sink.store_seconds += time.perf_counter() - start

    return timed


@_timed
def _scores(s: Recorder, e: Scores) -> None:
    good = []
    for key, text, score in e.rows:
        if math.isfinite(score):
            good.append((key, text, score))
        else:
            where = s.paths[key].path if key in s.paths else "(image-blind)"
            s.run.sink.problems[(key, text)] = f"model returned {score} for image {where} and text {text!r}"
            s.run.sink.codes[(key, text)] = Reason.SCORE_ERROR
    s.store.add_scores(s.row, good)
    s.bar.update(len(e.rows))


@_timed
def _text_scores(s: Recorder, e: TextScores) -> None:
    good = []
    for text_a, text_b, score in e.rows:
        if math.isfinite(score):
            good.append((text_a, text_b, score))
        else:
            problem = f"model returned {score} for the text pair {text_a!r} and {text_b!r}"
            s.run.sink.text_problems[text_pair_key(text_a, text_b)] = problem
    s.store.add_text_scores(s.row, good)
    s.bar.update(len(e.rows))


def _image_failed(s: Recorder, e: ImageFailed) -> None:
    for text in s.paths[e.key].texts:
        s.run.sink.problems[(e.key, text)] = f"cannot read image {e.path}: {e.message}"
        s.run.sink.codes[(e.key, text)] = Reason.IMAGE_ERROR
    s.bar.update(len(s.paths[e.key].texts))


@_timed
def _answers(s: Recorder, e: Answers) -> None:
    s.store.add_answers(s.row, [(k, s.questions[k], c, raw) for k, c, raw in e.rows])
    s.bar.update(len(e.rows))


def _answer_failed(s: Recorder, e: AnswerFailed) -> None:
    s.run.sink.problems[e.key] = e.message
    s.run.sink.codes[e.key] = e.code
    s.bar.update(1)


@_timed
def _abstained(s: Recorder, e: Abstained) -> None:
    s.store.add_abstentions(s.row, e.rows)
    s.bar.update(len(e.rows))


def _pair_failed(s: Recorder, e: PairFailed) -> None:
    s.run.sink.request_failures[(e.key, e.text)] = e.message
    s.run.sink.codes[(e.key, e.text)] = e.code
    s.bar.update(1)


def _unscored(s: Recorder, e: Unscored) -> None:
    s.run.sink.problems[(e.key, e.text)] = e.reason
    s.run.sink.codes[(e.key, e.text)] = e.code
    s.bar.update(1)


def _usage(s: Recorder, e: Any) -> None:
    s.run.sink.usage = s.run.sink.usage.plus(e)


def _loaded(s: Recorder, e: Loaded) -> None:
    s.device = e.device
    s.run.sink.add_worker_seconds({"load_s": e.seconds})


def _spent(s: Recorder, e: Spent) -> None:
    s.run.sink.add_worker_seconds(e.seconds)


def _progress(s: Recorder, e: Progress) -> None:
    s.bar.set_postfix_str(f"{e.stage} {e.done}/{e.total}")


def _stopped(s: Recorder, e: Stopped) -> None:
    s.run.stopped = True


def _handlers() -> dict[type, Callable[[Recorder, Any], None]]:
    return {
        Scores: _scores,
        TextScores: _text_scores,
        ImageFailed: _image_failed,
        Answers: _answers,
        AnswerFailed: _answer_failed,
        Abstained: _abstained,
        PairFailed: _pair_failed,
        Unscored: _unscored,
        Usage: _usage,
        Loaded: _loaded,
        Spent: _spent,
        Progress: _progress,
        Stopped: _stopped,
    }


HANDLERS = _handlers()
"""How each event of a worker is recorded."""
