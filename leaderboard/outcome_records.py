"""A cell's per-instance outcomes as the board reads them: one JSON record per instance.

A record holds what the downloads and the instance browser read of a stored outcome (never more):
``i`` the instance id, ``c`` its category, ``s`` its image-text score matrix, ``x`` its text-text
scores, ``a`` its answers, ``e`` the first line of its error (local paths redacted, as the downloads
publish it) and ``t`` its captions (only where the benchmark's license allows publishing them and its
data could be read when the bundle was made); a key whose value is absent is left out. A board bundle
holds one line of these per instance of each published cell (:mod:`vlc_leaderboard.bundle`); ``render``
from the store reads the same records, made the same way.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from vlc_leaderboard.public import redact_paths


def first_line(text: str | None) -> str:
    """The first line of a stored reason: what it says, never the traceback a worker's error carries."""
    return text.splitlines()[0] if text else ""


def outcome_record(outcome: Any, texts: Mapping[str, list[str]] | None = None) -> dict[str, Any]:
    """The record of one stored outcome (:class:`vlc_harness.results.Outcome`); ``texts``: the captions by
    instance id, where they may be published."""
    record: dict[str, Any] = {"i": outcome.instance_id, "c": outcome.category}
    if outcome.scores is not None:
        record["s"] = outcome.scores
    if outcome.text_scores is not None:
        record["x"] = outcome.text_scores
    if outcome.answers is not None:
        record["a"] = outcome.answers
    if outcome.error:
        record["e"] = redact_paths(first_line(outcome.error))
    if texts is not None and outcome.instance_id in texts:
        record["t"] = list(texts[outcome.instance_id])
    return record


def record_line(record: Mapping[str, Any]) -> str:
    """One record as a bundle stores it: a JSON line (Python's JSON: ``NaN`` where a score is not a number)."""
    return json.dumps(record, ensure_ascii=False, separators=(",", ":"))


def download_record(record: Mapping[str, Any]) -> dict[str, Any]:
    """What the per-instance download (``downloads/scores/*.jsonl``) publishes of a record."""
    out: dict[str, Any] = {"instance": redact_paths(str(record["i"])), "category": record["c"]}
    if "s" in record:
        out["scores"] = record["s"]
    if "a" in record:
        out["answers"] = record["a"]
    if "e" in record:
        out["error"] = redact_paths(first_line(record["e"]))
    if "t" in record:
        out["texts"] = record["t"]
    return out
