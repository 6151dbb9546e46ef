"""Running one model over a job of pairs, by its protocol. Used inside worker processes.

A :class:`Job` lists image tasks (one image and the texts to score against it) sorted by image
key; the engine encodes each unique input once and yields :class:`Scores` batches as they finish,
so the main process can store them as it goes. An image that cannot be decoded yields an
:class:`ImageFailed` event and the rest goes on. A pair the model declines yields
:class:`Abstained`, a pair whose request failed :class:`PairFailed`, a pair the model reports as
having no score (a :class:`~harness.models.PairError`) :class:`Unscored`, and an API model's
spending a :class:`~harness.models.Usage` event after each batch.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from harness.batching import AdaptiveBatches, prefetch
from harness.images import load_image
from harness.models import (
    Abstention,
    ChoiceModel,
    ChoiceQuestion,
    EmbeddingModel,
    Model,
    PairError,
    PairGroup,
    PairScoringModel,
    TextOnlyModel,
    Usage,
)
from harness.types import BLIND_IMAGE_KEY

Origin = tuple[str, str, str, int, int]
"""(benchmark id, data version, instance id, image index, text index) of a needed pair."""


@dataclass
class ImageTask:
    """One image (by key and file) and the texts to score against it."""

    key: str
    path: str
    transform: dict[str, Any] | None
    texts: list[str]
    origins: list[list[Origin]] | None = None


@dataclass
class QuestionTask:
    """A multiple-choice question to ask: images as (key, path, transform), texts, in order."""

    key: str
    kind: str
    images: list[tuple[str, str, dict[str, Any] | None]]
    texts: list[str]


@dataclass
class Job:
    """The work one model must do, in a deterministic order: pairs grouped by image, blind
    texts, or multiple-choice questions."""

    tasks: list[ImageTask] = field(default_factory=list)
    blind_texts: list[str] = field(default_factory=list)
    questions: list[QuestionTask] = field(default_factory=list)
    batch_size: int = 32
    max_cost_usd: float | None = None
    """What the run may still spend on this job (API models); ``None``: no limit."""

    @property
    def n_pairs(self) -> int:
        """Number of results this job produces (scores or answers)."""
        return sum(len(t.texts) for t in self.tasks) + len(self.blind_texts) + len(self.questions)

    def split(self, parts: int) -> list[Job]:
        """Up to ``parts`` contiguous shards of about equal size (an image's texts stay together)."""
        parts = max(1, min(parts, len(self.tasks) + len(self.blind_texts) + len(self.questions)))
        if parts == 1:
            return [self]
        shards = [Job(batch_size=self.batch_size, max_cost_usd=self.max_cost_usd) for _ in range(parts)]
        for name, weight in (
            ("tasks", lambda t: len(t.texts)),
            ("blind_texts", lambda t: 1),
            ("questions", lambda q: 1),
        ):
            items = getattr(self, name)
            total = sum(weight(x) for x in items) or 1
            done = 0
            for item in items:
                index = min(parts - 1, done * parts // total)
                getattr(shards[index], name).append(item)
                done += weight(item)
        return [s for s in shards if s.n_pairs]


@dataclass(frozen=True)
class Scores:
    """A finished batch: ``(image key, text, score)`` rows."""

    rows: list[tuple[str, str, float]]


@dataclass(frozen=True)
class ImageFailed:
    """An image that could not be read or decoded; its pairs are not scored."""

    key: str
    path: str
    message: str


@dataclass(frozen=True)
class Answers:
    """A finished batch of answers: ``(question key, choice or None, raw reply)`` rows."""

    rows: list[tuple[str, int | None, str]]


@dataclass(frozen=True)
class AnswerFailed:
    """A question whose request failed (or whose image could not be read): not an answer."""

    key: str
    message: str


@dataclass(frozen=True)
class Abstained:
    """Pairs the model declined to score: ``(image key, text, raw reply)`` rows (stored, never scores)."""

    rows: list[tuple[str, str, str]]


@dataclass(frozen=True)
class PairFailed:
    """A pair whose request failed (rate limit, timeout): not stored; a rerun asks it again."""

    key: str
    text: str
    message: str


@dataclass(frozen=True)
class Unscored:
    """A pair the model reported as having no score (:class:`~harness.models.PairError`): nothing
    is stored; the instances that need it fail with ``reason``."""

    key: str
    text: str
    reason: str


@dataclass(frozen=True)
class Loaded:
    """The model finished loading on ``device`` (sent once, before its first scores)."""

    device: str


@dataclass(frozen=True)
class Progress:
    """Work that yields no scores yet (encoding the unique texts): ``done`` of ``total``."""

    stage: str
    done: int
    total: int


Event = Scores | ImageFailed | Answers | AnswerFailed | Abstained | PairFailed | Unscored | Usage | Loaded | Progress


def run_job(model: Model, job: Job) -> Iterator[Event]:
    """Compute every pair (or answer every question) of ``job``, yielding events batch by batch.

    The model is told the job's cost allowance first; its usage, if any, follows each event.
    """
    model.begin_job(job.max_cost_usd)
    for event in _job_events(model, job):
        yield event
        usage = model.take_usage()
        if usage:
            yield usage
    usage = model.take_usage()
    if usage:
        yield usage


def _job_events(model: Model, job: Job) -> Iterator[Event]:
    if job.questions:
        if not isinstance(model, ChoiceModel):
            raise TypeError(f"{type(model).__name__} does not answer multiple-choice questions")
        yield from _run_choices(model, job)
    if job.blind_texts:
        if not isinstance(model, TextOnlyModel):
            raise TypeError(f"{type(model).__name__} is not image-blind but was given text-only work")
        yield from _run_texts(model, job)
    if not job.tasks:
        return
    if isinstance(model, EmbeddingModel):
        yield from _run_embed(model, job)
    elif isinstance(model, PairScoringModel):
        yield from _run_pairs(model, job)
    else:
        raise TypeError(f"{type(model).__name__} has protocol {model.protocol!r}, which scores no image-text pairs")


def _chunks(items: Sequence[Any], size: int) -> Iterator[Sequence[Any]]:
    size = max(1, size)
    for start in range(0, len(items), size):
        yield items[start : start + size]


def _shrinks(batches: AdaptiveBatches) -> Iterator[Event]:
    for size in batches.shrunk:
        yield Progress(f"CUDA out of memory: batch size now {size}", 0, 0)


def _run_texts(model: TextOnlyModel, job: Job) -> Iterator[Event]:
    batches = AdaptiveBatches(job.batch_size)
    for batch, scores in batches.run(lambda b: model.score_texts(list(b)), job.blind_texts):
        _check_len(model, len(batch), scores)
        for t, s in zip(batch, scores):
            if isinstance(s, PairError):
                yield Unscored(BLIND_IMAGE_KEY, t, s.reason)
        yield Scores([(BLIND_IMAGE_KEY, t, float(s)) for t, s in zip(batch, scores) if not isinstance(s, PairError)])
    yield from _shrinks(batches)


def _decoded(model: Model, tasks: Sequence[ImageTask], depth: int) -> Iterator[tuple[ImageTask, Any, Any]]:
    """``(task, preprocessed image, error)`` in order, decoded ahead in background threads."""
    if not model.needs_pixels:
        for task in tasks:
            yield task, None, None
        return
    preprocess = model.preprocess  # type: ignore[attr-defined]
    yield from prefetch(lambda task: preprocess(load_image(task.path, task.transform)), tasks, depth)


def _failed(task: ImageTask, error: BaseException) -> ImageFailed:
    return ImageFailed(task.key, task.path, f"{type(error).__name__}: {error}")


def _run_embed(model: EmbeddingModel, job: Job) -> Iterator[Event]:
    """Encode each unique text and image once, holding only what is still needed.

    Images are taken in chunks; a chunk's new texts are encoded (sorted by length, so a batch
    pads little) before its images, and a text's vector is dropped after the last chunk that
    uses it. Images are decoded ahead in background threads while the model runs.
    """
    import numpy as np

    text_batches, image_batches = AdaptiveBatches(job.batch_size), AdaptiveBatches(job.batch_size)
    chunks = list(_chunks(job.tasks, max(256, 8 * job.batch_size)))
    last_use: dict[str, int] = {}
    for c, chunk in enumerate(chunks):
        for task in chunk:
            for t in task.texts:
                last_use[t] = c
    vectors: dict[str, Any] = {}
    encoded = 0
    stream = _decoded(model, job.tasks, depth=2 * job.batch_size)

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
        for batch, image_vecs in image_batches.run(embed_images, [x for _, x in ready]):
            rows_i, text_vecs, keys = [], [], []
            for k, (task, _) in enumerate(ready[offset : offset + len(batch)]):
                for t in task.texts:
                    rows_i.append(k)
                    text_vecs.append(vectors[t])
                    keys.append((task.key, t))
            offset += len(batch)
            scores = np.asarray(model.pair_scores(image_vecs[rows_i], np.stack(text_vecs)))
            yield Scores([(k, t, float(s)) for (k, t), s in zip(keys, scores)])

    for c, chunk in enumerate(chunks):
        new = sorted({t for task in chunk for t in task.texts if t not in vectors}, key=lambda t: (len(t), t))
        for batch, vecs in text_batches.run(embed_texts, new):
            vectors.update(zip(batch, vecs))
            encoded += len(batch)
            yield Progress("texts", encoded, len(last_use))
        ready: list[tuple[ImageTask, Any]] = []
        for _ in range(len(chunk)):
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
        for task in chunk:
            for t in task.texts:
                if last_use[t] == c:
                    vectors.pop(t, None)
    yield from _shrinks(text_batches)
    yield from _shrinks(image_batches)


def _run_pairs(model: PairScoringModel, job: Job) -> Iterator[Event]:
    batches = AdaptiveBatches(job.batch_size)
    ready: list[PairGroup] = []
    n_pairs = 0
    for task, image, error in _decoded(model, job.tasks, depth=2 * job.batch_size):
        if error is not None:
            yield _failed(task, error)
            continue
        ready.append(PairGroup(task.key, image, task.texts, task.origins))
        n_pairs += len(task.texts)
        if n_pairs >= job.batch_size:
            yield from _score_groups(model, batches, ready)
            ready, n_pairs = [], 0
    if ready:
        yield from _score_groups(model, batches, ready)
    yield from _shrinks(batches)


def _score_groups(model: PairScoringModel, batches: AdaptiveBatches, groups: list[PairGroup]) -> Iterator[Event]:
    for batch, results in batches.run(lambda b: model.score_pairs(list(b)), groups):
        _check_len(model, len(batch), results)
        rows, abstained = [], []
        for group, scores in zip(batch, results):
            _check_len(model, len(group.texts), scores)
            for t, s in zip(group.texts, scores):
                if isinstance(s, PairError):
                    yield Unscored(group.image_key, t, s.reason)
                elif not isinstance(s, Abstention):
                    rows.append((group.image_key, t, float(s)))
                elif s.error is not None:
                    yield PairFailed(group.image_key, t, s.error)
                else:
                    abstained.append((group.image_key, t, s.raw))
        yield Scores(rows)
        if abstained:
            yield Abstained(abstained)


def _check_len(model: Model, expected: int, got: Any) -> None:
    if len(got) != expected:
        raise ValueError(f"{type(model).__name__} returned {len(got)} results for {expected} inputs")


def _run_choices(model: ChoiceModel, job: Job) -> Iterator[Event]:
    for batch in _chunks(job.questions, job.batch_size):
        decoded: dict[str, Any] = {}
        asked: list[tuple[QuestionTask, ChoiceQuestion]] = []
        for task in batch:
            try:
                for key, path, transform in task.images:
                    if key not in decoded:
                        decoded[key] = model.preprocess(load_image(path, transform))
            except Exception as exc:
                yield AnswerFailed(task.key, f"cannot read image {path}: {type(exc).__name__}: {exc}")
                continue
            images = [decoded[key] for key, _, _ in task.images]
            keys = [key for key, _, _ in task.images]
            asked.append((task, ChoiceQuestion(task.kind, images, task.texts, keys)))
        if not asked:
            continue
        answers = model.choose([q for _, q in asked])
        _check_len(model, len(asked), answers)
        rows = []
        for (task, _), answer in zip(asked, answers):
            if answer.error is not None:
                yield AnswerFailed(task.key, answer.error)
            else:
                rows.append((task.key, answer.choice, answer.raw))
        yield Answers(rows)
