"""Pacing paid API requests: a bounded pool, per-minute budgets, retries and a cost budget.

Nothing here knows HTTP or any SDK. The clock and the random source are injected, so every rule
can be tested on a :class:`FakeClock` without sleeping:

* :class:`RateLimiter`: requests-per-minute and tokens-per-minute budgets over a sliding 60 s
  window; :meth:`RateLimiter.acquire` waits until a request of a given token estimate fits.
* :func:`call_with_retries`: exponential backoff with jitter on transient failures, waiting at
  least what the server's ``Retry-After`` asks (see :func:`parse_retry_after`).
* :class:`CostBudget`: a spending limit shared by concurrent requests; a request reserves its
  worst-case cost before it is sent, and nothing is sent once the next one could exceed it.
* :class:`BoundedPool`: at most ``concurrency`` requests in flight.
"""

from __future__ import annotations

import math
import random
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from typing import Protocol, TypeVar

T = TypeVar("T")
R = TypeVar("R")


class Clock(Protocol):
    """Where time comes from: a monotonic reading in seconds, and a way to wait."""

    def monotonic(self) -> float: ...  # noqa: D102
    def sleep(self, seconds: float) -> None: ...  # noqa: D102


class SystemClock:
    """The real clock."""

    def monotonic(self) -> float:
        """``time.monotonic()``."""
        return time.monotonic()

    def sleep(self, seconds: float) -> None:
        """``time.sleep(seconds)`` (nothing for a non-positive wait)."""
        if seconds > 0:
            time.sleep(seconds)


class FakeClock:
    """A clock for tests: :meth:`sleep` records the wait and moves time forward at once."""

    def __init__(self, start: float = 0.0) -> None:
        self.now = start
        self.sleeps: list[float] = []
        self._lock = threading.Lock()

    def monotonic(self) -> float:
        """The current fake time."""
        return self.now

    def sleep(self, seconds: float) -> None:
        """Record ``seconds`` and advance the fake time by it."""
        with self._lock:
            self.sleeps.append(seconds)
            self.now += max(0.0, seconds)


# -- per-minute budgets --------------------------------------------------------------------------
@dataclass
class Ticket:
    """One admitted request in the limiter's window: when it was sent and its token count."""

    at: float
    tokens: int


class RateLimiter:
    """Requests-per-minute and tokens-per-minute budgets over a sliding window.

    ``None`` (or 0) turns a budget off. A request is admitted when the requests and tokens of the
    last ``window_s`` seconds plus its own stay within both budgets; a single request larger than
    the token budget is admitted alone, once the window is empty. The token count is an estimate
    at admission; :meth:`settle` replaces it with the count the server reported.
    """

    def __init__(
        self,
        requests_per_minute: float | None = None,
        tokens_per_minute: float | None = None,
        clock: Clock | None = None,
        window_s: float = 60.0,
    ) -> None:
        self.rpm = int(requests_per_minute) if requests_per_minute else None
        if self.rpm is not None:
            self.rpm = max(1, self.rpm)
        self.tpm = int(tokens_per_minute) if tokens_per_minute else None
        self.clock = clock or SystemClock()
        self.window_s = window_s
        self._sent: deque[Ticket] = deque()
        self._lock = threading.Lock()
        self.waited_s = 0.0
        """Total time requests waited for the budgets (for reports and tests)."""

    def wait_time(self, tokens: int) -> float:
        """Seconds until a request of ``tokens`` fits both budgets (0: it fits now)."""
        with self._lock:
            return self._delay(self.clock.monotonic(), tokens)

    def acquire(self, tokens: int = 0) -> Ticket:
        """Wait until a request of ``tokens`` fits, then count it; returns its ticket."""
        while True:
            with self._lock:
                now = self.clock.monotonic()
                delay = self._delay(now, tokens)
                if delay <= 0:
                    ticket = Ticket(now, max(0, int(tokens)))
                    self._sent.append(ticket)
                    return ticket
            self.waited_s += delay
            self.clock.sleep(delay)

    def settle(self, ticket: Ticket, tokens: int) -> None:
        """Replace a ticket's estimated token count with the real one."""
        with self._lock:
            ticket.tokens = max(0, int(tokens))

    def _delay(self, now: float, tokens: int) -> float:
        while self._sent and self._sent[0].at <= now - self.window_s:
            self._sent.popleft()
        delay = 0.0
        if self.rpm is not None and len(self._sent) >= self.rpm:
            # the request that must leave the window first for this one to fit
            blocking = self._sent[len(self._sent) - self.rpm]
            delay = max(delay, blocking.at + self.window_s - now)
        if self.tpm is not None and self._sent:
            used = sum(t.tokens for t in self._sent)
            if used + tokens > self.tpm:
                freed = 0
                until = self._sent[-1].at  # a request larger than the budget waits for an empty window
                for t in self._sent:
                    freed += t.tokens
                    if used - freed + tokens <= self.tpm:
                        until = t.at
                        break
                delay = max(delay, until + self.window_s - now)
        return delay if delay <= 0 else delay + 1e-3


# -- retries -------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Transient:
    """A failure worth retrying (429, 5xx, a timeout), with the server's Retry-After if it sent one.

    ``timed_out``: the attempt may have been billed (a timeout, a bound exceeded); ``code``: the
    reason code the failure carries if it is the last one (``None``: the caller's default)."""

    reason: str
    retry_after: float | None = None
    timed_out: bool = False
    code: str | None = None


class RetriesExhausted(Exception):
    """A request still failed after its last retry; ``reason`` and ``code`` are the last failure's."""

    def __init__(self, reason: str, attempts: int, code: str | None = None) -> None:
        super().__init__(f"{reason} after {attempts} attempt{'s' if attempts != 1 else ''} (retries exhausted)")
        self.reason = reason
        self.attempts = attempts
        self.code = code


