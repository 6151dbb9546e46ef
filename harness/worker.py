"""Worker processes: a model runs in its own spawned process; the main process owns the store.

A crash, hang or segfault in a model therefore loses at most its open batch and fails only the
cells of that model. The protocol over the pipe is a few tuples:

* main -> worker: ``("identify",)``, ``("compute", job)``, ``("stop",)``
* worker -> main: ``("identity", dict)``, ``("unavailable", reason)``, ``("event", Scores |
  ImageFailed)``, ``("done",)``, ``("error", message)``

:class:`InProcessWorker` offers the same interface without a process, for a live model object
passed to :func:`harness.evaluate` (a training loop's model).
"""

from __future__ import annotations

import dataclasses
import multiprocessing
import os
import signal
import time
import traceback
from collections.abc import Iterator
from typing import Any

from harness.devices import resolve_device
from harness.engine import Event, Job, Loaded, run_job
from harness.errors import HarnessError, Unavailable
from harness.models import Identity, Model
from harness.params import build
from harness.plugins import class_locator, resolve_locator


class WorkerFailed(HarnessError):
    """The model's worker raised, died, or stopped making progress."""


def _worker_main(
    conn: Any, locator: dict[str, Any], params: dict[str, Any], run: dict[str, Any], threads: int | None
) -> None:
    """Entry point of a spawned worker: build the model, then serve requests until ``stop``."""
    if threads:  # before torch is imported: CPU workers share the cores instead of oversubscribing
        for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
            os.environ[var] = str(threads)
    try:
        cls = resolve_locator(locator)
        model = cls(build(cls.Params, params), build(cls.Run, run))
    except BaseException as exc:  # report, never hang the parent
        conn.send(("error", _describe(exc)))
        return
    loaded = False
    while True:
        try:
            message = conn.recv()
        except EOFError:
            return
        kind = message[0]
        try:
            if kind == "identify":
                try:
                    conn.send(("identity", dataclasses.asdict(model.identify())))
                except Unavailable as exc:
                    conn.send(("unavailable", str(exc)))
            elif kind == "compute":
                if not loaded:
                    device = resolve_device(model.run.device)
                    model.load(device)
                    loaded = True
                    conn.send(("event", Loaded(device)))
                for event in run_job(model, message[1]):
                    conn.send(("event", event))
                conn.send(("done",))
            elif kind == "stop":
                model.close()
                return
        except BaseException as exc:
            conn.send(("error", _describe(exc)))


def _describe(exc: BaseException) -> str:
    tb = traceback.format_exception(type(exc), exc, exc.__traceback__)
    return f"{type(exc).__name__}: {exc}\n{''.join(tb[-6:])}"


class SubprocessWorker:
    """A model in a spawned process (CPU too), loaded once and reused for all its work."""

    def __init__(
        self, cls: type[Model], params: Any, run: Any, label: str, device: str | None = None, threads: int | None = None
    ) -> None:
        self.label = label
        self.timeout_s = float(getattr(run, "timeout_s", 900.0))
        if device and device != "auto" and getattr(run, "device", "auto") == "auto":
            run = dataclasses.replace(run, device=device)  # the slot's device, unless the entry pins one
        ctx = multiprocessing.get_context("spawn")
        self._conn, child = ctx.Pipe()
        self._proc = ctx.Process(
            target=_worker_main,
            args=(child, class_locator(cls), dataclasses.asdict(params), dataclasses.asdict(run), threads),
            daemon=True,
            name=f"vlc-harness worker {label}",
        )
        self._proc.start()
        child.close()

    def identify(self) -> Identity:
        """Ask the worker for the model's identity (raises Unavailable or WorkerFailed)."""
        self._send(("identify",))
        kind, *rest = self._receive()
        if kind == "identity":
            return Identity(**rest[0])
        if kind == "unavailable":
            raise Unavailable(rest[0])
        raise WorkerFailed(f"{self.label}: {rest[0] if rest else kind}")

    def compute(self, job: Job) -> Iterator[Event]:
        """Send a job and yield its events as they arrive; raise WorkerFailed on any failure."""
        self._send(("compute", job))
        while True:
            kind, *rest = self._receive()
            if kind == "event":
                yield rest[0]
            elif kind == "done":
                return
            else:
                raise WorkerFailed(f"{self.label}: {rest[0] if rest else kind}")

    def close(self) -> None:
        """Stop the worker (politely, then by force)."""
        if self._proc.is_alive():
            try:
                self._conn.send(("stop",))
            except (OSError, BrokenPipeError):
                pass
            self._proc.join(10)
        if self._proc.is_alive():
            self._proc.kill()
            self._proc.join(5)
        self._conn.close()

    def _send(self, message: tuple[Any, ...]) -> None:
        try:
            self._conn.send(message)
        except (OSError, BrokenPipeError):
            raise WorkerFailed(f"{self.label}: {self._death()}") from None

    def _receive(self) -> tuple[Any, ...]:
        deadline = time.monotonic() + self.timeout_s
        while True:
            if self._conn.poll(0.5):
                try:
                    return self._conn.recv()
                except (EOFError, OSError):
                    raise WorkerFailed(f"{self.label}: {self._death()}") from None
            if not self._proc.is_alive():
                # drain anything it sent before dying
                if self._conn.poll(0):
                    continue
                raise WorkerFailed(f"{self.label}: {self._death()}")
            if time.monotonic() > deadline:
                self._proc.kill()
                raise WorkerFailed(f"{self.label}: no progress for {self.timeout_s:.0f} s; worker killed")

    def _death(self) -> str:
        self._proc.join(2)
        code = self._proc.exitcode
        if code is None:
            return "worker stopped responding"
        if code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = f"signal {-code}"
            return f"worker died from {name} (exit code {code})"
        return f"worker exited with code {code}"


class InProcessWorker:
    """The same interface as :class:`SubprocessWorker` for a model object in this process."""

    def __init__(self, model: Model, label: str) -> None:
        self.model = model
        self.label = label
        self._loaded = False

    def identify(self) -> Identity:
        """The model's identity."""
        return self.model.identify()

    def compute(self, job: Job) -> Iterator[Event]:
        """Run the job here; exceptions propagate as WorkerFailed."""
        try:
            if not self._loaded:
                device = resolve_device(self.model.run.device)
                self.model.load(device)
                self._loaded = True
                yield Loaded(device)
            yield from run_job(self.model, job)
        except Exception as exc:
            raise WorkerFailed(f"{self.label}: {_describe(exc)}") from exc

    def close(self) -> None:
        """Nothing to stop; the caller owns the model."""
