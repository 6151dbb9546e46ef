"""Running the grid: per model, gather the pairs its benchmarks need, compute what is missing in
a worker, store it batch by batch, then record one cell per (model, benchmark).

The order of work is deterministic (pairs sorted by image key, then text), so a resumed run
computes exactly the missing pairs and ends with the same results as an uninterrupted one.
"""

from __future__ import annotations

import math
import queue
import sys
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Protocol

from harness.cells import collect_answers, collect_scores, inputs_hash, question_task, status_and_error
from harness.devices import cpu_threads_per_worker
from harness.engine import (
    Abstained,
    AnswerFailed,
    Answers,
    ImageFailed,
    ImageTask,
    Job,
    Loaded,
    Origin,
    PairFailed,
    Progress,
    QuestionTask,
    Scores,
    Unscored,
)
from harness.errors import HarnessError, Unavailable
from harness.fingerprint import fingerprint_content, identity_record, model_fingerprint
from harness.metrics.cell import NO_METRICS, bootstrap_samples, metrics_version
from harness.models import ChoiceModel, Identity, Model, Usage
from harness.plugins import Plugins
from harness.prepared import PreparedBenchmark, prepare
from harness.registry import BenchmarkEntry, ModelEntry
from harness.store import CellRecord, Store
from harness.store.store import Outcome
from harness.worker import InProcessWorker, SubprocessWorker, WorkerFailed

STATUSES = ("ok", "partial", "failed", "unavailable", "skipped")


class Cancelled(HarnessError):
    """The run was interrupted while this model was computing."""


class Worker(Protocol):
    """What the scheduler needs from a worker (subprocess or in-process)."""

    def identify(self) -> Identity: ...  # noqa: D102
    def compute(self, job: Job) -> Any: ...  # noqa: D102
    def close(self) -> None: ...  # noqa: D102


@dataclass
class RunReport:
    """Every cell a run recorded, plus the run id and what API models spent (per model id)."""

    run_id: int | None
    cells: list[CellRecord] = field(default_factory=list)
    usage: dict[str, dict[str, Any]] = field(default_factory=dict)

    def exit_code(self, strict: bool = False) -> int:
        """0 when every cell is ok, partial, unavailable or skipped; 1 when any failed.

        With ``strict``, an unavailable cell also fails the run.
        """
        bad = {"failed", "unavailable"} if strict else {"failed"}
        return 1 if any(c.status in bad for c in self.cells) else 0


@dataclass
class _Sink:
    """What a model's computation reported besides stored results: per-pair problems (which fail
    instances), failed requests (which leave cells partial), and API usage."""

    problems: dict[Any, str] = field(default_factory=dict)
    request_failures: dict[tuple[str, str], str] = field(default_factory=dict)
    usage: Usage = field(default_factory=Usage)

    def usage_record(self) -> dict[str, Any]:
        """The usage as stored in provenance (``stopped`` left out: it is in the cell's error)."""
        return {k: v for k, v in asdict(self.usage).items() if k != "stopped"}


@dataclass
class _Needs:
    """For one prepared benchmark: each instance's pair keys, or why it cannot be scored."""

    prepared: PreparedBenchmark
    keys: dict[str, list[str] | str] = field(default_factory=dict)
    unavailable: str | None = None


