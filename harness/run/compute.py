"""Running one model over a job, by its protocol (inside a worker process).

Each unique input is encoded once and :class:`~vlc_harness.run.jobs.Scores` batches are yielded as
they finish, so the main process can store them as it goes. An image that cannot be decoded
yields :class:`~vlc_harness.run.jobs.ImageFailed` and the rest goes on; see :mod:`vlc_harness.run.jobs`
for every event.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, TypeVar

from vlc_harness.devices import resolve_device
from vlc_harness.images import load_image
from vlc_harness.models import (
    Abstention,
    ChoiceModel,
    ChoiceQuestion,
    EmbeddingModel,
    Model,
    PairError,
    PairGroup,
    PairScoringModel,
    TextOnlyModel,
)
from vlc_harness.reasons import Reason
from vlc_harness.run.batching import AdaptiveBatches, batch_size_for, prefetch
from vlc_harness.run.chunks import last_uses, plan_chunks
from vlc_harness.run.deadline import until
from vlc_harness.run.jobs import (
    Abstained,
    AnswerFailed,
    Answers,
    Event,
    ImageFailed,
    ImageTask,
    Job,
    Loaded,
    PairFailed,
    Progress,
    QuestionTask,
    Scores,
    Spent,
    TextScores,
    Unscored,
)
from vlc_harness.types import BLIND_IMAGE_KEY

R = TypeVar("R")


def load_model(model: Model) -> Loaded:
    """Load ``model`` on the device its run options resolve to, timed."""
    start = time.perf_counter()
    device = resolve_device(model.run.device)
    model.load(device)
    model.loaded_on = device
    return Loaded(device, round(time.perf_counter() - start, 4))


class Phases:
    """Wall seconds per phase of one job, reported at its end as a :class:`Spent` event."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}

    @contextmanager
    def timing(self, phase: str) -> Iterator[None]:
        """Count the time spent in the ``with`` block towards ``phase``."""
        start = time.perf_counter()
        try:
            yield
        finally:
            self.seconds[phase] = self.seconds.get(phase, 0.0) + time.perf_counter() - start

    def timed(self, phase: str, fn: Callable[..., R]) -> Callable[..., R]:
        """``fn``, its calls counted towards ``phase``."""

        def call(*args: Any) -> R:
            with self.timing(phase):
                return fn(*args)

        return call


def run_job(model: Model, job: Job) -> Iterator[Event]:
    """Compute every pair (or answer every question) of ``job``, yielding events batch by batch.

    The model is told the job's cost allowance first; its usage, if any, follows each event. The
    last event says where the job's time went (:class:`Spent`).
    """
    model.begin_job(job.max_cost_usd)
    if job.batch_size <= 0:
        device = str(getattr(model, "loaded_on", None) or model.run.device)
        job = dataclasses.replace(job, batch_size=batch_size_for(job.batch_size, device, model.protocol))
    phases = Phases()
    for event in until(_job_events(model, job, phases), job.stop_at):  # the run's deadline, if any
        yield event
        usage = model.take_usage()
        if usage:
            yield usage
    usage = model.take_usage()
    if usage:
        yield usage
    yield Spent({k: round(v, 4) for k, v in phases.seconds.items()})


def _job_events(model: Model, job: Job, phases: Phases) -> Iterator[Event]:
    runner = PROTOCOL_RUNNERS.get(model.protocol)
    if runner is None:
        raise TypeError(f"{type(model).__name__} has an unknown protocol {model.protocol!r}")
    wrong = {
        "questions": bool(job.questions) and model.protocol != "choose",
        "texts": bool(job.blind_texts) and model.protocol != "score_texts",
        "text pairs": bool(job.text_pairs) and model.protocol != "embed",
        "image-text pairs": bool(job.tasks) and model.protocol not in ("embed", "score_pairs"),
    }
    for work, mismatched in wrong.items():
        if mismatched:
            raise TypeError(f"{type(model).__name__} (protocol {model.protocol}) was given {work} to score")
    yield from runner(model, job, phases)


def _chunks(items: Sequence[Any], size: int) -> Iterator[Sequence[Any]]:
    size = max(1, size)
    for start in range(0, len(items), size):
        yield items[start : start + size]


def _shrinks(batches: AdaptiveBatches) -> Iterator[Event]:
    for size in batches.shrunk:
        yield Progress(f"CUDA out of memory: batch size now {size}", 0, 0)


