"""The scores downloads' lines: each record's JSON as ``json.dumps`` writes it, encoded for a cell at once; a
scores file is its header and those lines."""

from __future__ import annotations

import gzip
import json
import math

import numpy as np

from vlc_harness.records import Outcome
from vlc_leaderboard.downloads import _write_scores, scores_header
from vlc_leaderboard.outcome_records import outcome_record, record_lines

AWKWARD = [
    {"instance": "a\x00", "category": "x", "scores": [[0.1, math.nan], [None, 1e-300, -math.inf]]},
    {"instance": 'é"\\', "category": "ü", "answers": [{"order": 0, "choice": None, "correct": 1}]},
    {"instance": "b", "category": "y", "texts": ["\x00"]},  # the very text put between the items
    {"instance": "b", "category": "y", "texts": ["a", "\x00", "b"]},  # ... and with the separators around it
    {"instance": "c", "category": "z", "error": ', "\\u0000", '},
    {"instance": "d", "category": "z", "scores": [[]]},
]


def test_lines_are_each_records_own_dumps():
    rng = np.random.default_rng(3)
    records = [
        {"instance": f"i{k}", "category": "c", "scores": rng.normal(0.28, 0.05, (2, 3)).tolist()} for k in range(500)
    ]
    for items in (records, records[:1], [], AWKWARD, AWKWARD[:2], AWKWARD[3:], records[:3] + AWKWARD):
        assert record_lines(items) == [json.dumps(item) for item in items]


def test_a_scores_file_is_the_header_and_a_line_per_record(tmp_path):
    outcomes = [
        Outcome("x/1", "a", [[0.25, 1 / 3]], text_scores=[[None, 0.5], [None, None]]),
        Outcome("/home/lab/data/x/2.jpg", "b", None, error="failed at /home/lab/run.py\ntraceback"),
    ]
    records = [outcome_record(o) for o in outcomes]
    header = scores_header("m", "b", "v1")
    path = _write_scores(tmp_path / "s.jsonl.gz", header, record_lines(records))
    lines = gzip.decompress(path.read_bytes()).decode("utf-8").split("\n")
    assert lines[0] == json.dumps(header) and lines[-1] == ""
    assert [json.loads(line) for line in lines[1:-1]] == [
        {"instance": "x/1", "category": "a", "scores": [[0.25, 1 / 3]], "text_scores": [[None, 0.5], [None, None]]},
        {"instance": "<local folder>/2.jpg", "category": "b", "error": "failed at <local folder>/run.py"},
    ]
