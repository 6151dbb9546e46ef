"""A run's deadline (``vlc-harness run --deadline 45m`` or ``--deadline-at TIME``): no new work after it, the
work in flight finished, everything computed stored, and what remains of the grid counted.

The deadline is a wall-clock instant (:attr:`~vlc_harness.config.RunConfig.stop_at`, seconds since the epoch,
so a Ray actor on another node reads it too). A model whose job has not started by then does not start; a
worker past it finishes the batch it is computing, sends it, and stops (:func:`until`: a
:class:`~vlc_harness.run.jobs.Stopped` event), so every pair it scored is stored and a later run reuses it (a
run computes only the pairs the store lacks). A cell whose pairs are not all stored or settled is not recorded
(:func:`unfinished`): it stays as it was (``not run`` on the board, or its earlier cell), never ``failed``, and
the run exits :attr:`~vlc_harness.exit_codes.ExitCode.DEADLINE`. :class:`Remaining` says how much is left:
cells, instances, pairs, the GPU time :mod:`vlc_harness.gpucost` estimates, and the nights the rest
needs at tonight's rate.
"""

from __future__ import annotations

import datetime as dt
import math
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from vlc_harness.run.jobs import Abstained, Answers, Event, Job, Scores, Stopped, TextScores
from vlc_harness.store.scores import text_pair_key
from vlc_harness.types import BLIND_IMAGE_KEY

if TYPE_CHECKING:
    from vlc_harness.run.plan import ModelWork
    from vlc_harness.store import Store

_PART = re.compile(r"(\d+(?:\.\d+)?)\s*([smhd])")
_UNIT = {"s": 1, "m": 60, "h": 3600, "d": 86400}
BATCH_ENDS = (Scores, TextScores, Answers)
"""The events that end a batch: a worker past its deadline stops after one of these (an
:class:`~vlc_harness.run.jobs.Abstained` of the same batch comes before its scores)."""


def parse_duration(text: str) -> float:
    """Seconds in ``45m``, ``2h``, ``1h30m``, ``90s``, ``1.5h`` or ``2d``; :class:`ValueError` otherwise."""
    compact = text.strip().lower().replace(" ", "")
    parts = _PART.findall(compact)
    if not compact or "".join(n + u for n, u in parts) != compact:
        raise ValueError(f"{text!r} is not a duration: write e.g. 45m, 2h, 1h30m or 90s")
    seconds = sum(float(n) * _UNIT[u] for n, u in parts)
    if seconds <= 0:
        raise ValueError(f"{text!r}: a deadline must be in the future")
    return seconds


def parse_instant(text: str) -> float:
    """Seconds since the epoch of an ISO 8601 time (``2026-05-01T06:30:00+00:00``; without an offset: UTC)."""
    try:
        when = dt.datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise ValueError(f"{text!r} is not an ISO 8601 time such as 2026-05-01T06:30:00+00:00") from None
    return (when if when.tzinfo else when.replace(tzinfo=dt.timezone.utc)).timestamp()


def instant_text(stop_at: float) -> str:
    """``stop_at`` as the ISO 8601 UTC time :func:`parse_instant` reads."""
    return dt.datetime.fromtimestamp(stop_at, dt.timezone.utc).isoformat(timespec="seconds")


def past(stop_at: float | None) -> bool:
    """Whether the deadline (if any) has passed."""
    return stop_at is not None and time.time() >= stop_at


def until(events: Iterator[Event], stop_at: float | None) -> Iterator[Event]:
    """``events`` until the first batch that ends past ``stop_at``; then :class:`Stopped`, and no more work."""
    if past(stop_at):  # e.g. the model loaded past the deadline: no batch at all
        yield Stopped()
        return
    for event in events:
        yield event
        if isinstance(event, BATCH_ENDS) and past(stop_at):
            close = getattr(events, "close", None)
            if close is not None:
                close()  # the generator's prefetch threads stop with it
            yield Stopped()
            return


def computed(event: Event) -> int:
    """The pairs (or answers, or abstentions) an event reports as computed by the model."""
    return len(event.rows) if isinstance(event, (*BATCH_ENDS, Abstained)) else 0


