"""Mapping a function over items in forked worker processes: the render's per-benchmark work on every core.

:func:`fan_out` runs ``fn(items[k])`` in ``jobs`` worker processes forked from this one
(``multiprocessing.get_context("fork")``) and returns the results in item order. The function and the items
reach the workers through the fork itself (a closure is fine: nothing but an item's index is sent to a
worker, and only its result comes back), so what crosses the pipe is what the caller returns: keep it small
(workers write their files themselves). With ``jobs == 1``, a single item, or a platform without ``fork``
(Windows), the items are mapped here, in this process, in order: the same calls on the same data, so the
same bytes come out; it is how the work runs, not a substitute for it.

Failures: an exception a worker's item raises is re-raised here, the same exception (its type, message and a
:class:`~vlc_harness.errors.UserError`'s hint; its remote traceback as ``__cause__``); where several items
fail, the one of the lowest index among those that ran. A worker that dies (killed, out of memory, a crash in
native code) raises :class:`WorkerDied`. Either way, and on Ctrl-C, every worker is stopped and reaped before
the exception leaves :func:`fan_out`: no orphan process, and the caller never gets a partial result.

The items are mapped, here or in the workers, under :func:`heap_frozen`: the objects made before out of the
garbage collector's passes. ``in_child`` runs once in each worker, first: what a forked process must not share
with its parent (a database engine's pooled connections, an open file's offset) is replaced there.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import signal
import traceback
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from multiprocessing.connection import wait
from typing import Any, TypeVar

from vlc_harness.errors import HarnessError

T = TypeVar("T")
R = TypeVar("R")

JOBS_ENV = "VLC_HARNESS_RENDER_JOBS"
"""The environment variable ``render``'s ``--jobs`` reads (click's ``envvar``)."""


class WorkerDied(HarnessError):
    """A worker process ended without answering (killed, out of memory, crashed): the work is not done."""


class _RemoteTraceback(Exception):
    """A worker's traceback, as text: the ``__cause__`` of the exception re-raised here."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


def default_jobs() -> int:
    """The CPUs this process may run on (its affinity where the platform says it), at least 1."""
    affinity = getattr(os, "sched_getaffinity", None)
    return max(1, len(affinity(0)) if affinity is not None else os.cpu_count() or 1)


def can_fork() -> bool:
    """Whether this platform starts processes by ``fork``."""
    return "fork" in multiprocessing.get_all_start_methods()


def fan_out(
    fn: Callable[[T], R],
    items: Sequence[T],
    jobs: int,
    in_child: Callable[[], None] | None = None,
    weights: Sequence[float] | None = None,
) -> list[R]:
    """``[fn(item) for item in items]``, computed by ``jobs`` forked workers (see the module docstring).
    ``weights``: each item's expected cost; the heaviest are handed out first, so that one large item does
    not start last (the results keep the items' order)."""
    with heap_frozen():
        if jobs <= 1 or len(items) <= 1 or not can_fork():
            return [fn(item) for item in items]
        order = sorted(range(len(items)), key=lambda k: -weights[k]) if weights is not None else list(range(len(items)))
        return _Pool(fn, items, min(jobs, len(items)), in_child).run(order)


@contextmanager
def heap_frozen() -> Iterator[None]:
    """The block runs with every object made before it out of the cyclic garbage collector's passes
    (``gc.freeze()``), for work that makes millions of short-lived objects beside a large heap (the board's
    facts, the instances, a bundle's document): each full collection would walk that heap again for nothing
    (measured: about half the CPU of a one-job render of registry.yaml's grid), and in a forked worker it would
    write to every page it walks, copying the parent's memory. Objects made in the block are collected as
    usual; the frozen ones are handed back to the collector afterwards. Inside another such block it changes
    nothing (the outer one thaws)."""
    if gc.get_freeze_count():
        yield
        return
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


