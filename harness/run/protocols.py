"""One object per scoring protocol: what work a cell is missing, how a worker runs it, and how
stored results become a cell's outcome arrays.

* :class:`Embed` (``embed``) and :class:`ScorePairs` (``score_pairs``): (image, text) scores, and
  for ``embed`` the text-text scores that text-only metrics read (other protocols leave those
  metrics out of their cells, saying why in the cell's provenance);
* :class:`ImageBlind` (``score_texts``): one score per text, under the image key ``''``;
* :class:`Choose` (``choose``): multiple-choice answers, keyed by the question as presented.

Every branch on a model's protocol lives here; :func:`protocol_for` picks the object once.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from vlc_harness.choices import Question
from vlc_harness.metrics.text_only import instance_text_pairs, text_pair_readers
from vlc_harness.models import ChoiceModel, EmbeddingModel, Model, PairScoringModel, TextOnlyModel, Usage
from vlc_harness.run.collect import Collected, collect_answers, collect_scores
from vlc_harness.run.jobs import ImageTask, Job, Origin, QuestionTask
from vlc_harness.store.scores import text_pair_key
from vlc_harness.types import Instance

if TYPE_CHECKING:
    from vlc_harness.run.plan import CellPlan
    from vlc_harness.store import Store


@dataclass
class Sink:
    """What a model's computation reported besides stored results: per-pair problems (which fail
    instances), failed requests (which leave cells partial), and API usage."""

    problems: dict[Any, str] = field(default_factory=dict)
    text_problems: dict[tuple[str, str], str] = field(default_factory=dict)
    """Text pairs (as the store keys them) the model gave no finite score for, and why."""
    request_failures: dict[tuple[str, str], str] = field(default_factory=dict)
    codes: dict[Any, str] = field(default_factory=dict)
    """The reason code (:mod:`vlc_harness.errors`) of each entry of ``problems`` and ``request_failures``
    (same keys); text problems are non-finite scores, all ``Reason.SCORE_ERROR``."""
    usage: Usage = field(default_factory=Usage)
    store_seconds: float = 0.0
    """Wall time the main process spent writing this model's results."""
    worker_seconds: dict[str, float] = field(default_factory=dict)
    """Wall time per phase in the model's worker(s) (loading, the model's calls, decoding)."""

    def add_worker_seconds(self, seconds: dict[str, float]) -> None:
        """Add the phases of a worker's :class:`~vlc_harness.run.jobs.Spent` or load time."""
        for phase, value in seconds.items():
            self.worker_seconds[phase] = self.worker_seconds.get(phase, 0.0) + value


class Protocol:
    """A scoring protocol (see the module docstring)."""

    name: ClassVar[str]
    image_blind: ClassVar[bool] = False
    text_pairs: ClassVar[bool] = False
    """Whether the protocol gives text-text scores (only ``embed``: they come from its text vectors)."""

    def __init__(self, cls: type[Model]) -> None:
        self.cls = cls

    def skip_reason(self, model_id: str, benchmark_id: str, benchmark: Any, instances: list[Instance]) -> str | None:
        """Why this protocol cannot score the benchmark (the cell is ``skipped``), or ``None``."""
        return None

    def skipped_metrics(self, benchmark: Any) -> dict[str, str]:
        """The benchmark's metrics this protocol cannot give, each with why (kept in the cell's
        provenance): text-text metrics for every protocol but ``embed``."""
        if self.text_pairs:
            return {}
        why = (
            f"{self.name} models give no text-text similarity; this text-only metric needs one "
            "(the cosine of an embed model's text vectors)"
        )
        return {r.id: why for f in text_pair_readers(benchmark.metric_families()) for r in f.reported()}

    def missing(self, cells: list[CellPlan], store: Store, model_row: int | None, batch_size: int) -> Job:
        """The work the cells need that the store lacks, in a deterministic order."""
        raise NotImplementedError

    def stored(self, store: Store, model_row: int | None) -> dict[str, Any]:
        """What :meth:`collect` reads of the store for this model."""
        raise NotImplementedError

    def collect(
        self, cell: CellPlan, stored: dict[str, Any], sink: Sink, worker_error: str | None, worker_code: str | None
    ) -> Collected:
        """The cell's outcome arrays and metrics from the stored results (``worker_code``: the
        reason code of ``worker_error``)."""
        raise NotImplementedError


