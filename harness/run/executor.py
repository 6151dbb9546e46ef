"""Where models run: worker processes here, Ray actors on a cluster, or this process; chosen once.

A worker holds one model, loaded once and reused for all its work; the main process owns the
store. In a worker process or a Ray actor, a crash, hang or segfault in a model therefore loses
at most its open batch and fails only that model's cells. Every kind of worker has the same
interface (:class:`Worker`): ``load()`` (start loading now, while the main process plans the
rest), ``compute(job)`` (the job's events as they come) and ``close()``.

The ``inprocess`` executor builds each model in this process instead (:class:`InProcessWorker`):
no interpreter to start and no torch import per model, the same events, and an exception of the
model still fails only its cells, as a :class:`~vlc_harness.errors.WorkerFailed` with the code
of its type. It isolates nothing else: a segfault or ``os._exit`` ends the whole run, a hang is
never killed (``run.timeout_s`` does not apply), the thread limits a worker process gets do not
apply, and a model's global state (imports, seeds, caches) stays in this process.
"""

from __future__ import annotations

import dataclasses
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from multiprocessing.connection import Connection
from typing import Any, Protocol

from vlc_harness.config import RunConfig
from vlc_harness.devices import cpu_threads_per_worker, worker_slots
from vlc_harness.errors import WorkerFailed, model_reason_of
from vlc_harness.models import Model
from vlc_harness.plugins import class_locator
from vlc_harness.reasons import Reason
from vlc_harness.run.jobs import Event, Job


class Worker(Protocol):
    """What the schedule needs from a worker."""

    def load(self) -> None: ...  # noqa: D102
    def compute(self, job: Job) -> Iterator[Event]: ...  # noqa: D102
    def close(self) -> None: ...  # noqa: D102


class Executor:
    """Starts workers as ``config.executor`` says: ``local`` (processes on this machine), ``ray``
    (actors on the cluster at ``config.ray_address``) or ``inprocess`` (models built in this
    process, see the module docstring); each worker's model gets ``config``.

    ``slots`` lists one device per worker slot: one per visible GPU (or ``config.workers``), else
    one ``auto`` slot; under Ray, one per cluster GPU (or ``config.workers`` CPU slots). In process,
    the slots are threads of this process.
    """

    def __init__(self, config: RunConfig) -> None:
        self.config = config
        if config.executor == "ray":
            from vlc_harness.run.ray_actor import connect

            self.slots = connect(config.ray_address, config.workers)
        else:
            self.slots = worker_slots(config.workers)
        self.threads = cpu_threads_per_worker(self.slots)

    def start(self, cls: type[Model], params: Any, run: Any, label: str, device: str) -> Worker:
        """A worker for one model on ``device`` (the slot's device, unless the entry pins one)."""
        if device and device != "auto" and getattr(run, "device", "auto") == "auto":
            run = dataclasses.replace(run, device=device)
        if self.config.executor == "ray":
            from vlc_harness.run.ray_actor import RayWorker

            return RayWorker(cls, params, run, label, self.config, device=device, threads=self.threads)
        if self.config.executor == "inprocess":
            return InProcessWorker.build(cls, params, run, label, self.config)
        return LocalWorker(cls, params, run, label, self.config, threads=self.threads)


