"""vlc_harness.kit.ratelimit on a fake clock: per-minute budgets, backoff with jitter, Retry-After, cost, pool."""

from __future__ import annotations

import random
import threading
import time
from datetime import datetime, timedelta, timezone
from email.utils import format_datetime

import pytest

from vlc_harness.kit.ratelimit import (
    BoundedPool,
    CostBudget,
    FakeClock,
    RateLimiter,
    RetriesExhausted,
    RetryPolicy,
    Transient,
    call_with_retries,
    parse_retry_after,
)


def test_requests_per_minute_window():
    clock = FakeClock()
    limiter = RateLimiter(requests_per_minute=2, clock=clock)
    limiter.acquire()
    clock.now = 10.0
    limiter.acquire()
    assert clock.sleeps == []
    clock.now = 20.0
    limiter.acquire()  # waits until the first leaves the window (t=60)
    assert clock.now == pytest.approx(60.0, abs=0.01)
    assert len(clock.sleeps) == 1 and clock.sleeps[0] == pytest.approx(40.0, abs=0.01)
    limiter.acquire()  # then until the second leaves (t=70)
    assert clock.now == pytest.approx(70.0, abs=0.01)


def test_tokens_per_minute_window_and_settle():
    clock = FakeClock()
    limiter = RateLimiter(tokens_per_minute=1000, clock=clock)
    first = limiter.acquire(600)
    clock.now = 5.0
    assert limiter.wait_time(600) == pytest.approx(55.0, abs=0.01)
    limiter.settle(first, 300)  # the server said it used less
    assert limiter.wait_time(600) == 0
    limiter.acquire(600)
    clock.now = 6.0
    assert limiter.wait_time(200) == pytest.approx(54.0, abs=0.01)  # 300 + 600 + 200 > 1000 until t=60
    # a request larger than the whole budget goes alone, once the window is empty
    assert limiter.wait_time(5000) == pytest.approx(59.0, abs=0.01)
    clock.now = 100.0
    assert limiter.wait_time(5000) == 0


def test_both_budgets_off_never_wait():
    clock = FakeClock()
    limiter = RateLimiter(None, None, clock=clock)
    for _ in range(1000):
        limiter.acquire(10**6)
    assert clock.sleeps == []


def test_backoff_is_exponential_with_jitter_and_capped():
    policy = RetryPolicy(max_retries=10, base_s=1.0, max_s=8.0)
    rng = random.Random(0)
    for attempt in range(8):
        ceiling = min(8.0, 2.0**attempt)
        waits = [policy.backoff(attempt, rng) for _ in range(200)]
        assert all(ceiling / 2 <= w <= ceiling for w in waits)
        assert len({round(w, 6) for w in waits}) > 100  # jittered, not a constant
    assert policy.delay(0, 5.0, rng) == 5.0  # Retry-After longer than the backoff wins
    assert 0.5 <= policy.delay(0, 0.1, rng) <= 1.0  # shorter: the backoff wins
    assert policy.delay(0, 10_000, rng) == policy.max_retry_after_s  # a silly header is capped


def _flaky(failures: list[BaseException | None]):
    calls = []

    def fn():
        calls.append(1)
        if failures:
            exc = failures.pop(0)
            if exc is not None:
                raise exc
        return "ok"

    return fn, calls


class Throttled(Exception):
    def __init__(self, retry_after=None):
        super().__init__("429")
        self.retry_after = retry_after


def classify(exc):
    if isinstance(exc, Throttled):
        return Transient("HTTP 429", exc.retry_after)
    if isinstance(exc, TimeoutError):
        return Transient("timed out", timed_out=True)
    return None


def test_call_with_retries_backs_off_and_honours_retry_after():
    clock = FakeClock()
    fn, calls = _flaky([Throttled(), TimeoutError(), Throttled(retry_after=30), None])
    seen = []
    out = call_with_retries(
        fn, classify, RetryPolicy(base_s=1.0), clock, random.Random(1), lambda n, w, why: seen.append((n, why.reason))
    )
    assert out == "ok" and len(calls) == 4
    assert seen == [(1, "HTTP 429"), (2, "timed out"), (3, "HTTP 429")]
    first, second, third = clock.sleeps
    assert 0.5 <= first <= 1.0 and 1.0 <= second <= 2.0
    assert third == 30.0  # the server asked for 30 s, more than the 2-4 s backoff


def test_non_transient_errors_are_not_retried():
    clock = FakeClock()
    fn, calls = _flaky([ValueError("bad request")])
    with pytest.raises(ValueError):
        call_with_retries(fn, classify, RetryPolicy(), clock, random.Random(0))
    assert len(calls) == 1 and clock.sleeps == []


def test_retries_run_out():
    clock = FakeClock()
    fn, calls = _flaky([Throttled()] * 10)
    with pytest.raises(RetriesExhausted, match="HTTP 429 after 4 attempts") as info:
        call_with_retries(fn, classify, RetryPolicy(max_retries=3, base_s=1.0), clock, random.Random(0))
    assert len(calls) == 4 and len(clock.sleeps) == 3
    assert isinstance(info.value.__cause__, Throttled)
    assert clock.now == pytest.approx(sum(clock.sleeps)) and 3.5 <= clock.now <= 7.0


def test_parse_retry_after():
    assert parse_retry_after({"Retry-After": "7"}) == 7.0
    assert parse_retry_after({"retry-after": "1.5"}) == 1.5
    assert parse_retry_after({"retry-after-ms": "250", "retry-after": "9"}) == 0.25
    assert parse_retry_after([("Retry-After", "3")]) == 3.0
    now = datetime(2024, 1, 1, tzinfo=timezone.utc)
    date = format_datetime(now + timedelta(seconds=12), usegmt=True)
    assert parse_retry_after({"Retry-After": date}, now=now.timestamp()) == pytest.approx(12.0)
    assert parse_retry_after({"Retry-After": "soon"}) is None
    assert parse_retry_after({"Retry-After": "-3"}) is None
    assert parse_retry_after({}) is None


def test_cost_budget_stops_before_the_limit_and_stays_stopped():
    budget = CostBudget(1.0)
    assert budget.reserve(0.4) and budget.reserve(0.4)
    budget.settle(0.4, 0.1)  # it cost less than its worst case
    assert budget.reserve(0.4)  # 0.1 spent + 0.8 committed
    assert not budget.reserve(0.2)
    assert "could exceed the budget" in budget.stopped and "$1.0000" in budget.stopped
    budget.settle(0.4, 0.0)
    assert not budget.reserve(0.01)  # stopped once: no squeezing in smaller requests
    assert CostBudget(None).reserve(10**9)


def test_cost_budget_under_concurrency_never_exceeds():
    budget = CostBudget(1.0)
    granted = []

    def worker():
        for _ in range(100):
            if budget.reserve(0.003):
                granted.append(1)
                budget.settle(0.003, 0.003)

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert budget.spent_usd <= 1.0 + 1e-9
    assert len(granted) == 333


def test_bounded_pool_limits_concurrency_and_keeps_order():
    pool = BoundedPool(3)
    lock = threading.Lock()
    state = {"now": 0, "max": 0}

    def work(x):
        with lock:
            state["now"] += 1
            state["max"] = max(state["max"], state["now"])
        time.sleep(0.02)
        with lock:
            state["now"] -= 1
        return x * x

    assert pool.map(work, list(range(12))) == [x * x for x in range(12)]
    assert state["max"] == 3
    pool.close()
    assert BoundedPool(1).map(work, [2, 3]) == [4, 9]