class _Scores(Protocol):
    """Protocols that store (image key, text) scores."""

    def skip_reason(self, model_id: str, benchmark_id: str, benchmark: Any, instances: list[Instance]) -> str | None:
        if benchmark.answers_only:
            return f"{model_id} scores image-text pairs; {benchmark_id} asks questions, for models that answer them"
        return None

    def stored(self, store: Store, model_row: int | None) -> dict[str, Any]:
        text_scores = ({} if model_row is None else store.text_scores_for(model_row)) if self.text_pairs else None
        if model_row is None:
            return {"scores": {}, "abstained": {}, "text_scores": text_scores}
        abstained = store.abstained_pairs(model_row) if self.cls.can_abstain else {}
        return {"scores": store.scores_for(model_row), "abstained": abstained, "text_scores": text_scores}

    def collect(
        self, cell: CellPlan, stored: dict[str, Any], sink: Sink, worker_error: str | None, worker_code: str | None
    ) -> Collected:
        p = cell.prepared
        assert p.benchmark is not None
        return collect_scores(
            p.benchmark,
            p.instances,
            cell.keys,
            stored["scores"],
            sink.problems,
            worker_error,
            abstained=stored["abstained"],
            request_failures=sink.request_failures,
            coverage=self.cls.can_abstain,
            text_scores=stored["text_scores"],
            text_problems=sink.text_problems,
            codes=sink.codes,
            worker_code=worker_code,
        )

    def pairs(self, cells: list[CellPlan]) -> dict[tuple[str, str], list[Origin]]:
        """Every (image key, text) the cells need, with the (benchmark, instance, i, j) needing it."""
        with_origins = self.cls.needs_origins
        out: dict[tuple[str, str], list[Origin]] = {}
        for cell in cells:
            p = cell.prepared
            for inst in p.instances:
                keys = cell.keys[inst.id]
                if isinstance(keys, str):
                    continue
                for i, j in inst.needed_pairs():
                    origins = out.setdefault((keys[i], inst.texts[j]), [])
                    if with_origins:
                        origins.append((p.entry.id, p.data_version, inst.id, i, j))
        return out

    def unstored(self, cells: list[CellPlan], store: Store, model_row: int | None) -> tuple[list[tuple[str, str]], Any]:
        """The needed pairs the store has neither a score nor an abstention for, sorted."""
        pairs = self.pairs(cells)
        stored = store.stored_pairs(model_row) if model_row is not None else set()
        if self.cls.can_abstain and model_row is not None:
            stored |= set(store.abstained_pairs(model_row))  # an abstention is an answer too
        return sorted(k for k in pairs if k not in stored), pairs


class _ImagePairs(_Scores):
    """``embed`` and ``score_pairs``: tasks of one image and the texts to score against it."""

    def missing(self, cells: list[CellPlan], store: Store, model_row: int | None, batch_size: int) -> Job:
        missing, pairs = self.unstored(cells, store, model_row)
        sources: dict[str, tuple[str, dict[str, Any] | None]] = {}
        for cell in cells:
            for inst in cell.prepared.instances:
                keys = cell.keys[inst.id]
                if not isinstance(keys, str):
                    for key, src in zip(keys, inst.images):
                        sources.setdefault(key, (str(src.path), dict(src.transform) if src.transform else None))
        tasks: list[ImageTask] = []
        origins = self.cls.needs_origins
        for key, text in missing:  # sorted by key, so each image's texts are contiguous
            if not tasks or tasks[-1].key != key:
                path, transform = sources[key]
                tasks.append(ImageTask(key, path, transform, [], [] if origins else None))
            task = tasks[-1]
            task.texts.append(text)
            if task.origins is not None:
                task.origins.append(pairs[(key, text)])
        return Job(tasks=tasks, batch_size=batch_size)


class Embed(_ImagePairs):
    """Embeddings of each unique image and text, scored by the model's similarity; text pairs by
    its text-text similarity, from the same text vectors."""

    name = "embed"
    text_pairs = True

    def missing(self, cells: list[CellPlan], store: Store, model_row: int | None, batch_size: int) -> Job:
        job = super().missing(cells, store, model_row, batch_size)
        stored = store.stored_text_pairs(model_row) if model_row is not None else set()
        job.text_pairs = [p for p in needed_text_pairs(cells) if p not in stored]
        return job


