"""Batching helpers for workers: a bounded decode prefetch, and batches that halve on CUDA OOM."""

from __future__ import annotations

import itertools
import os
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, TypeVar

T = TypeVar("T")
R = TypeVar("R")


def default_decode_threads() -> int:
    """Threads that decode and preprocess images while the model runs: one per core this process
    may use (PIL releases the GIL while decoding and resizing)."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 2
    return max(1, min(32, cores))


AUTO_BATCH = {"cuda_embed": 256, "default": 32}
"""Batch sizes when the run options leave ``batch_size`` at 0."""


def batch_size_for(requested: int, device: str, protocol: str) -> int:
    """The batch size a job runs with: the requested one, else one chosen for the device."""
    if requested > 0:
        return requested
    if device.startswith("cuda") and protocol == "embed":
        return AUTO_BATCH["cuda_embed"]
    return AUTO_BATCH["default"]


def prefetch(
    fn: Callable[[T], R], items: Iterable[T], depth: int, threads: int | None = None
) -> Iterator[tuple[T, R | None, BaseException | None]]:
    """``fn(item)`` for each item in background threads, yielded in order, at most ``depth`` ahead.

    Yields ``(item, result, None)`` or ``(item, None, exception)``: one bad item never stops the
    rest. Memory holds at most ``depth`` results that were not consumed yet.
    """
    pending: deque[tuple[T, Future[R]]] = deque()
    iterator = iter(items)
    with ThreadPoolExecutor(max_workers=threads or default_decode_threads()) as pool:
        for item in iterator:
            pending.append((item, pool.submit(fn, item)))
            if len(pending) >= max(1, depth):
                break
        while pending:
            item, future = pending.popleft()
            for nxt in itertools.islice(iterator, 1):  # the next item, if any
                pending.append((nxt, pool.submit(fn, nxt)))
            try:
                yield item, future.result(), None
            except Exception as exc:
                yield item, None, exc


def is_out_of_memory(exc: BaseException) -> bool:
    """True for CUDA out-of-memory errors (torch's class, or its older RuntimeError message)."""
    return type(exc).__name__ == "OutOfMemoryError" or (
        isinstance(exc, RuntimeError) and "out of memory" in str(exc).lower()
    )


def _free_cuda_cache() -> None:
    import sys

    torch = sys.modules.get("torch")
    if torch is not None and torch.cuda.is_available():
        torch.cuda.empty_cache()


class AdaptiveBatches:
    """Runs ``fn`` over fixed-size batches; on CUDA OOM halves the size and retries the batch.

    The reduced size is kept for the rest of the work. ``shrunk`` records each new size.
    """

    def __init__(self, size: int) -> None:
        self.size = max(1, int(size))
        self.shrunk: list[int] = []

    def run(self, fn: Callable[[Sequence[Any]], Any], items: Sequence[Any]) -> Iterator[tuple[Sequence[Any], Any]]:
        """Yield ``(batch, fn(batch))`` covering ``items`` in order."""
        start = 0
        while start < len(items):
            batch = items[start : start + self.size]
            try:
                result = fn(batch)
            except Exception as exc:
                if not is_out_of_memory(exc) or self.size == 1:
                    raise
                self.size = max(1, self.size // 2)
                self.shrunk.append(self.size)
                _free_cuda_cache()
                continue
            yield batch, result
            start += len(batch)
