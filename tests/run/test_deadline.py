"""``run --deadline`` / ``--deadline-at`` (issue 40, item 6): no work starts after the deadline, a worker
finishes its batch in flight and stops, everything computed is stored, unfinished cells are not recorded,
the run exits 8 and says what remains; the next run computes only the rest."""

from __future__ import annotations

import datetime as dt
import json
import time

import pytest

from vlc_harness.exit_codes import ExitCode
from vlc_harness.run.deadline import parse_duration, parse_instant, until
from vlc_harness.run.jobs import Abstained, Progress, Scores, Spent, Stopped

GRID = ["-m", "random", "-b", "sugarcrepe:version=custom"]
PAST = "2020-01-01T00:00:00+00:00"


@pytest.mark.parametrize(
    "text, seconds", [("45m", 2700), ("2h", 7200), ("1h30m", 5400), ("90s", 90), ("1.5h", 5400), ("1d", 86400)]
)
def test_durations(text, seconds):
    assert parse_duration(text) == seconds


@pytest.mark.parametrize("text", ["", "45", "m45", "2 hours", "0m", "-1h"])
def test_what_is_not_a_duration_is_refused(text):
    with pytest.raises(ValueError):
        parse_duration(text)


def test_an_instant_without_an_offset_is_utc():
    utc = dt.datetime(2026, 5, 1, 6, 30, tzinfo=dt.timezone.utc).timestamp()
    assert parse_instant("2026-05-01T06:30:00") == parse_instant("2026-05-01T08:30:00+02:00") == utc
    assert parse_instant("2026-05-01T06:30:00Z") == utc


def batches(asked: list[int]):
    for k in range(3):
        asked.append(k)  # the model computes batch k when its first event is asked for
        yield Progress("texts", k, 3)
        yield Abstained([("img", f"t{k}", "no")])  # an abstention comes before its batch's scores
        yield Scores([("img", f"t{k}", 0.5)])
    yield Spent({})


def test_without_a_deadline_or_before_it_every_batch_runs():
    for stop_at in (None, time.time() + 3600):
        asked: list[int] = []
        out = list(until(batches(asked), stop_at))
        assert asked == [0, 1, 2] and out[-1] == Spent({}) and Stopped() not in out


def test_past_the_deadline_already_no_batch_starts():
    asked: list[int] = []
    assert list(until(batches(asked), time.time() - 1)) == [Stopped()] and asked == []


def test_past_its_deadline_a_worker_finishes_its_batch_in_flight_and_starts_no_other(monkeypatch):
    clock = iter([0.0, 0.0, 10.0])  # the start, after batch 0, after batch 1 (in flight at the deadline, 5.0)
    monkeypatch.setattr("vlc_harness.run.deadline.time.time", lambda: next(clock))
    asked: list[int] = []
    out = list(until(batches(asked), 5.0))
    assert asked == [0, 1] and out[-1] == Stopped()
    assert [e for e in out if isinstance(e, Scores)] == [Scores([("img", "t0", 0.5)]), Scores([("img", "t1", 0.5)])]
    assert Abstained([("img", "t1", "no")]) in out  # the whole batch, its abstentions too


def test_a_run_past_its_deadline_records_nothing_to_compute_and_says_what_remains(vlc_run, sample_root, tmp_path):
    summary = tmp_path / "run.json"
    out = vlc_run(*GRID, "--deadline-at", PAST, "--summary", str(summary), data_root=sample_root)
    assert out.exit_code == ExitCode.DEADLINE, out.output
    assert "The deadline stopped the run: 1 cell(s) remain (28 instances, 56 pairs to compute" in out.output
    assert list(vlc_run.store().latest_cells()) == []  # not recorded: never "failed", never lost
    data = json.loads(summary.read_text())
    assert data["exit_code"] == 8 and data["computed_pairs"] == 0
    assert data["remaining"]["cells"] == 1 and data["remaining"]["pairs"] == 56 and data["remaining"]["nights"] is None
    assert data["remaining"]["gpu_seconds"] == 0.0  # random runs no network (the cost table's no_gpu)
    assert data["exit_reason"].startswith("Exit 8: The deadline stopped the run") and "Nothing could" not in out.output

    again = vlc_run(*GRID, "--deadline", "1h", "--summary", str(summary), data_root=sample_root)
    assert again.exit_code == 0, again.output
    data = json.loads(summary.read_text())
    assert data["remaining"] is None and data["computed_pairs"] == 56 and data["statuses"] == {"ok": 1}

    stored = vlc_run(*GRID, "--deadline-at", PAST, "--summary", str(summary), data_root=sample_root)
    assert stored.exit_code == 0, stored.output  # a stored cell needs no work: reused past the deadline too
    assert "[stored]" in stored.output and json.loads(summary.read_text())["computed_pairs"] == 0


def test_deadline_options_are_checked(vlc_run, sample_root):
    both = vlc_run(*GRID, "--deadline", "1h", "--deadline-at", PAST, data_root=sample_root)
    assert both.exit_code == 2 and "pass --deadline or --deadline-at, not both" in both.output
    bad = vlc_run(*GRID, "--deadline", "soon", data_root=sample_root)
    assert bad.exit_code == 2 and "'soon' is not a duration: write e.g. 45m, 2h, 1h30m or 90s" in bad.output