def needed_text_pairs(cells: list[CellPlan]) -> list[tuple[str, str]]:
    """Every text pair (as the store keys it) the cells' text-text metrics read, each once, in the
    order the instances need them; instances whose images are missing are left out (they fail), as
    are cells whose benchmark did not load (it has no instances)."""
    out: dict[tuple[str, str], None] = {}
    for cell in cells:
        benchmark = cell.prepared.benchmark
        readers = text_pair_readers(benchmark.metric_families()) if benchmark is not None else []
        if not readers:
            continue
        for inst in cell.prepared.instances:
            if isinstance(cell.keys[inst.id], str):
                continue
            for a, b in instance_text_pairs(readers, inst):
                out.setdefault(text_pair_key(inst.texts[a], inst.texts[b]), None)
    return list(out)


class ScorePairs(_ImagePairs):
    """Joint (image, text) scores, grouped by image."""

    name = "score_pairs"


class ImageBlind(_Scores):
    """One score per unique text; every image gets it, so text-to-image choices tie."""

    name = "score_texts"
    image_blind = True

    def missing(self, cells: list[CellPlan], store: Store, model_row: int | None, batch_size: int) -> Job:
        missing, _ = self.unstored(cells, store, model_row)
        return Job(blind_texts=[t for _, t in missing], batch_size=batch_size)


class Choose(Protocol):
    """Multiple-choice answers, asked in every presentation order the benchmark defines."""

    name = "choose"

    def skip_reason(self, model_id: str, benchmark_id: str, benchmark: Any, instances: list[Instance]) -> str | None:
        kinds = {q.kind for i in instances[:1] for q in benchmark.questions(i)}
        if not kinds:
            return f"{model_id} answers multiple-choice questions; {benchmark_id} declares no multiple-choice form"
        assert issubclass(self.cls, ChoiceModel), "protocol_for gives Choose to choice models only"
        answerable = self.cls.question_kinds
        unanswered = kinds - set(answerable)
        if unanswered:
            answers = ", ".join(answerable)
            return f"{model_id} answers {answers} questions; {benchmark_id} asks {', '.join(sorted(unanswered))}"
        return None

    def missing(self, cells: list[CellPlan], store: Store, model_row: int | None, batch_size: int) -> Job:
        asked: dict[str, QuestionTask] = {}
        for cell in cells:
            benchmark = cell.prepared.benchmark
            if benchmark is None:  # it did not load: no instances, nothing to ask
                continue
            for inst in cell.prepared.instances:
                keys = cell.keys[inst.id]
                if not isinstance(keys, str):
                    for q in benchmark.questions(inst):
                        task = question_task(inst, q, keys)
                        asked.setdefault(task.key, task)
        answered = store.stored_answers(model_row) if model_row is not None else {}
        return Job(questions=[asked[k] for k in sorted(asked) if k not in answered], batch_size=batch_size)

    def stored(self, store: Store, model_row: int | None) -> dict[str, Any]:
        return {"answers": store.stored_answers(model_row) if model_row is not None else {}}

    def collect(
        self, cell: CellPlan, stored: dict[str, Any], sink: Sink, worker_error: str | None, worker_code: str | None
    ) -> Collected:
        p = cell.prepared
        assert p.benchmark is not None
        return collect_answers(
            p.benchmark, p.instances, cell.keys, stored["answers"], sink.problems, worker_error, sink.codes, worker_code
        )


def question_task(inst: Instance, q: Question, keys: list[str]) -> QuestionTask:
    """The worker task of one question of an instance (its ``key`` is the store key)."""
    sources = [(keys[i], inst.images[i]) for i in q.images]
    images = [(key, str(src.path), dict(src.transform) if src.transform else None) for key, src in sources]
    return QuestionTask(q.key(inst, keys), q.kind, images, q.candidates(inst), q.asked(inst))


PROTOCOL_CLASSES: dict[type[Model], type[Protocol]] = {
    EmbeddingModel: Embed,
    PairScoringModel: ScorePairs,
    TextOnlyModel: ImageBlind,
    ChoiceModel: Choose,
}


def protocol_for(cls: type[Model]) -> Protocol:
    """The protocol object of a model class (by the protocol base class it derives from)."""
    for base, protocol in PROTOCOL_CLASSES.items():
        if issubclass(cls, base):
            return protocol(cls)
    raise TypeError(
        f"{cls.__qualname__} derives from no protocol base class ({', '.join(p.__name__ for p in PROTOCOL_CLASSES)})"
    )