@dataclass(frozen=True)
class RetryPolicy:
    """Exponential backoff with jitter: retry ``k`` (0-based) waits a uniform time in
    ``[c/2, c]`` with ``c = min(max_s, base_s * 2**k)``, or the server's Retry-After when that is
    longer (capped at ``max_retry_after_s``, so a bad header cannot stall a run for hours)."""

    max_retries: int = 6
    base_s: float = 1.0
    max_s: float = 60.0
    max_retry_after_s: float = 300.0

    def backoff(self, attempt: int, rng: random.Random) -> float:
        """The jittered exponential wait before retry ``attempt`` (0 for the first retry)."""
        ceiling = min(self.max_s, self.base_s * (2.0**attempt))
        return ceiling / 2 + rng.uniform(0.0, ceiling / 2)

    def delay(self, attempt: int, retry_after: float | None, rng: random.Random) -> float:
        """The wait before retry ``attempt``: the backoff, or longer if the server asked for it."""
        wait = self.backoff(attempt, rng)
        if retry_after is not None and retry_after > 0:
            wait = max(wait, min(retry_after, self.max_retry_after_s))
        return wait


def call_with_retries(
    fn: Callable[[], T],
    classify: Callable[[BaseException], Transient | None],
    policy: RetryPolicy,
    clock: Clock | None = None,
    rng: random.Random | None = None,
    on_retry: Callable[[int, float, Transient], None] | None = None,
) -> T:
    """Call ``fn`` until it succeeds, retrying the failures that ``classify`` calls transient.

    A failure that is not transient is raised at once; a transient one that outlasts
    ``policy.max_retries`` raises :class:`RetriesExhausted` (from the last error).
    ``on_retry(retry number, wait, failure)`` is called before each wait.
    """
    clock = clock or SystemClock()
    rng = rng or random.Random()
    attempt = 0
    while True:
        try:
            return fn()
        except Exception as exc:
            verdict = classify(exc)
            if verdict is None:
                raise
            if attempt >= policy.max_retries:
                raise RetriesExhausted(verdict.reason, attempt + 1, verdict.code) from exc
            wait = policy.delay(attempt, verdict.retry_after, rng)
            if on_retry is not None:
                on_retry(attempt + 1, wait, verdict)
            clock.sleep(wait)
            attempt += 1


def parse_retry_after(headers: Mapping[str, str] | Iterable[tuple[str, str]], now: float | None = None) -> float | None:
    """Seconds the server asks to wait: ``retry-after-ms``, else ``Retry-After`` as seconds or as an
    HTTP date (relative to ``now``, a Unix time; default the current time). ``None`` if absent or bad."""
    items = headers.items() if isinstance(headers, Mapping) else headers
    lowered = {str(k).lower(): str(v) for k, v in items}
    if "retry-after-ms" in lowered:
        try:
            value = float(lowered["retry-after-ms"]) / 1000.0
            if math.isfinite(value) and value >= 0:
                return value
        except ValueError:
            pass
    raw = lowered.get("retry-after")
    if raw is None:
        return None
    try:
        value = float(raw)
        return value if math.isfinite(value) and value >= 0 else None
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(raw)
    except (TypeError, ValueError, IndexError):
        return None
    if when is None:
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


# -- cost ----------------------------------------------------------------------------------------
@dataclass
class CostBudget:
    """A spending limit in USD shared by concurrent requests (``limit_usd=None``: no limit).

    :meth:`reserve` a request's worst-case cost before sending it; :meth:`settle` with the real
    cost once it returns. Once a reservation is refused the budget is ``stopped`` (with the reason)
    and refuses every later request, so a run stops at one point instead of squeezing in small
    requests.
    """

    limit_usd: float | None = None
    spent_usd: float = 0.0
    reserved_usd: float = 0.0
    stopped: str | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def reserve(self, estimate_usd: float) -> bool:
        """Hold ``estimate_usd`` for a request about to be sent; False when it could exceed the limit."""
        with self._lock:
            if self.stopped is not None:
                return False
            committed = self.spent_usd + self.reserved_usd
            if self.limit_usd is not None and committed + estimate_usd > self.limit_usd + 1e-12:
                self.stopped = (
                    f"the next request (up to ${estimate_usd:.4f}) could exceed the budget: "
                    f"${committed:.4f} of ${self.limit_usd:.4f} already spent or committed"
                )
                return False
            self.reserved_usd += estimate_usd
            return True

    def settle(self, estimate_usd: float, actual_usd: float) -> None:
        """Release a reservation and record what the request really cost."""
        with self._lock:
            self.reserved_usd = max(0.0, self.reserved_usd - estimate_usd)
            self.spent_usd += actual_usd

    def refuse(self, reason: str) -> None:
        """Stop the budget for a reason of the caller's (e.g. prices are unknown)."""
        with self._lock:
            if self.stopped is None:
                self.stopped = reason


# -- concurrency ---------------------------------------------------------------------------------
class BoundedPool:
    """At most ``concurrency`` calls in flight; :meth:`map` keeps the input order."""

    def __init__(self, concurrency: int) -> None:
        self.concurrency = max(1, int(concurrency))
        self._pool = ThreadPoolExecutor(max_workers=self.concurrency) if self.concurrency > 1 else None

    def map(self, fn: Callable[[T], R], items: Sequence[T]) -> list[R]:
        """``[fn(x) for x in items]``, run concurrently; ``fn`` should not raise."""
        if self._pool is None or len(items) <= 1:
            return [fn(x) for x in items]
        return list(self._pool.map(fn, items))

    def close(self) -> None:
        """Wait for running calls and release the threads."""
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None