def _run_texts(model: TextOnlyModel, job: Job, phases: Phases) -> Iterator[Event]:
    batches = AdaptiveBatches(job.batch_size)
    score_texts = phases.timed("model_s", lambda b: model.score_texts(list(b)))
    for batch, scores in batches.run(score_texts, job.blind_texts):
        _check_len(model, len(batch), scores)
        for t, s in zip(batch, scores):
            if isinstance(s, PairError):
                yield Unscored(BLIND_IMAGE_KEY, t, s.reason, s.code)
        yield Scores([(BLIND_IMAGE_KEY, t, float(s)) for t, s in zip(batch, scores) if not isinstance(s, PairError)])
    yield from _shrinks(batches)


def _decoded(
    model: EmbeddingModel | PairScoringModel, tasks: Sequence[ImageTask], depth: int, phases: Phases
) -> Iterator[tuple[ImageTask, Any, Any]]:
    """``(task, preprocessed image, error)`` in order, decoded ahead in background threads; the
    time spent waiting for them counts as ``decode_wait_s``."""
    if not model.needs_pixels:
        for task in tasks:
            yield task, None, None
        return
    preprocess = model.preprocess
    stream = prefetch(lambda task: preprocess(load_image(task.path, task.transform)), tasks, depth)
    while True:
        with phases.timing("decode_wait_s"):
            item = next(stream, None)
        if item is None:
            return
        yield item


def _failed(task: ImageTask, error: BaseException) -> ImageFailed:
    return ImageFailed(task.key, task.path, f"{type(error).__name__}: {error}")


def _run_embed(model: EmbeddingModel, job: Job, phases: Phases) -> Iterator[Event]:
    """Encode each unique text and image once, holding only what is still needed.

    Images are taken in chunks (:mod:`vlc_harness.run.chunks`); a chunk's new texts are encoded
    (sorted by length, so a batch pads little) before its text pairs and images, and a text's
    vector is dropped after the last chunk that uses it. Text pairs are scored from the same
    vectors. Images are decoded ahead in background threads while the model runs.
    """
    import numpy as np

    text_batches, image_batches = AdaptiveBatches(job.batch_size), AdaptiveBatches(job.batch_size)
    chunks = plan_chunks(job.tasks, job.text_pairs, max(256, 8 * job.batch_size))
    last_use = last_uses(chunks)
    vectors: dict[str, Any] = {}
    encoded = 0
    stream = _decoded(model, job.tasks, 2 * job.batch_size, phases)

    def embed_texts(batch: Sequence[str]) -> Any:
        vecs = np.asarray(model.embed_texts(list(batch)))
        _check_len(model, len(batch), vecs)
        return vecs

    def embed_images(batch: Sequence[Any]) -> Any:
        vecs = np.asarray(model.embed_images(list(batch)))
        _check_len(model, len(batch), vecs)
        return vecs

    def score(ready: list[tuple[ImageTask, Any]]) -> Iterator[Event]:
        offset = 0
        for batch, image_vecs in image_batches.run(phases.timed("model_images_s", embed_images), [x for _, x in ready]):
            rows_i, text_vecs, keys = [], [], []
            for k, (task, _) in enumerate(ready[offset : offset + len(batch)]):
                for t in task.texts:
                    rows_i.append(k)
                    text_vecs.append(vectors[t])
                    keys.append((task.key, t))
            offset += len(batch)
            _check_sizes(model, image_vecs, text_vecs[0])
            with phases.timing("model_images_s"):
                scores = np.asarray(model.pair_scores(image_vecs[rows_i], np.stack(text_vecs)))
            yield Scores([(k, t, float(s)) for (k, t), s in zip(keys, scores)])

    def score_texts(pairs: Sequence[tuple[str, str]]) -> TextScores:
        a, b = np.stack([vectors[x] for x, _ in pairs]), np.stack([vectors[y] for _, y in pairs])
        with phases.timing("model_text_pairs_s"):
            scores = np.asarray(model.text_pair_scores(a, b))
        _check_len(model, len(pairs), scores)
        return TextScores([(x, y, float(s)) for (x, y), s in zip(pairs, scores)])

    for c, chunk in enumerate(chunks):
        new = sorted({t for t in chunk.texts() if t not in vectors}, key=lambda t: (len(t), t))
        for batch, vecs in text_batches.run(phases.timed("model_texts_s", embed_texts), new):
            vectors.update(zip(batch, vecs))
            encoded += len(batch)
            yield Progress("texts", encoded, len(last_use))
        for pairs in _chunks(chunk.pairs, job.batch_size):  # each batch stored in its own transaction
            yield score_texts(pairs)
        ready: list[tuple[ImageTask, Any]] = []
        for _ in range(len(chunk.tasks)):
            task, pixels, error = next(stream)
            if error is not None:
                yield _failed(task, error)
                continue
            ready.append((task, pixels))
            if len(ready) >= image_batches.size:
                yield from score(ready)
                ready = []
        if ready:
            yield from score(ready)
        for t in chunk.texts():
            if last_use[t] == c:
                vectors.pop(t, None)
    yield from _shrinks(text_batches)
    yield from _shrinks(image_batches)


