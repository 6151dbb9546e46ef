"""Where and how long the night's run step runs: ``--deadline`` (``VLC_HARNESS_DEADLINE``), counted from the
night's start and handed to ``vlc-harness run --deadline-at``, so that a first night longer than the job's
limit ends "partial, continuing" (exit 8, its complete cells published) instead of being killed; and the
executor, which the run step reads itself (``VLC_HARNESS_EXECUTOR``, ``RAY_ADDRESS``: ``run``'s options)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, TypeVar

import click

from vlc_harness.cli.run_deadline import duration_option

F = TypeVar("F", bound=Callable[..., Any])

ENV_DEADLINE = "VLC_HARNESS_DEADLINE"
"""The night's wall time for the workflow (a repository variable); ``ci nightly --deadline``."""


def night_deadline_option(command: F) -> F:
    """``--deadline DURATION`` of ``ci nightly`` (``deadline``: seconds, or ``None``)."""
    return click.option(
        "--deadline",
        default=None,
        metavar="DURATION",
        envvar=ENV_DEADLINE,
        show_envvar=True,
        callback=duration_option,
        help="Wall time from the night's start (e.g. 22h) after which the run step starts no work: the batches "
        "in flight finish, the complete cells are rendered and published, the night exits 8, and the next one "
        "continues. The run step's executor: VLC_HARNESS_EXECUTOR and RAY_ADDRESS (vlc-harness run --help).",
    )(command)


def deadline_argv(seconds: float | None) -> list[str]:
    """``run``'s ``--deadline-at`` for a deadline ``seconds`` from now (none: no option)."""
    from vlc_harness.run.deadline import instant_text

    return [] if seconds is None else ["--deadline-at", instant_text(time.time() + seconds)]
