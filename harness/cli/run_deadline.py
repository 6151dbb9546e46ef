"""``run --deadline DURATION`` and ``--deadline-at TIME``: the options, read into the run's
:attr:`~vlc_harness.config.RunConfig.stop_at` (:mod:`vlc_harness.run.deadline` says what a deadline does),
and what ``run`` adds to its report and summary when the deadline left work."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, TypeVar

import click

F = TypeVar("F", bound=Callable[..., Any])


def duration_option(ctx: click.Context, param: click.Parameter, value: str | None) -> float | None:
    """An option's duration (``45m``, ``2h``) in seconds: its click callback."""
    from vlc_harness.run.deadline import parse_duration

    try:
        return None if value is None else parse_duration(value)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None


def _instant(ctx: click.Context, param: click.Parameter, value: str | None) -> float | None:
    from vlc_harness.run.deadline import parse_instant

    try:
        return None if value is None else parse_instant(value)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None


def deadline_options(command: F) -> F:
    """Add ``--deadline`` and ``--deadline-at`` (as ``deadline`` and ``deadline_at``: seconds, an epoch time)."""
    command = click.option(
        "--deadline-at",
        "deadline_at",
        default=None,
        metavar="TIME",
        callback=_instant,
        help="As --deadline, at an ISO 8601 time (e.g. 2026-05-01T06:30:00+00:00; no offset: UTC).",
    )(command)
    return click.option(
        "--deadline",
        default=None,
        metavar="DURATION",
        callback=duration_option,
        help="Wall time for the run (e.g. 45m, 2h, 1h30m): after it no work starts, the batches in flight "
        "finish and everything computed is stored; the unfinished cells are not recorded, the summary says what "
        "remains, and the run exits 8. The next run computes only what is missing.",
    )(command)


def stop_at(deadline: float | None, deadline_at: float | None) -> float | None:
    """The run's deadline in seconds since the epoch, from one of the two options (a usage error for both)."""
    if deadline is not None and deadline_at is not None:
        raise click.UsageError("pass --deadline or --deadline-at, not both")
    return time.time() + deadline if deadline is not None else deadline_at


def report_remaining(result: Any, summary: dict[str, Any] | None) -> None:
    """Print what the deadline left (if anything) and add it, with the pairs computed, to the summary JSON."""
    if result.remaining is not None:
        click.echo(result.remaining.line())
    if summary is not None:
        summary["computed_pairs"] = result.computed
        summary["remaining"] = None if result.remaining is None else result.remaining.as_json()
        if result.remaining is not None:
            summary["exit_reason"] = with_deadline(summary["exit_reason"], result.remaining)


def with_deadline(reason: str, remaining: Any) -> str:
    """The exit paragraph with the deadline's sentence first and the run's other conditions after it; "nothing
    could be computed" is not one of them (the cells without a number yet are the deadline's, not lost)."""
    code, _, rest = reason.partition(": ")
    others = [s for s in rest.split(" Also: ") if not s.startswith(NOTHING_COMPUTED)]
    if code == "Exit 0" or not others:  # nothing else applies
        return f"Exit 8: {remaining.line()}"
    return f"{code}: {remaining.line()} Also: " + " Also: ".join(others)


NOTHING_COMPUTED = "Nothing could be computed"
"""How :func:`vlc_harness.run.summary.exit_reason` starts the sentence of exit 3."""