class _Pool:
    """Forked workers, each on its own pipe: handed an index, they answer with its result or its error."""

    def __init__(
        self, fn: Callable[[Any], Any], items: Sequence[Any], jobs: int, in_child: Callable[[], None] | None
    ) -> None:
        self.fn, self.items, self.in_child = fn, items, in_child
        context = multiprocessing.get_context("fork")
        self.pipes = [context.Pipe() for _ in range(jobs)]
        self.workers = [
            context.Process(target=self._serve, args=(k,), daemon=True, name=f"vlc-render-{k}") for k in range(jobs)
        ]

    def _serve(self, slot: int) -> None:
        """A worker's loop: indices in, ``(index, ok, result or error)`` out, until ``None`` or the pipe closes."""
        for k, (parent_end, child_end) in enumerate(self.pipes):
            parent_end.close()  # the parent's ends: a parent that dies closes the pipe, and this worker ends
            if k != slot:
                child_end.close()
        conn = self.pipes[slot][1]
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle: it stops the workers
        unready: tuple[BaseException, str] | None = None
        try:
            if self.in_child is not None:
                self.in_child()
        except Exception as exc:  # every item it is handed fails with it
            unready = (exc, traceback.format_exc())
        while True:
            try:
                k = conn.recv()
            except (EOFError, OSError):
                return
            if k is None:
                return
            try:
                if unready is not None:
                    raise unready[0]
                answer = (k, True, self.fn(self.items[k]))
            except BaseException as exc:  # every error is the parent's to raise (SIGINT is ignored here)
                answer = (k, False, (exc, unready[1] if unready is not None else traceback.format_exc()))
            try:
                self._send(conn, answer)
            except OSError:  # the parent is gone
                return

    @staticmethod
    def _send(conn: Any, answer: tuple[int, bool, Any]) -> None:
        """Send an answer; one that does not pickle is said in an error that does."""
        try:
            conn.send(answer)
        except OSError:
            raise
        except Exception as exc:
            k, ok, value = answer
            text = f"its result does not pickle ({exc})" if ok else f"{type(value[0]).__name__}: {value[0]}"
            conn.send((k, False, (HarnessError(text), "" if ok else value[1])))

    def run(self, order: list[int]) -> list[Any]:
        """Hand out ``order``'s indices, one at a time to each idle worker; the results in item order. After a
        failure nothing more is handed out; what is in hand is finished (or found dead)."""
        results: dict[int, Any] = {}
        failed: dict[int, tuple[BaseException, str]] = {}
        todo = list(reversed(order))
        busy: dict[int, int] = {}  # worker slot -> the index it works on
        try:
            for worker in self.workers:
                worker.start()
            for _, child_end in self.pipes:
                child_end.close()
            for slot in range(len(self.workers)):
                self._hand(slot, todo, busy, failed)
            while busy:
                ready = wait([self.pipes[s][0] for s in busy] + [self.workers[s].sentinel for s in busy])
                for slot in list(busy):
                    if self.pipes[slot][0] in ready or self.workers[slot].sentinel in ready:
                        self._collect(slot, busy, results, failed)
                        self._hand(slot, todo, busy, failed)
        finally:
            self._stop()
        if failed:
            exc, remote = failed[min(failed)]
            if remote:
                exc.__cause__ = _RemoteTraceback(remote)
            raise exc
        return [results[k] for k in range(len(self.items))]

    def _hand(self, slot: int, todo: list[int], busy: dict[int, int], failed: dict[int, Any]) -> None:
        """Give worker ``slot`` the next index, unless none is left or an item failed."""
        if not todo or failed:
            return
        k = todo.pop()
        try:
            self.pipes[slot][0].send(k)
        except OSError:  # it died after its last answer
            failed[k] = (self._death(slot, k), "")
            return
        busy[slot] = k

    def _collect(
        self, slot: int, busy: dict[int, int], results: dict[int, Any], failed: dict[int, tuple[BaseException, str]]
    ) -> None:
        """Take worker ``slot``'s answer, or its death, for the index it works on."""
        conn, k = self.pipes[slot][0], busy[slot]
        try:
            answered = conn.poll()
            answer = conn.recv() if answered else None
        except (EOFError, OSError):
            answer = None
        del busy[slot]
        if answer is None:
            failed[k] = (self._death(slot, k), "")
            return
        index, ok, value = answer
        if ok:
            results[index] = value
        else:
            failed[index] = value

    def _death(self, slot: int, k: int) -> WorkerDied:
        """The error for worker ``slot``, found dead while it had item ``k``."""
        worker = self.workers[slot]
        worker.join(5)
        code = worker.exitcode
        how = f"killed by {signal.Signals(-code).name}" if code is not None and code < 0 else f"exit status {code}"
        return WorkerDied(f"a render worker (pid {worker.pid}) died ({how}) on item {k} ({str(self.items[k])[:80]})")

    def _stop(self) -> None:
        """Stop every worker and reap it: asked first, then terminated, then killed."""
        for (conn, _), worker in zip(self.pipes, self.workers):
            if worker.is_alive():
                try:
                    conn.send(None)
                except (OSError, ValueError):
                    pass
            conn.close()
        for worker in self.workers:
            if worker.pid is None:
                continue
            worker.join(2)
            if worker.is_alive():
                worker.terminate()
                worker.join(2)
            if worker.is_alive():
                worker.kill()
                worker.join()


@dataclass(frozen=True)
class Workers:
    """How many workers :func:`fan_out` forks, and what each runs first (``in_child``): passed down to where the
    render's per-benchmark loops are."""

    jobs: int = 1
    in_child: Callable[[], None] | None = None

    def map(self, fn: Callable[[T], R], items: Sequence[T], weights: Sequence[float] | None = None) -> list[R]:
        """:func:`fan_out` of ``fn`` over ``items`` with these workers."""
        return fan_out(fn, items, self.jobs, self.in_child, weights)


SERIAL = Workers()
"""Everything in this process."""
