"""Running one model over a job of pairs, by its protocol. Used inside worker processes.

A :class:`Job` lists image tasks (one image and the texts to score against it) sorted by image
key; the engine encodes each unique input once and yields :class:`Scores` batches as they finish,
so the main process can store them as it goes. An image that cannot be decoded yields an
:class:`ImageFailed` event and the rest goes on.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from harness.images import load_image
from harness.models import (
    ChoiceModel,
    ChoiceQuestion,
    EmbeddingModel,
    Model,
    PairGroup,
    PairScoringModel,
    TextOnlyModel,
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

    @property
    def n_pairs(self) -> int:
        """Number of results this job produces (scores or answers)."""
        return sum(len(t.texts) for t in self.tasks) + len(self.blind_texts) + len(self.questions)


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
class Loaded:
    """The model finished loading on ``device`` (sent once, before its first scores)."""

    device: str


@dataclass(frozen=True)
class Progress:
    """Work that yields no scores yet (encoding the unique texts): ``done`` of ``total``."""

    stage: str
    done: int
    total: int


Event = Scores | ImageFailed | Answers | AnswerFailed | Loaded | Progress


def run_job(model: Model, job: Job) -> Iterator[Event]:
    """Compute every pair (or answer every question) of ``job``, yielding events batch by batch."""
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


def _run_texts(model: TextOnlyModel, job: Job) -> Iterator[Event]:
    for batch in _chunks(job.blind_texts, job.batch_size):
        scores = model.score_texts(list(batch))
        _check_len(model, len(batch), scores)
        yield Scores([(BLIND_IMAGE_KEY, t, float(s)) for t, s in zip(batch, scores)])


def _decode(model: Model, tasks: Sequence[ImageTask]) -> tuple[list[tuple[ImageTask, Any]], list[ImageFailed]]:
    ok: list[tuple[ImageTask, Any]] = []
    failed: list[ImageFailed] = []
    for task in tasks:
        if not model.needs_pixels:
            ok.append((task, None))
            continue
        try:
            image = load_image(task.path, task.transform)
            ok.append((task, model.preprocess(image)))  # type: ignore[attr-defined]
        except Exception as exc:  # any unreadable file fails only its own instances
            failed.append(ImageFailed(task.key, task.path, f"{type(exc).__name__}: {exc}"))
    return ok, failed


def _run_embed(model: EmbeddingModel, job: Job) -> Iterator[Event]:
    import numpy as np

    texts = sorted({t for task in job.tasks for t in task.texts})
    index = {t: i for i, t in enumerate(texts)}
    text_vecs = []
    for batch in _chunks(texts, job.batch_size):
        vecs = np.asarray(model.embed_texts(list(batch)))
        _check_len(model, len(batch), vecs)
        text_vecs.append(vecs)
        yield Progress("texts", sum(len(v) for v in text_vecs), len(texts))
    all_text_vecs = np.concatenate(text_vecs) if text_vecs else np.zeros((0, 0))
    for batch in _chunks(job.tasks, job.batch_size):
        decoded, failed = _decode(model, batch)
        yield from failed
        if not decoded:
            continue
        image_vecs = np.asarray(model.embed_images([x for _, x in decoded]))
        _check_len(model, len(decoded), image_vecs)
        rows_i, rows_t, keys = [], [], []
        for k, (task, _) in enumerate(decoded):
            for t in task.texts:
                rows_i.append(k)
                rows_t.append(index[t])
                keys.append((task.key, t))
        scores = np.asarray(model.pair_scores(image_vecs[rows_i], all_text_vecs[rows_t]))
        yield Scores([(k, t, float(s)) for (k, t), s in zip(keys, scores)])


def _run_pairs(model: PairScoringModel, job: Job) -> Iterator[Event]:
    batch: list[ImageTask] = []
    n_pairs = 0
    for task in job.tasks:
        batch.append(task)
        n_pairs += len(task.texts)
        if n_pairs >= job.batch_size:
            yield from _score_pair_batch(model, batch)
            batch, n_pairs = [], 0
    if batch:
        yield from _score_pair_batch(model, batch)


def _score_pair_batch(model: PairScoringModel, tasks: list[ImageTask]) -> Iterator[Event]:
    decoded, failed = _decode(model, tasks)
    yield from failed
    if not decoded:
        return
    groups = [PairGroup(task.key, image, task.texts, task.origins) for task, image in decoded]
    results = model.score_pairs(groups)
    _check_len(model, len(groups), results)
    rows = []
    for group, scores in zip(groups, results):
        _check_len(model, len(group.texts), scores)
        rows.extend((group.image_key, t, float(s)) for t, s in zip(group.texts, scores))
    yield Scores(rows)


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
