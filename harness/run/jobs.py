"""What a model's worker is asked to do, and what it reports back.

A :class:`Job` lists image tasks (one image and the texts to score against it) sorted by image
key and text pairs for text-text scores (``embed`` models), texts for image-blind models, or
multiple-choice questions. The worker yields events batch by batch: :class:`Scores`,
:class:`TextScores`, :class:`Answers`, declined pairs (:class:`Abstained`), failed requests
(:class:`PairFailed`, :class:`AnswerFailed`), pairs without a score (:class:`Unscored`, from a
:class:`~vlc_harness.models.PairError`), unreadable images (:class:`ImageFailed`), API spending
(:class:`~vlc_harness.models.Usage`), :class:`Loaded` / :class:`Spent` / :class:`Progress` notices, and
:class:`Stopped` when the run's deadline ended the job early (:mod:`vlc_harness.run.deadline`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from vlc_harness.models import Usage
from vlc_harness.reasons import Reason

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
    """A multiple-choice question to ask: images as (key, path, transform), candidate texts in
    order, and for ``vqa`` the question asked about the image."""

    key: str
    kind: str
    images: list[tuple[str, str, dict[str, Any] | None]]
    texts: list[str]
    question: str = ""


@dataclass
class Job:
    """The work one model must do, in a deterministic order: pairs grouped by image (and text
    pairs), blind texts, or multiple-choice questions."""

    tasks: list[ImageTask] = field(default_factory=list)
    text_pairs: list[tuple[str, str]] = field(default_factory=list)
    """Text-text pairs to score (``embed`` models), each as the store keys it, in the order the
    instances need them (an instance's pairs stay together)."""
    blind_texts: list[str] = field(default_factory=list)
    questions: list[QuestionTask] = field(default_factory=list)
    batch_size: int = 0
    """Items per model call (0: the worker picks for its device: ``vlc_harness.run.batching.batch_size_for``)."""
    max_cost_usd: float | None = None
    """What the run may still spend on this job (API models); ``None``: no limit."""
    stop_at: float | None = None
    """The run's deadline (seconds since the epoch): the worker starts no batch after it."""

    @property
    def n_pairs(self) -> int:
        """Number of results this job produces (scores or answers)."""
        return (
            sum(len(t.texts) for t in self.tasks) + len(self.text_pairs) + len(self.blind_texts) + len(self.questions)
        )

    def split(self, parts: int) -> list[Job]:
        """Up to ``parts`` contiguous shards of about equal size (an image's texts stay together)."""
        parts = max(1, min(parts, len(self.tasks) + len(self.text_pairs) + len(self.blind_texts) + len(self.questions)))
        if parts == 1:
            return [self]
        shards = [
            Job(batch_size=self.batch_size, max_cost_usd=self.max_cost_usd, stop_at=self.stop_at) for _ in range(parts)
        ]
        for name, weight in (
            ("tasks", lambda t: len(t.texts)),
            ("text_pairs", lambda p: 1),
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
class TextScores:
    """A finished batch of text-text scores: ``(text a, text b, score)`` rows."""

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
    """A question whose request failed (or whose image could not be read): not an answer.
    ``code`` is the reason code (:mod:`vlc_harness.errors`)."""

    key: str
    message: str
    code: str = Reason.REQUEST_FAILED


@dataclass(frozen=True)
class Abstained:
    """Pairs the model declined to score: ``(image key, text, raw reply)`` rows (stored, never scores)."""

    rows: list[tuple[str, str, str]]


@dataclass(frozen=True)
class PairFailed:
    """A pair whose request failed (rate limit, timeout): not stored; a rerun asks it again.
    ``code`` is the reason code (:mod:`vlc_harness.errors`)."""

    key: str
    text: str
    message: str
    code: str = Reason.REQUEST_FAILED


@dataclass(frozen=True)
class Unscored:
    """A pair the model reported as having no score (:class:`~vlc_harness.models.PairError`): nothing
    is stored; the instances that need it fail with ``reason`` (the text) and ``code``."""

    key: str
    text: str
    reason: str
    code: str = Reason.PAIR_ERROR


@dataclass(frozen=True)
class Loaded:
    """The model finished loading on ``device`` (sent once, before its first scores), taking
    ``seconds`` (imports included)."""

    device: str
    seconds: float = 0.0


@dataclass(frozen=True)
class Spent:
    """Where a worker's time went in one job, in wall seconds per phase (``model_s``: the model's
    own calls; ``decode_wait_s``: waiting for images decoded ahead). Kept in the run's timings."""

    seconds: dict[str, float]


@dataclass(frozen=True)
class Progress:
    """Work that yields no scores yet (encoding the unique texts): ``done`` of ``total``."""

    stage: str
    done: int
    total: int


@dataclass(frozen=True)
class Stopped:
    """The run's deadline passed: the worker sent its last batch and starts no other in this job."""


Event = (
    Scores
    | TextScores
    | ImageFailed
    | Answers
    | AnswerFailed
    | Abstained
    | PairFailed
    | Unscored
    | Usage
    | Loaded
    | Spent
    | Progress
    | Stopped
)
