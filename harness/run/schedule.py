"""Slots, threads and events: running planned models' jobs on workers, results into the store.

Each model with missing work gets a worker slot (a GPU, or a share of the CPU cores); with more
slots than models, a model's job is sharded over the spare slots. A worker may be started ahead
(:meth:`Schedule.prestart`) so the model loads while the rest is planned. The main process owns
the store: every finished batch is written in its own transaction, so a crash or kill loses at
most the open batch.
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
from vlc_harness.run.executor import Executor, InProcessWorker, Worker
from vlc_harness.run.jobs import Job
from vlc_harness.run.plan import ModelRun
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
        self._shards = 1

    def prestart(self, run: ModelRun) -> None:
        """Start the worker of a model with work now, if a slot is free, so it loads meanwhile."""
        if run.job.n_pairs and run.live_model is None and not self._free.empty():
            slot = self._free.get()
            worker = self._start(run, slot)
            worker.load()
            self._started[id(run)] = (slot, worker)

    def run(self, runs: list[ModelRun], done: Callable[[ModelRun], None]) -> None:
        """Compute every run's job, calling ``done(run)`` as each model finishes."""
        working = [r for r in runs if r.job.n_pairs]
        self._shards = max(1, len(self.executor.slots) // max(1, len(working)))
        if len(self.executor.slots) == 1 or any(r.live_model is not None for r in runs):
            for r in runs:
                self._compute(r)
                done(r)
            return
        with ThreadPoolExecutor(max_workers=min(len(runs), len(self.executor.slots))) as pool:
            futures = {pool.submit(self._compute, r): r for r in runs}
            try:
                for future in as_completed(futures):
                    future.result()
                    done(futures[future])
            except BaseException:
                self._cancel.set()  # stop the other models' workers, then re-raise
                raise

    def _start(self, run: ModelRun, slot: Slot) -> Worker:
        if run.live_model is not None:
            return InProcessWorker(run.live_model, run.label)
        return self.executor.start(run.cls, run.entry.params, run.entry.run, run.label, slot[1])

    def _compute(self, run: ModelRun) -> None:
        """Run the model's job (if any) on its slot(s); worker errors are kept on ``run``."""
        if not run.job.n_pairs:
            self._release(self._started.pop(id(run), None))
            return
        assert run.identity is not None
        run.model_row = self.store.register_model(
            run.fingerprint, run.entry.type, identity_record(run.content, run.identity)
        )
        slot, worker = self._started.pop(id(run), None) or (None, None)
        if slot is None:
            slot = self._free.get()
            worker = self._start(run, slot)
        sharded = run.live_model is None and not run.cls.paid_requests  # API models pace themselves
        spare = self._spare(self._shards - 1) if sharded else []
        try:
            with self.budget.spending(run.cls.paid_requests) as allowance:
                run.job.max_cost_usd = allowance
                shards = run.job.split(1 + len(spare))
                results = self._shards_run(run, worker, slot, spare, shards)
                self.budget.add(run.sink.usage)
        finally:
            worker.close()
            for s in (slot, *spare):
                self._free.put(s)
        errors = [e for e, _ in results if e]
        devices = sorted({d for _, d in results if d})
        run.worker_error, run.device = ("\n".join(map(str, errors)) or None), (", ".join(devices) or None)
        run.worker_code = errors[0].code if errors else None

    def _shards_run(
        self, run: ModelRun, worker: Worker, slot: Slot, spare: list[Slot], shards: list[Job]
    ) -> list[tuple[WorkerFailed | None, str | None]]:
        """Shard 0 on the model's worker, the others on new workers on the spare slots."""
        results: list[tuple[WorkerFailed | None, str | None]] = [(None, None)] * len(shards)

        def extra(k: int) -> None:
            other = self._start(run, spare[k - 1])
            try:
                results[k] = self._events(
                    run, other, shards[k], f"{run.label} [{k + 1}/{len(shards)}]", spare[k - 1][0]
                )
            finally:
                other.close()

        threads = [threading.Thread(target=extra, args=(k,), daemon=True) for k in range(1, len(shards))]
        for t in threads:
            t.start()
        label = run.label if len(shards) == 1 else f"{run.label} [1/{len(shards)}]"
        results[0] = self._events(run, worker, shards[0], label, slot[0])
        for t in threads:
            t.join()
        return results

    def _events(
        self, run: ModelRun, worker: Worker, job: Job, label: str, position: int
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
        state = Recorder(self.store, run, bar, job)
        try:
            for event in worker.compute(job):
                if self._cancel.is_set():
                    raise Cancelled(f"{label}: cancelled")
                HANDLERS[type(event)](state, event)
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
