"""vlc_leaderboard.fanout: a function mapped over items in forked workers, as one process would map it."""

from __future__ import annotations

import os
import signal
import threading
import time

import pytest

from vlc_harness.errors import HarnessError, UserError
from vlc_leaderboard import fanout
from vlc_leaderboard.fanout import WorkerDied, fan_out


def gone(pid: int) -> bool:
    """Whether no process ``pid`` exists (a zombie would still be there: a reaped one is not)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def test_results_come_in_item_order_from_worker_processes():
    parent = os.getpid()
    got = fan_out(lambda x: (x * x, os.getpid()), list(range(9)), 3, weights=[1, 9, 2, 8, 3, 7, 4, 6, 5])
    assert [value for value, _ in got] == [x * x for x in range(9)]
    assert parent not in {pid for _, pid in got} and len({pid for _, pid in got}) > 1
    assert fanout.default_jobs() == len(os.sched_getaffinity(0))


def test_one_job_or_one_item_runs_here():
    here = os.getpid()
    assert fan_out(lambda x: os.getpid(), [1, 2, 3], 1) == [here] * 3
    assert fan_out(lambda x: os.getpid(), [1], 4) == [here]
    assert fan_out(lambda x: x, [], 4) == []


def test_a_worker_s_error_is_raised_here_as_one_process_raises_it():
    def check(x: int) -> int:
        if x in (3, 5):
            raise UserError(f"item {x} is malformed", hint="fix it")
        return x

    with pytest.raises(UserError) as raised:
        fan_out(check, list(range(8)), 2)
    assert (raised.value.message, raised.value.hint) == ("item 3 is malformed", "fix it")  # the lowest index
    assert "in check" in str(raised.value.__cause__)  # the worker's traceback, kept as the cause
    with pytest.raises(UserError) as serial:
        fan_out(check, list(range(8)), 1)
    assert str(serial.value) == str(raised.value)


def test_a_worker_that_cannot_get_ready_fails_each_item_it_is_handed_with_why():
    def unready() -> None:
        raise UserError("the bundle was replaced while it was rendered")

    with pytest.raises(UserError, match="replaced while it was rendered"):
        fan_out(lambda x: x, [1, 2, 3], 2, unready)


def test_what_does_not_pickle_is_said_in_an_error_that_does():
    with pytest.raises(HarnessError, match="does not pickle"):
        fan_out(lambda x: threading.Lock(), [1, 2], 2)


def test_a_killed_worker_fails_the_map_and_leaves_no_process(tmp_path):
    def work(x: int) -> int:
        (tmp_path / f"{os.getpid()}.pid").touch()
        if x == 2:
            os.kill(os.getpid(), signal.SIGKILL)
        time.sleep(0.2)
        return x

    with pytest.raises(WorkerDied, match=r"died \(killed by SIGKILL\) on item 2"):
        fan_out(work, list(range(6)), 2)
    pids = [int(p.stem) for p in tmp_path.glob("*.pid")]
    assert pids and all(gone(pid) for pid in pids)


def test_ctrl_c_stops_every_worker(tmp_path, monkeypatch):
    def work(x: int) -> int:
        (tmp_path / f"{os.getpid()}.pid").touch()
        time.sleep(60)
        return x

    def interrupted(*args: object, **kwargs: object) -> object:
        deadline = time.monotonic() + 30
        while len(list(tmp_path.glob("*.pid"))) < 2 and time.monotonic() < deadline:
            time.sleep(0.02)
        raise KeyboardInterrupt  # what Ctrl-C raises here while the workers work

    monkeypatch.setattr(fanout, "wait", interrupted)
    start = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        fan_out(work, [1, 2, 3], 2)
    assert time.monotonic() - start < 20
    pids = [int(p.stem) for p in tmp_path.glob("*.pid")]
    assert len(pids) == 2 and all(gone(pid) for pid in pids)


def test_the_work_runs_with_the_heap_made_before_it_frozen():
    import gc

    from vlc_leaderboard.fanout import heap_frozen

    assert gc.get_freeze_count() == 0
    for jobs in (1, 2):  # in this process and in the workers: no collection walks the heap made before the work
        assert all(count > 0 for count in fan_out(lambda _: gc.get_freeze_count(), [1, 2], jobs)), jobs
    assert gc.get_freeze_count() == 0  # handed back to the collector afterwards
    with heap_frozen():
        frozen = gc.get_freeze_count()  # frozen objects freed since leave the count: it can only fall
        made = [[] for _ in range(1000)]
        with heap_frozen():  # inside another block it changes nothing: freezes none of ``made``...
            assert 0 < gc.get_freeze_count() <= frozen
        assert 0 < gc.get_freeze_count() <= frozen and made  # ... and thaws nothing
    assert gc.get_freeze_count() == 0
