"""Slots, threads and events: running planned models' jobs on workers, results into the store.

Each model with missing work gets a worker slot (a GPU, or a share of the CPU cores); with more
slots than models, a model's job is sharded over the spare slots. A worker may be started ahead
(:meth:`Schedule.prestart`) so the model loads while the rest is planned. The main process owns
the store: every finished batch is written in its own transaction, so a crash or kill loses at
most the open batch. Past the run's deadline no model's job starts, and a worker finishes its batch and
stops (:mod:`vlc_harness.run.deadline`).
"""

from __future__ import annotations

import queue
import sys
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed

from vlc_harness.errors import HarnessError, WorkerFailed
from vlc_harness.fingerprint import identity_record
from vlc_harness.run.budget import RunBudget
from vlc_harness.run.deadline import computed, past
from vlc_harness.run.executor import Executor, InProcessWorker, Worker
from vlc_harness.run.jobs import Job
from vlc_harness.run.plan import ModelWork
from vlc_harness.run.record import HANDLERS, Recorder
from vlc_harness.store import Store

Slot = tuple[int, str]
"""(position, device) of a worker slot."""


class Cancelled(HarnessError):
    """The run was interrupted while this model was computing."""


class Schedule:
    """Runs the jobs of planned models over the executor's slots (see the module docstring)."""

    def __init__(self, store: Store, executor: Executor, budget: RunBudget, progress: bool = True) -> None:
        self.store, self.executor, self.budget, self.progress = store, executor, budget, progress
        self._free: queue.Queue[Slot] = queue.Queue()
        for slot in enumerate(executor.slots):
            self._free.put(slot)
        self._started: dict[int, tuple[Slot, Worker]] = {}
        self._cancel = threading.Event()
        self._lock = threading.Lock()
        self._shards = 1

    def prestart(self, work: ModelWork) -> None:
        """Start the worker of a model with work now, if a slot is free, so it loads meanwhile."""
        if work.job.n_pairs and work.live_model is None and not self._free.empty():
            slot = self._free.get()
            worker = self._start(work, slot)
            worker.load()
            self._started[id(work)] = (slot, worker)

    def run(self, works: list[ModelWork], done: Callable[[ModelWork], None]) -> None:
        """Compute every model's job, calling ``done(work)`` as each model finishes."""
        working = [r for r in works if r.job.n_pairs]
        self._shards = max(1, len(self.executor.slots) // max(1, len(working)))
        if len(self.executor.slots) == 1 or any(r.live_model is not None for r in works):
            for r in works:
                self._compute(r)
                done(r)
            return
        with ThreadPoolExecutor(max_workers=min(len(works), len(self.executor.slots))) as pool:
            futures = {pool.submit(self._compute, r): r for r in works}
            try:
                for future in as_completed(futures):
                    future.result()
                    done(futures[future])
            except BaseException:
                self._cancel.set()  # stop the other models' workers, then re-raise
                raise

    def _start(self, work: ModelWork, slot: Slot) -> Worker:
        if work.live_model is not None:
            return InProcessWorker(work.live_model, work.label)
        return self.executor.start(work.cls, work.entry.params, work.entry.run, work.label, slot[1])

    def _compute(self, work: ModelWork) -> None:
        """Run the model's job (if any) on its slot(s); worker errors are kept on ``work``."""
        stop_at = self.executor.config.stop_at
        if not work.job.n_pairs or past(stop_at):  # nothing to do, or the deadline came first: no new work
            work.stopped = bool(work.job.n_pairs)
            self._release(self._started.pop(id(work), None))
            return
        work.job.stop_at = stop_at
        assert work.identity is not None
        work.model_row = self.store.register_model(
            work.fingerprint, work.entry.type, identity_record(work.content, work.identity)
        )
        started = self._started.pop(id(work), None)  # started ahead (prestart): its slot and worker
        if started is None:
            slot = self._free.get()
            started = slot, self._start(work, slot)
        slot, worker = started
        sharded = work.live_model is None and not work.cls.paid_requests  # API models pace themselves
        spare = self._spare(self._shards - 1) if sharded else []
        try:
            with self.budget.spending(work.cls.paid_requests) as allowance:
                work.job.max_cost_usd = allowance
                shards = work.job.split(1 + len(spare))
                results = self._shards_run(work, worker, slot, spare, shards)
                self.budget.add(work.sink.usage)
        finally:
            worker.close()
            for s in (slot, *spare):
                self._free.put(s)
        errors = [e for e, _ in results if e]
        devices = sorted({d for _, d in results if d})
        work.worker_error, work.device = ("\n".join(map(str, errors)) or None), (", ".join(devices) or None)
        work.worker_code = errors[0].code if errors else None

    def _shards_run(
        self, work: ModelWork, worker: Worker, slot: Slot, spare: list[Slot], shards: list[Job]
    ) -> list[tuple[WorkerFailed | None, str | None]]:
        """Shard 0 on the model's worker, the others on new workers on the spare slots."""
        results: list[tuple[WorkerFailed | None, str | None]] = [(None, None)] * len(shards)

        def extra(k: int) -> None:
            other = self._start(work, spare[k - 1])
            try:
                results[k] = self._events(
                    work, other, shards[k], f"{work.label} [{k + 1}/{len(shards)}]", spare[k - 1][0]
                )
            finally:
                other.close()

        threads = [threading.Thread(target=extra, args=(k,), daemon=True) for k in range(1, len(shards))]
        for t in threads:
            t.start()
        label = work.label if len(shards) == 1 else f"{work.label} [1/{len(shards)}]"
        results[0] = self._events(work, worker, shards[0], label, slot[0])
        for t in threads:
            t.join()
        return results

    def _events(
        self, work: ModelWork, worker: Worker, job: Job, label: str, position: int
    ) -> tuple[WorkerFailed | None, str | None]:
        """Stream a job's events into the store and the run's sink; ``(worker failure, device)``."""
        from tqdm import tqdm

        bar = tqdm(
            total=job.n_pairs,
            unit="pair",
            desc=label,
            disable=not self.progress,
            file=sys.stderr,
            leave=False,
            position=position,
        )
        state = Recorder(self.store, work, bar, job)
        try:
            for event in worker.compute(job):
                if self._cancel.is_set():
                    raise Cancelled(f"{label}: cancelled")
                HANDLERS[type(event)](state, event)
                with self._lock:  # shards of one model record from their own threads
                    work.computed += computed(event)
        except WorkerFailed as exc:
            return exc, state.device
        finally:
            bar.close()
        return None, state.device

    def _spare(self, wanted: int) -> list[Slot]:
        spare: list[Slot] = []
        while len(spare) < wanted:
            try:
                spare.append(self._free.get_nowait())
            except queue.Empty:
                break
        return spare

    def _release(self, started: tuple[Slot, Worker] | None) -> None:
        if started is not None:
            started[1].close()
            self._free.put(started[0])