class Scheduler:
    """Runs models over prepared benchmarks and records cells in the store."""

    def __init__(
        self,
        store: Store,
        plugins: Plugins,
        data_root: Path,
        limit: int | None = None,
        progress: bool = True,
        run_id: int | None = None,
        slots: list[str] | None = None,
        max_cost: float | None = None,
        executor: str = "local",
        recompute_metrics: bool = False,
    ) -> None:
        self.store = store
        self.plugins = plugins
        self.data_root = Path(data_root)
        self.limit = limit
        self.progress = progress
        self.run_id = run_id
        self.slots = slots or ["auto"]
        self._threads = cpu_threads_per_worker(self.slots)
        self._free: queue.Queue[tuple[int, str]] = queue.Queue()
        for index, device in enumerate(self.slots):
            self._free.put((index, device))
        self._shards = 1
        self._cancel = threading.Event()
        self._prepared: dict[str, PreparedBenchmark] = {}
        self.recompute_metrics = recompute_metrics
        """Rebuild every cell from its stored scores instead of reusing a stored cell."""
        self.executor = executor
        """``local`` (spawned worker processes) or ``ray`` (Ray actors; see :mod:`harness.ray_worker`)."""
        self.max_cost = max_cost
        """``--max-cost`` in USD for the whole run (``None``: no limit)."""
        self.usage: dict[str, dict[str, Any]] = {}
        """Per model id: what its API requests spent in this run."""
        self._spent_usd = 0.0
        self._paid_lock = threading.Lock()  # with a cost limit, paid models spend one at a time

    def run_models(
        self,
        models: list[ModelEntry],
        benchmarks: list[BenchmarkEntry],
        on_cell: Callable[[CellRecord], None] | None = None,
        live_model: Model | None = None,
    ) -> list[CellRecord]:
        """Run every model on every benchmark, spread over the worker slots.

        With more slots than models, each model's pairs are sharded over the spare slots.
        """
        for b in benchmarks:
            self.prepare(b)
        done: dict[str, list[CellRecord]] = {}

        def finished(entry: ModelEntry, cells: list[CellRecord]) -> None:
            done[entry.id] = cells
            for cell in cells:
                if on_cell:
                    on_cell(cell)

        if live_model is not None or len(self.slots) == 1:
            for entry in models:
                finished(entry, self.run_model(entry, benchmarks, live_model))
        else:
            self._shards = max(1, len(self.slots) // len(models))
            with ThreadPoolExecutor(max_workers=min(len(models), len(self.slots))) as pool:
                futures = {pool.submit(self.run_model, entry, benchmarks): entry for entry in models}
                try:
                    for future in as_completed(futures):
                        finished(futures[future], future.result())
                except BaseException:
                    self._cancel.set()  # stop the other models' workers, then re-raise
                    raise
        return [cell for entry in models for cell in done.get(entry.id, [])]

    def prepare(self, entry: BenchmarkEntry) -> PreparedBenchmark:
        """Load a benchmark once per run."""
        if entry.id not in self._prepared:
            self._prepared[entry.id] = prepare(entry, self.plugins.benchmarks, self.data_root, self.limit)
        return self._prepared[entry.id]

    def run_model(
        self,
        entry: ModelEntry,
        benchmarks: list[BenchmarkEntry],
        live_model: Model | None = None,
    ) -> list[CellRecord]:
        """Evaluate one model on the given benchmarks and record a cell for each."""
        cls = type(live_model) if live_model is not None else self.plugins.models.get(entry.type).cls
        prepared = [self.prepare(b) for b in benchmarks]
        cells: list[tuple[CellRecord, list[Outcome] | None]] = []
        runnable = []
        for p in prepared:
            if p.unavailable:
                cells.append((self._cell(entry, p, "unavailable", error=p.unavailable), []))
            elif p.load_error:
                cells.append((self._cell(entry, p, "failed", error=p.load_error), []))
            elif issubclass(cls, ChoiceModel) and not any(p.benchmark.questions(i) for i in p.instances[:1]):
                reason = f"{entry.id} answers multiple-choice questions; {p.entry.id} declares no multiple-choice form"
                cells.append((self._cell(entry, p, "skipped", error=reason), []))
            else:
                runnable.append(p)
        if runnable:
            cells.extend(self._run_available(entry, cls, runnable, live_model))
        for cell, outcomes in cells:
            if outcomes is not None:  # None: a stored cell reused as it is
                self.store.save_cell(cell, outcomes)
        return [cell for cell, _ in cells]

    # -- internals ---------------------------------------------------------------------
    def _cell(self, entry: ModelEntry, p: PreparedBenchmark, status: str, **kw: Any) -> CellRecord:
        kw.setdefault("metrics_version", NO_METRICS)
        return CellRecord(
            model_id=entry.id,
            benchmark_id=p.entry.id,
            benchmark_type=p.entry.type,
            status=status,
            data_version=p.data_version,
            manifest_hash=p.manifest_hash,
            n_instances=len(p.instances),
            instance_limit=p.limit,
            run_id=self.run_id,
            **kw,
        )

    def _worker(self, entry: ModelEntry, cls: type[Model], live_model: Model | None, device: str) -> Worker:
        if live_model is not None:
            return InProcessWorker(live_model, entry.id)
        if self.executor == "ray":
            from harness.ray_worker import RayWorker

            return RayWorker(cls, entry.params, entry.run, entry.id, device=device, threads=self._threads)
        return SubprocessWorker(cls, entry.params, entry.run, entry.id, device=device, threads=self._threads)

    def _spare_slots(self, wanted: int) -> list[tuple[int, str]]:
        spare = []
        while len(spare) < wanted:
            try:
                spare.append(self._free.get_nowait())
            except queue.Empty:
                break
        return spare

    def _run_available(
        self, entry: ModelEntry, cls: type[Model], prepared: list[PreparedBenchmark], live_model: Model | None
    ) -> list[tuple[CellRecord, list[Outcome] | None]]:
        needs = [self._needs(p, cls.image_blind) for p in prepared]
        if all(n.unavailable for n in needs):  # no images anywhere: no need to start the model
            return [(self._cell(entry, n.prepared, "unavailable", error=n.unavailable), []) for n in needs]
        try:  # in this process: identifying a model never loads it (see Model.identify)
            identity = (live_model if live_model is not None else cls(entry.params, entry.run)).identify()
        except Unavailable as exc:
            return [(self._cell(entry, p, "unavailable", error=str(exc)), []) for p in prepared]
        except Exception as exc:  # a plugin's bug fails its cells, never the run
            return [
                (self._cell(entry, p, "failed", error=f"identify failed: {type(exc).__name__}: {exc}"), [])
                for p in prepared
            ]
        content = fingerprint_content(entry.type, entry.params_dict(), identity, cls.scoring_version)
        fingerprint = model_fingerprint(content)
        model_row = self.store.register_model(fingerprint, entry.type, identity_record(content, identity))
        reused = {id(n): self._reusable(entry, fingerprint, n) for n in needs}
        todo = [n for n in needs if reused[id(n)] is None]
        sink = _Sink()
        worker_error, device = None, None
        job = self._missing_work(entry, cls, todo, model_row) if todo else Job()
        if job.n_pairs:  # a worker starts only for a model with missing work
            slot = self._free.get()
            spare: list[tuple[int, str]] = []
            worker = self._worker(entry, cls, live_model, slot[1])
            try:
                sharded = live_model is None and not cls.paid_requests  # API models pace themselves
                spare = self._spare_slots(self._shards - 1) if sharded else []
                worker_error, device = self._run_job(entry, cls, worker, slot, spare, job, model_row, sink)
            finally:
                worker.close()
                for s in (slot, *spare):
                    self._free.put(s)
        abstained: dict[tuple[str, str], str] = {}
        scores: Any = {}
        if todo and issubclass(cls, ChoiceModel):
            scores = self.store.stored_answers(model_row)
        elif todo:
            scores = self.store.scores_for(model_row)
            if cls.can_abstain:
                abstained = self.store.abstained_pairs(model_row)
        provenance = {
            "model": identity_record(content, identity),
            "fingerprint": fingerprint,
            "device": device or "none (every score was already stored)",
            "dtype": identity.dtype,
            "run": asdict(entry.run),
            "meta": entry.meta,
        }
        if cls.paid_requests:
            provenance["usage"] = sink.usage_record()  # this model's requests in this run, all its cells
            self.usage[entry.id] = sink.usage_record()
        out: list[tuple[CellRecord, list[Outcome] | None]] = []
        for n in needs:
            stored = reused[id(n)]
            if stored is not None:
                stored.reused = True
                out.append((stored, None))
            else:
                out.append(self._finish(entry, cls, fingerprint, n, scores, abstained, sink, worker_error, provenance))
        return out

    def _reusable(self, entry: ModelEntry, fingerprint: str, needs: _Needs) -> CellRecord | None:
        """The stored cell of this model and benchmark when nothing it depends on changed.

        Same model fingerprint, instance manifest, data version, image keys (so every score it
        read is still stored: scores are never deleted) and metrics version; a cell that failed,
        or is partial for another reason than ``--limit``, is computed again.
        """
        p = needs.prepared
        if self.recompute_metrics or needs.unavailable or p.benchmark is None:
            return None
        stored = self.store.stored_cell(entry.id, fingerprint, p.entry.id, p.manifest_hash)
        if stored is None or stored.status not in ("ok", "partial") or stored.error or stored.n_failed:
            return None
        if stored.instance_limit != p.limit or stored.data_version != p.data_version:
            return None
        if stored.metrics_version != metrics_version(p.benchmark, bootstrap_samples()):
            return None
        return stored if stored.inputs_hash == inputs_hash(p.instances, needs.keys) else None

    def _run_job(
        self,
        entry: ModelEntry,
        cls: type[Model],
        worker: Worker,
        slot: tuple[int, str],
        spare: list[tuple[int, str]],
        job: Job,
        model_row: int,
        sink: _Sink,
    ) -> tuple[str | None, str | None]:
        """Run a model's job; with ``--max-cost``, a paid model's job gets what the run has left,
        and paid models run one at a time so that two never spend the same remainder."""
        if not (cls.paid_requests and self.max_cost is not None):
            return self._run_shards(entry, cls, worker, slot, spare, job.split(1 + len(spare)), model_row, sink)
        with self._paid_lock:
            job.max_cost_usd = max(0.0, self.max_cost - self._spent_usd)
            try:
                return self._run_shards(entry, cls, worker, slot, spare, [job], model_row, sink)
            finally:
                self._spent_usd += sink.usage.cost_usd or 0.0

    def _missing_work(self, entry: ModelEntry, cls: type[Model], needs: list[_Needs], model_row: int) -> Job:
        """The pairs (or questions) all selected benchmarks need that the store lacks, sorted."""
        if issubclass(cls, ChoiceModel):
            asked = self._questions(needs)
            stored_answers = self.store.stored_answers(model_row)
            missing_questions = sorted(k for k in asked if k not in stored_answers)
            return Job(questions=[asked[k][1] for k in missing_questions], batch_size=entry.run.batch_size)
        pairs = self._union(needs, cls.needs_origins)
        stored = self.store.stored_pairs(model_row)
        if cls.can_abstain:
            stored |= set(self.store.abstained_pairs(model_row))  # an abstention is an answer too
        missing = sorted(k for k in pairs if k not in stored)
        return self._job(missing, pairs, needs, entry, cls)

    def _run_shards(
        self,
        entry: ModelEntry,
        cls: type[Model],
        worker: Worker,
        slot: tuple[int, str],
        spare: list[tuple[int, str]],
        shards: list[Job],
        model_row: int,
        sink: _Sink,
    ) -> tuple[str | None, str | None]:
        """Shard 0 in this thread's worker, the others in new workers on the spare slots."""
        results: list[tuple[str | None, str | None]] = [(None, None)] * len(shards)

        def run_extra(k: int) -> None:
            index, device = spare[k - 1]
            extra = self._worker(entry, cls, None, device)
            try:
                results[k] = self._compute(
                    extra, shards[k], model_row, f"{entry.id} [{k + 1}/{len(shards)}]", sink, index
                )
            finally:
                extra.close()

        threads = [threading.Thread(target=run_extra, args=(k,), daemon=True) for k in range(1, len(shards))]
        for t in threads:
            t.start()
        label = entry.id if len(shards) == 1 else f"{entry.id} [1/{len(shards)}]"
        results[0] = self._compute(worker, shards[0], model_row, label, sink, slot[0])
        for t in threads:
            t.join()
        errors = [e for e, _ in results if e]
        devices = sorted({d for _, d in results if d})
        return ("\n".join(errors) or None), (", ".join(devices) or None)

    def _needs(self, p: PreparedBenchmark, blind: bool) -> _Needs:
        needs = _Needs(p)
        if not blind:
            reason = p.resolve_images()
            if reason:
                needs.unavailable = reason
                return needs
        for inst in p.instances:
            needs.keys[inst.id] = p.instance_keys(inst, blind)
        return needs

    def _union(self, needs: list[_Needs], with_origins: bool) -> dict[tuple[str, str], list[Origin]]:
        pairs: dict[tuple[str, str], list[Origin]] = {}
        for n in needs:
            if n.unavailable:
                continue
            p = n.prepared
            for inst in p.instances:
                keys = n.keys[inst.id]
                if isinstance(keys, str):
                    continue
                for i, j in inst.needed_pairs():
                    origins = pairs.setdefault((keys[i], inst.texts[j]), [])
                    if with_origins:
                        origins.append((p.entry.id, p.data_version, inst.id, i, j))
        return pairs

    def _job(
        self,
        missing: list[tuple[str, str]],
        pairs: dict[tuple[str, str], list[Origin]],
        needs: list[_Needs],
        entry: ModelEntry,
        cls: type[Model],
    ) -> Job:
        batch_size = int(getattr(entry.run, "batch_size", 32))
        if cls.image_blind:
            return Job(blind_texts=[t for _, t in missing], batch_size=batch_size)
        sources: dict[str, tuple[str, dict[str, Any] | None]] = {}
        for n in needs:
            if n.unavailable:
                continue
            for inst in n.prepared.instances:
                keys = n.keys[inst.id]
                if isinstance(keys, str):
                    continue
                for key, src in zip(keys, inst.images):
                    sources.setdefault(key, (str(src.path), dict(src.transform) if src.transform else None))
        tasks: list[ImageTask] = []
        for key, text in missing:  # sorted by key, so each image's texts are contiguous
            if not tasks or tasks[-1].key != key:
                path, transform = sources[key]
                tasks.append(ImageTask(key, path, transform, [], [] if cls.needs_origins else None))
            tasks[-1].texts.append(text)
            if cls.needs_origins:
                tasks[-1].origins.append(pairs[(key, text)])  # type: ignore[union-attr]
        return Job(tasks=tasks, batch_size=batch_size)

    def _questions(self, needs: list[_Needs]) -> dict[str, tuple[dict[str, Any], QuestionTask]]:
        """Every question to ask, keyed by its store key (shared questions are asked once)."""
        asked: dict[str, tuple[dict[str, Any], QuestionTask]] = {}
        for n in needs:
            if n.unavailable:
                continue
            assert n.prepared.benchmark is not None
            for inst in n.prepared.instances:
                keys = n.keys[inst.id]
                if isinstance(keys, str):
                    continue
                for q in n.prepared.benchmark.questions(inst):
                    key, content, task = question_task(inst, q, keys)
                    asked.setdefault(key, (content, task))
        return asked

    def _compute(
        self, worker: Worker, job: Job, model_row: int, label: str, sink: _Sink, position: int = 0
    ) -> tuple[str | None, str | None]:
        from tqdm import tqdm

        problems = sink.problems
        device = None
        bar = tqdm(
            total=job.n_pairs,
            unit="pair",
            desc=label,
            disable=not self.progress,
            file=sys.stderr,
            leave=False,
            position=position,
        )
        paths = {t.key: t for t in job.tasks}
        questions = {
            q.key: {"kind": q.kind, "images": [k for k, _, _ in q.images], "texts": q.texts} for q in job.questions
        }
        try:
            for event in worker.compute(job):
                if self._cancel.is_set():
                    raise Cancelled(f"{label}: cancelled")
                if isinstance(event, Scores):
                    good = []
                    for key, text, score in event.rows:
                        if math.isfinite(score):
                            good.append((key, text, score))
                        else:
                            where = paths[key].path if key in paths else "(image-blind)"
                            problems[(key, text)] = f"model returned {score} for image {where} and text {text!r}"
                    self.store.add_scores(model_row, good)
                    bar.update(len(event.rows))
                elif isinstance(event, ImageFailed):
                    for text in paths[event.key].texts:
                        problems[(event.key, text)] = f"cannot read image {event.path}: {event.message}"
                    bar.update(len(paths[event.key].texts))
                elif isinstance(event, Answers):
                    self.store.add_answers(model_row, [(k, questions[k], c, raw) for k, c, raw in event.rows])
                    bar.update(len(event.rows))
                elif isinstance(event, AnswerFailed):
                    problems[event.key] = event.message
                    bar.update(1)
                elif isinstance(event, Abstained):
                    self.store.add_abstentions(model_row, event.rows)
                    bar.update(len(event.rows))
                elif isinstance(event, PairFailed):
                    sink.request_failures[(event.key, event.text)] = event.message
                    bar.update(1)
                elif isinstance(event, Unscored):
                    problems[(event.key, event.text)] = event.reason
                    bar.update(1)
                elif isinstance(event, Usage):
                    sink.usage = sink.usage.plus(event)
                elif isinstance(event, Loaded):
                    device = event.device
                elif isinstance(event, Progress):
                    bar.set_postfix_str(f"{event.stage} {event.done}/{event.total}")
        except WorkerFailed as exc:
            return str(exc), device
        finally:
            bar.close()
        return None, device

    def _finish(
        self,
        entry: ModelEntry,
        cls: type[Model],
        fingerprint: str,
        needs: _Needs,
        stored: dict[Any, Any],
        abstained: dict[tuple[str, str], str],
        sink: _Sink,
        worker_error: str | None,
        provenance: dict[str, Any],
    ) -> tuple[CellRecord, list[Outcome]]:
        p = needs.prepared
        assert p.benchmark is not None
        if needs.unavailable:
            return self._cell(entry, p, "unavailable", fingerprint=fingerprint, error=needs.unavailable), []
        if issubclass(cls, ChoiceModel):
            collected = collect_answers(p.benchmark, p.instances, needs.keys, stored, sink.problems, worker_error)
        else:
            collected = collect_scores(
                p.benchmark,
                p.instances,
                needs.keys,
                stored,
                sink.problems,
                worker_error,
                abstained=abstained,
                request_failures=sink.request_failures,
                coverage=cls.can_abstain,
            )
        stopped = None
        if sink.usage.stopped:
            limit = f" ${self.max_cost:g}" if self.max_cost is not None else ""
            stopped = (
                f"stopped before exceeding --max-cost{limit}: {sink.usage.stopped}; the requests not sent are "
                "not stored (rerun, with a larger --max-cost, to send them)"
            )
        status, error = status_and_error(collected, worker_error, len(p.instances), p.limit is not None, stopped)
        cell = self._cell(
            entry,
            p,
            status,
            fingerprint=fingerprint,
            n_scored=collected.n_scored,
            n_failed=len(collected.failures),
            complete=status == "ok",
            error=error,
            metrics=collected.metrics,
            replicates=collected.cell.replicates,
            metrics_version=metrics_version(p.benchmark, collected.cell.samples or bootstrap_samples()),
            inputs_hash=inputs_hash(p.instances, needs.keys),
            provenance={
                **provenance,
                "benchmark_params": p.entry.params_dict(),
                "data_files": {f.relpath: f.sha256 for f in p.benchmark.data_files()},
            },
        )
        return cell, collected.outcomes
