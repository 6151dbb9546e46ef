"""Bounds on one paid API request: a wall-clock deadline from connect to last byte, a cap on the
reply's bytes and a cap on the answer text kept.

Nothing here knows HTTP or any SDK: a client starts a :class:`RequestBudget` per attempt
(:meth:`RequestBounds.start`) and asks it, before each blocking step, for the timeout that step may
use (:meth:`RequestBudget.timeout`: the step's own timeout cut to the time left), and tells it every
byte received (:meth:`RequestBudget.received`). Going past a bound raises a :class:`BoundExceeded`,
which :func:`vlc_harness.kit.ratelimit.call_with_retries` retries like a timeout
(:meth:`BoundExceeded.verdict`: the server may bill the attempt) and which carries its reason code.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from vlc_harness.kit.ratelimit import Clock, SystemClock, Transient
from vlc_harness.reasons import Reason


class BoundExceeded(Exception):
    """A request went past one of its bounds; its reason code is :attr:`code`."""

    code: Reason = Reason.REQUEST_FAILED

    def verdict(self) -> Transient:
        """Retry it like a timeout: the attempt may have been billed."""
        return Transient(str(self), timed_out=True, code=self.code)


class DeadlineExceeded(BoundExceeded):
    """The request was still running at its deadline."""

    code = Reason.REQUEST_DEADLINE


class ReplyTooLarge(BoundExceeded):
    """The reply, or the answer text in it, is over its cap."""

    code = Reason.REPLY_TOO_LARGE


@dataclass(frozen=True)
class RequestBounds:
    """The bounds of every attempt of a request; ``None`` turns one off."""

    deadline_s: float | None
    """Seconds from the start of the connection to the reply's last byte."""
    max_reply_bytes: int | None
    """Bytes of the reply as read from the connection (headers included), before any is parsed."""
    max_answer_chars: int | None
    """Characters of the answer text kept (and stored) per request."""

    def __post_init__(self) -> None:
        for name in ("deadline_s", "max_reply_bytes", "max_answer_chars"):
            value = getattr(self, name)
            if value is not None and not (math.isfinite(value) and value > 0):
                raise ValueError(f"{name} must be positive (or None for no bound), not {value!r}")

    def start(self, clock: Clock | None = None) -> RequestBudget:
        """The budget of one attempt, starting now."""
        return RequestBudget(self, clock or SystemClock())


class RequestBudget:
    """One attempt's deadline and the bytes it has received so far."""

    def __init__(self, bounds: RequestBounds, clock: Clock) -> None:
        self.bounds = bounds
        self.clock = clock
        self.deadline = None if bounds.deadline_s is None else clock.monotonic() + bounds.deadline_s
        self.bytes = 0

    def timeout(self, wanted: float | None) -> float | None:
        """The timeout a blocking step may use: ``wanted`` (``None``: none of its own) cut to the time
        left before the deadline; :class:`DeadlineExceeded` once none is left."""
        if self.deadline is None:
            return wanted
        left = self.deadline - self.clock.monotonic()
        if left <= 0:
            raise self.overrun()
        return left if wanted is None else min(wanted, left)

    def overrun(self) -> DeadlineExceeded:
        """The error of an attempt that ran into its deadline."""
        return DeadlineExceeded(f"no complete reply by the {self.bounds.deadline_s:g} s deadline (request_deadline_s)")

    def expired(self) -> bool:
        """Whether the deadline has passed."""
        return self.deadline is not None and self.clock.monotonic() >= self.deadline

    def received(self, n: int) -> None:
        """Count ``n`` more bytes of the reply; :class:`ReplyTooLarge` once they pass the cap."""
        self.bytes += n
        cap = self.bounds.max_reply_bytes
        if cap is not None and self.bytes > cap:
            raise ReplyTooLarge(f"the reply is over the {cap}-byte cap (max_reply_bytes); refused unread")

    def answer(self, text: str) -> None:
        """Check the answer text against its cap (:class:`ReplyTooLarge` when over it)."""
        cap = self.bounds.max_answer_chars
        if cap is not None and len(text) > cap:
            raise ReplyTooLarge(
                f"the answer is {len(text)} characters, over the {cap}-character cap (max_answer_chars); not kept"
            )