def _run_pairs(model: PairScoringModel, job: Job, phases: Phases) -> Iterator[Event]:
    batches = AdaptiveBatches(job.batch_size)
    score_pairs = phases.timed("model_s", lambda b: model.score_pairs(list(b)))
    ready: list[PairGroup] = []
    n_pairs = 0
    for task, image, error in _decoded(model, job.tasks, 2 * job.batch_size, phases):
        if error is not None:
            yield _failed(task, error)
            continue
        ready.append(PairGroup(task.key, image, task.texts, task.origins))
        n_pairs += len(task.texts)
        if n_pairs >= job.batch_size:
            yield from _score_groups(model, score_pairs, batches, ready)
            ready, n_pairs = [], 0
    if ready:
        yield from _score_groups(model, score_pairs, batches, ready)
    yield from _shrinks(batches)


def _score_groups(
    model: PairScoringModel, score_pairs: Callable[[Any], Any], batches: AdaptiveBatches, groups: list[PairGroup]
) -> Iterator[Event]:
    for batch, results in batches.run(score_pairs, groups):
        _check_len(model, len(batch), results)
        rows, abstained = [], []
        for group, scores in zip(batch, results):
            _check_len(model, len(group.texts), scores)
            for t, s in zip(group.texts, scores):
                if isinstance(s, PairError):
                    yield Unscored(group.image_key, t, s.reason, s.code)
                elif not isinstance(s, Abstention):
                    rows.append((group.image_key, t, float(s)))
                elif s.error is not None:
                    yield PairFailed(group.image_key, t, s.error, s.code or Reason.REQUEST_FAILED)
                else:
                    abstained.append((group.image_key, t, s.raw))
        if abstained:  # before the scores, which end the batch (vlc_harness.run.deadline)
            yield Abstained(abstained)
        yield Scores(rows)


def _check_len(model: Model, expected: int, got: Any) -> None:
    if len(got) != expected:
        raise ValueError(f"{type(model).__name__} returned {len(got)} results for {expected} inputs")


def _check_sizes(model: Model, image_vecs: Any, text_vec: Any) -> None:
    """The embed protocol compares an image's vector with a text's: both must have the same size."""
    d_image, d_text = image_vecs.shape[-1], text_vec.shape[-1]
    if d_image != d_text:
        raise ValueError(
            f"{type(model).__name__}: image vectors are {d_image}-d, text vectors {d_text}-d; "
            "embed_images and embed_texts must return vectors of the same size (the embed protocol scores "
            "each pair by a similarity of the two)"
        )


def _run_choices(model: ChoiceModel, job: Job, phases: Phases) -> Iterator[Event]:
    for batch in _chunks(job.questions, job.batch_size):
        decoded: dict[str, Any] = {}
        asked: list[tuple[QuestionTask, ChoiceQuestion]] = []
        for task in batch:
            try:
                for key, path, transform in task.images:
                    if key not in decoded:
                        with phases.timing("decode_s"):
                            decoded[key] = model.preprocess(load_image(path, transform))
            except Exception as exc:
                yield AnswerFailed(
                    task.key, f"cannot read image {path}: {type(exc).__name__}: {exc}", Reason.IMAGE_ERROR
                )
                continue
            images = [decoded[key] for key, _, _ in task.images]
            keys = [key for key, _, _ in task.images]
            asked.append((task, ChoiceQuestion(task.kind, images, task.texts, keys, task.question)))
        if not asked:
            continue
        with phases.timing("model_s"):
            answers = model.choose([q for _, q in asked])
        _check_len(model, len(asked), answers)
        rows = []
        for (task, _), answer in zip(asked, answers):
            if answer.error is not None:
                yield AnswerFailed(task.key, answer.error, answer.code or Reason.REQUEST_FAILED)
            else:
                rows.append((task.key, answer.choice, answer.raw))
        yield Answers(rows)


PROTOCOL_RUNNERS: dict[str, Callable[[Any, Job, Phases], Iterator[Event]]] = {
    "embed": _run_embed,
    "score_pairs": _run_pairs,
    "score_texts": _run_texts,
    "choose": _run_choices,
}
"""How a worker computes a job, per protocol (``Model.protocol``)."""
