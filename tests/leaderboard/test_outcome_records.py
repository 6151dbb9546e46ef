"""A bundle member's outcome records read back (``read_records``): the lines as written, each record parsed once
and checked, and a malformed line named by its number with what is wrong."""

from __future__ import annotations

import math

import pytest

from vlc_harness.records import Outcome
from vlc_leaderboard.board_data import BundleError
from vlc_leaderboard.outcome_records import outcome_record, read_records, record_lines

OUTCOMES = [
    Outcome("a/1", "swap", [[0.25, 1 / 3, math.nan]], text_scores=[[None, 0.5], [None, None]]),
    Outcome("a/2", "swap", None, answers=[{"order": 1, "choice": 0}, {"order": 0, "choice": None}]),
    Outcome("a/3", "add", [[None, 0.1]], answers=[{"image": 0, "text": 0, "abstained": True, "raw": "I can't"}]),
    Outcome("a/4", "add", None, error="no image\nTraceback ..."),
]
GOOD = '{"instance": "ok", "category": "c"}'


def test_the_lines_read_back_to_the_records_and_stay_as_written():
    records = [outcome_record(o, {"a/1": ["a dog", "a cat"]}) for o in OUTCOMES]
    lines = record_lines(records)
    read = read_records("\n".join(lines) + "\n", "outcomes/0.jsonl")
    assert read.lines == lines
    assert [r.keys() for r in read.records] == [r.keys() for r in records]
    assert read.records[0]["texts"] == ["a dog", "a cat"] and math.isnan(read.records[0]["scores"][0][2])
    assert read.records[3]["error"] == "no image"
    assert read_records("", "outcomes/0.jsonl").records == []


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("", "not JSON"),
        ("{", "not JSON"),
        (f"{GOOD},{GOOD}", "not JSON"),  # two records on one line
        ("[1]", "not an outcome record"),
        ('{"i": "a", "c": "x"}', "not an outcome record"),  # a version-1 record
        ('{"instance": "a"}', "not an outcome record"),
        ('{"instance": "a", "category": "c", "url": "x"}', "not an outcome record"),
        ('{"instance": 1, "category": "c"}', "wrong shape"),
        ('{"instance": "a", "category": "c", "scores": [[0.5, true]]}', "wrong shape"),
        ('{"instance": "a", "category": "c", "scores": [0.5]}', "wrong shape"),
        ('{"instance": "a", "category": "c", "text_scores": [["0.5"]]}', "wrong shape"),
        ('{"instance": "a", "category": "c", "answers": [{"choice": 1}]}', "wrong shape"),
        ('{"instance": "a", "category": "c", "answers": [{"image": 0, "text": 1, "abstained": 1}]}', "wrong shape"),
        ('{"instance": "a", "category": "c", "texts": ["a", 2]}', "wrong shape"),
        ('{"instance": "a", "category": "c", "error": ["x"]}', "wrong shape"),
    ],
)
def test_a_malformed_line_is_named_with_what_is_wrong(line, message):
    with pytest.raises(BundleError, match=rf"^outcomes/3\.jsonl:2: .*{message}"):
        read_records(f"{GOOD}\n{line}\n{GOOD}\n", "outcomes/3.jsonl")
