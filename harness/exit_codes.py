"""The one table of exit codes: what each means, which wins when several apply, and which the
nightly's deploy job publishes.

Every command exits with one of :class:`ExitCode`. When several conditions apply, the one earliest
in :data:`PRECEDENCE` wins (:func:`worst`); a usage error always wins. Code 6 is an off-pin run
refused (``run --require-pinned``: the nightly and the PR check's smoke run); 7 is ``ci nightly``'s (a
step stopped the night before anything was rendered), 8 ``run --deadline``'s (and so the night's), 9 the
deploy check's (``vlc-harness verify-site``: a site refused).
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import IntEnum


class ExitCode(IntEnum):
    """An exit status with what it means (:attr:`meaning`)."""

    meaning: str

    def __new__(cls, code: int, meaning: str) -> ExitCode:
        member = int.__new__(cls, code)
        member._value_ = code
        member.meaning = meaning
        return member

    OK = 0, "ok: at least one cell has a number (others may be unavailable or skipped); every check passed"
    FAILED = 1, "a cell failed (with --strict, also: a cell is unavailable), or a check the command makes failed"
    USAGE = (
        2,
        (
            "a usage error: bad options, a registry that does not load, a store that cannot be opened, a site that "
            "cannot be written (a full disk, a read-only folder)"
        ),
    )
    NOTHING_COMPUTED = 3, "nothing could be computed: every cell of the grid is unavailable, failed or skipped"
    LOST_CELL = 4, "a cell that had a number in the store before this run is now unavailable or failed"
    RENDER_REFUSED = (
        5,
        (
            "render refused: the new site would lose published cells or change a value without a fingerprint or "
            "data-version change (--allow-shrink overrides)"
        ),
    )
    OFF_PIN = (
        6,
        "installed score-changing packages differ from constraints.txt, so the run is refused (run --require-pinned: "
        "the nightly, the PR check's smoke run)",
    )
    STEP_FAILED = (
        7,
        (
            "a nightly step (registry, install, plugins, fetch, run) stopped the night: nothing was rendered or "
            "published"
        ),
    )
    DEADLINE = (
        8,
        (
            "the run reached its --deadline: what was computed is stored (the night publishes its complete cells), "
            "the rest waits for the next run"
        ),
    )
    SITE_REFUSED = (
        9,
        (
            "the deploy check refused the rendered site: a page breaks the site policy (not the board's CSP, an "
            "inline script or style, a source on another host), or a published value or frozen release would be lost"
        ),
    )
    INTERRUPTED = 130, "interrupted (Ctrl-C)"


PRECEDENCE: tuple[ExitCode, ...] = (
    ExitCode.USAGE,
    ExitCode.INTERRUPTED,
    ExitCode.STEP_FAILED,
    ExitCode.OFF_PIN,
    ExitCode.SITE_REFUSED,
    ExitCode.RENDER_REFUSED,
    ExitCode.LOST_CELL,
    ExitCode.NOTHING_COMPUTED,
    ExitCode.DEADLINE,
    ExitCode.FAILED,
    ExitCode.OK,
)
"""Which code wins when several apply: earlier wins. For codes 0 to 5 this is "the highest, but a
usage error is always 2", as before."""

PUBLISHED = frozenset({ExitCode.OK, ExitCode.FAILED, ExitCode.DEADLINE})
"""The nightly codes after which the deploy job publishes the rendered site: a night that reached its
deadline publishes its complete cells (partial, continuing); render still refuses a site that would lose
a published cell."""


def worst(codes: Iterable[int]) -> ExitCode:
    """The code that wins among ``codes`` (:data:`PRECEDENCE`); :attr:`ExitCode.OK` for none."""
    found = {ExitCode(c) for c in codes}  # type: ignore[call-arg]  # a lookup by value; mypy reads __new__
    return next((c for c in PRECEDENCE if c in found), ExitCode.OK)
