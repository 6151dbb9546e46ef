"""A cell's per-instance outcomes as the board reads them: one JSON record per instance.

A record holds what the downloads and the instance browser read of a stored outcome (never more):
``i`` the instance id, ``c`` its category, ``s`` its image-text score matrix, ``x`` its text-text
scores, ``a`` its answers, ``e`` the first line of its error (local paths redacted, as the downloads
publish it) and ``t`` its captions (only where the benchmark's license allows publishing them and its
data could be read when the bundle was made); a key whose value is absent is left out. A board bundle
holds one line of these per instance of each published cell (:mod:`vlc_leaderboard.bundle`), each read
back once and checked by :func:`read_record`; ``render`` from the store reads the same records, made the
same way.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from vlc_leaderboard.board_data import BundleError
from vlc_leaderboard.public import redact_paths

RECORD_KEYS = frozenset({"i", "c", "s", "x", "a", "e", "t"})


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
    if "x" in record:  # the text-text scores a metric reads (SugarCrepe++'s text-only accuracy): null elsewhere
        out["text_scores"] = record["x"]
    if "a" in record:
        out["answers"] = record["a"]
    if "e" in record:
        out["error"] = redact_paths(first_line(record["e"]))
    if "t" in record:
        out["texts"] = record["t"]
    return out


def read_record(line: str, member: str, n: int) -> dict[str, Any]:
    """The outcome record of ``line`` (line ``n`` of ``member``); :class:`BundleError` unless it is one as the
    board reads it."""
    try:
        record = json.loads(line)
    except ValueError:
        raise BundleError(f"{member}:{n}: not JSON") from None
    if type(record) is not dict or not RECORD_KEYS.issuperset(record) or "i" not in record or "c" not in record:
        keys = sorted(record) if isinstance(record, dict) else "-"
        raise BundleError(f"{member}:{n}: not an outcome record (keys {keys})")
    # json.loads makes only its own types, never a subclass: type() tells them apart (bool from int) fastest
    ok = type(record["i"]) is str and type(record["c"]) is str and type(record.get("e", "")) is str
    ok = ok and ("s" not in record or _matrix(record["s"])) and ("x" not in record or _matrix(record["x"]))
    answers = record.get("a", [])
    ok = ok and type(answers) is list and all(map(_answer, answers))
    texts = record.get("t", [])
    ok = ok and type(texts) is list and all(type(t) is str for t in texts)
    if not ok:
        raise BundleError(f"{member}:{n}: an outcome record holds a field of the wrong shape")
    return record


_SCORE = frozenset({float, int, type(None)})


def _matrix(value: Any) -> bool:
    return type(value) is list and all(type(row) is list and _SCORE.issuperset(map(type, row)) for row in value)


def _answer(answer: Any) -> bool:
    """An answer to a question (its ``order`` among the instance's questions), or a declined pair (the image and
    text it was asked of, ``abstained``: what an API model that refused to score a pair stores)."""
    if type(answer) is not dict:
        return False
    if type(answer.get("order")) is int:
        return True
    return type(answer.get("image")) is int and type(answer.get("text")) is int and answer.get("abstained") is True
