"""The scores downloads' lines: each record's JSON as ``json.dumps`` writes it, encoded for a cell at once."""

from __future__ import annotations

import gzip
import json
import math

import numpy as np

from vlc_leaderboard.downloads import _write_scores, json_lines, scores_header
from vlc_leaderboard.outcome_records import download_record

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
        assert json_lines(items) == [json.dumps(item) for item in items]


def test_a_scores_file_is_the_header_and_a_line_per_record(tmp_path):
    records = [{"i": "x/1", "c": "a", "s": [[0.25, 1 / 3]]}, {"i": "x/2", "c": "b", "e": "failed\ntraceback"}]
    header = scores_header("m", "b", "v1")
    path = _write_scores(tmp_path / "s.jsonl.gz", header, records)
    expected = [json.dumps(header), *(json.dumps(download_record(r)) for r in records), ""]
    assert gzip.decompress(path.read_bytes()).decode("utf-8") == "\n".join(expected)