class LocalWorker:
    """A model in a ``python -m vlc_harness.run.worker`` process, talking over a socket pair."""

    def __init__(
        self, cls: type[Model], params: Any, run: Any, label: str, config: RunConfig, threads: int | None = None
    ) -> None:
        self.label = label
        self.timeout_s = float(getattr(run, "timeout_s", 900.0))
        env = dict(os.environ)
        if threads:  # before torch is imported: CPU workers share the cores instead of oversubscribing
            env.update({v: str(threads) for v in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")})
        ours, theirs = socket.socketpair()
        self._proc = subprocess.Popen(
            [sys.executable, "-m", "vlc_harness.run.worker", str(theirs.fileno())],
            pass_fds=[theirs.fileno()],
            env=env,
        )
        theirs.close()
        self._conn = Connection(ours.detach())
        self._send(("init", class_locator(cls), dataclasses.asdict(params), dataclasses.asdict(run), config))

    def load(self) -> None:
        """Start loading the model now (its ``Loaded`` event arrives with the first job)."""
        self._send(("load",))

    def compute(self, job: Job) -> Iterator[Event]:
        """Send a job and yield its events as they arrive; raise WorkerFailed on any failure."""
        self._send(("compute", job))
        while True:
            kind, *rest = self._receive()
            if kind == "event":
                yield rest[0]
            elif kind == "done":
                return
            else:  # ("error", message, reason code)
                raise WorkerFailed(f"{self.label}: {rest[0] if rest else kind}", rest[1] if len(rest) > 1 else None)

    def close(self) -> None:
        """Stop the worker (politely, then by force)."""
        if self._proc.poll() is None:
            try:
                self._conn.send(("stop",))
                self._proc.wait(10)
            except (OSError, subprocess.TimeoutExpired):
                pass
        if self._proc.poll() is None:
            self._proc.kill()
            self._proc.wait(5)
        self._conn.close()

    def _send(self, message: tuple[Any, ...]) -> None:
        try:
            self._conn.send(message)
        except OSError:
            raise WorkerFailed(f"{self.label}: {self._death()}", Reason.WORKER_DIED) from None

    def _receive(self) -> tuple[Any, ...]:
        deadline = time.monotonic() + self.timeout_s
        while True:
            if self._conn.poll(0.5):
                try:
                    return self._conn.recv()
                except (EOFError, OSError):
                    raise WorkerFailed(f"{self.label}: {self._death()}", Reason.WORKER_DIED) from None
            if self._proc.poll() is not None:
                if self._conn.poll(0):  # drain anything it sent before dying
                    continue
                raise WorkerFailed(f"{self.label}: {self._death()}", Reason.WORKER_DIED)
            if time.monotonic() > deadline:
                self._proc.kill()
                raise WorkerFailed(
                    f"{self.label}: no progress for {self.timeout_s:.0f} s; worker killed", Reason.TIMEOUT
                )

    def _death(self) -> str:
        try:
            code = self._proc.wait(2)
        except subprocess.TimeoutExpired:
            return "worker stopped responding"
        if code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = f"signal {-code}"
            return f"worker died from {name} (exit code {code})"
        return f"worker exited with code {code}"


class InProcessWorker:
    """The worker interface for a model in this process: a live model given to evaluate() (the
    caller owns it), or one the ``inprocess`` executor builds (:meth:`build`; closed with the worker).

    What the model raises, while being built, loaded or computing, becomes :class:`WorkerFailed`
    with the code of its type, as a worker process reports it; see the module docstring for what
    this process does not isolate.
    """

    def __init__(self, model: Model | None, label: str, factory: Callable[[], Model] | None = None) -> None:
        if (model is None) == (factory is None):
            raise ValueError("InProcessWorker takes a model or a factory, not both or neither")
        self.model = model
        self.label = label
        self._factory = factory
        self._loaded = False

    @classmethod
    def build(cls, model_cls: type[Model], params: Any, run: Any, label: str, config: RunConfig) -> InProcessWorker:
        """A worker that builds ``model_cls`` on its first job, from params and run options that go
        through the same plain-dict round trip as a worker process's ``init`` message."""
        from vlc_harness.models import build_model
        from vlc_harness.params import build

        plain_params, plain_run = dataclasses.asdict(params), dataclasses.asdict(run)

        def factory() -> Model:
            params_again, run_again = build(model_cls.Params, plain_params), build(model_cls.Run, plain_run)
            return build_model(model_cls, params_again, run_again, config)

        return cls(None, label, factory)

    def load(self) -> None:
        """Nothing ahead of time: the model is built and loaded on its first job (loading here
        would hold up the planning of the other models)."""

    def compute(self, job: Job) -> Iterator[Event]:
        """Run the job here; what the model raises becomes WorkerFailed (its reason code by type)."""
        from vlc_harness.run.compute import load_model, run_job
        from vlc_harness.run.worker import describe

        try:
            if self.model is None:
                assert self._factory is not None
                self.model = self._factory()
            if not self._loaded:
                yield load_model(self.model)
                self._loaded = True
            yield from run_job(self.model, job)
        except (Exception, SystemExit) as exc:  # a worker process reports SystemExit too; Ctrl-C still stops the run
            raise WorkerFailed(f"{self.label}: {describe(exc)}", model_reason_of(exc)) from exc

    def close(self) -> None:
        """Close a model this worker built (a worker process's ``stop``); a live model is the caller's."""
        if self._factory is None or self.model is None:
            return
        model, self.model = self.model, None
        try:
            model.close()
        except Exception:  # as in a worker process, whose exit ends the model whatever close() says
            pass