def unsettled(job: Job, work: ModelWork) -> int:
    """The pairs of ``job`` (what the store still lacks) that the model did not settle either: no problem, failed
    request or non-finite score was reported for them, so a later run must compute them."""
    sink = work.sink
    settled = set(sink.problems) | set(sink.request_failures)
    n = sum(1 for task in job.tasks for text in task.texts if (task.key, text) not in settled)
    n += sum(1 for a, b in job.text_pairs if text_pair_key(a, b) not in sink.text_problems)
    n += sum(1 for text in job.blind_texts if (BLIND_IMAGE_KEY, text) not in settled)
    return n + sum(1 for q in job.questions if q.key not in settled)


def unfinished(work: ModelWork, store: Store) -> None:
    """Mark each cell of a model the deadline stopped whose pairs are not all stored or settled
    (``cell.remaining``: the pairs it still needs); the others are built as usual."""
    row = store.model_row(work.fingerprint) if work.fingerprint else None
    for cell in work.cells:
        if cell.to_build:
            job = work.protocol.missing([cell], store, row, 0)
            if unsettled(job, work):
                cell.remaining = job


@dataclass
class Remaining:
    """What a run stopped by its deadline left of the grid, and tonight's pace."""

    cells: int = 0
    instances: int = 0
    pairs: int = 0
    """Pairs (or answers) the remaining cells still need, as the store stands now."""
    gpu_seconds: float | None = 0.0
    """Their estimated GPU time (:mod:`vlc_harness.gpucost`); ``None`` when a model has no estimate."""
    computed: int = 0
    """Pairs (or answers) the models computed in this run."""
    night_seconds: float = 0.0
    """The wall time this run had (from its start to the deadline)."""
    per_model: dict[str, dict[str, Any]] = field(default_factory=dict)

    @property
    def nights(self) -> int | None:
        """Runs of the same length the rest needs at this run's pace (``None``: nothing computed tonight)."""
        return math.ceil(self.pairs / self.computed) if self.computed else None

    def add(self, work: ModelWork, store: Store) -> None:
        """Count a model's remaining cells, the pairs they need together (a pair two cells share counts once)
        and their GPU estimate."""
        from vlc_harness.gpucost import cost_table

        left = [c for c in work.cells if c.remaining is not None]
        if not left:
            return
        job = work.protocol.missing(left, store, store.model_row(work.fingerprint), 0)
        gpu = cost_table().estimate(work.entry, work.cls, work.protocol.name, job).seconds
        self.cells += len(left)
        self.instances += sum(len(c.prepared.instances) for c in left)
        self.pairs += job.n_pairs
        self.gpu_seconds = None if gpu is None or self.gpu_seconds is None else self.gpu_seconds + gpu
        benchmarks = [c.prepared.entry.id for c in left]
        self.per_model[work.entry.id] = {"benchmarks": benchmarks, "pairs": job.n_pairs, "gpu_seconds": gpu}

    def line(self) -> str:
        """One sentence: what remains, its GPU time, and the nights it needs at tonight's pace."""
        from vlc_harness.gpucost import duration

        pace = (
            f"about {self.nights} more run(s) of {duration(self.night_seconds)} at this run's pace ({self.computed} "
            "pairs computed)"
            if self.nights
            else "no estimate of the runs it needs (no pair was computed in this run)"
        )
        return (
            f"The deadline stopped the run: {self.cells} cell(s) remain ({self.instances} instances, {self.pairs} "
            f"pairs to compute, estimated GPU time {duration(self.gpu_seconds)}); {pace}. Everything computed is "
            "stored: the next run starts where this one stopped."
        )

    def as_json(self) -> dict[str, Any]:
        """The ``remaining`` section of the run's ``--summary`` JSON."""
        return {
            "cells": self.cells,
            "instances": self.instances,
            "pairs": self.pairs,
            "gpu_seconds": None if self.gpu_seconds is None else round(self.gpu_seconds, 1),
            "computed_pairs": self.computed,
            "night_seconds": round(self.night_seconds, 1),
            "nights": self.nights,
            "models": self.per_model,
            "line": self.line(),
        }
