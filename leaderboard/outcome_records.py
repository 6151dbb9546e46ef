"""A cell's per-instance outcomes as the board reads them: one JSON record per instance.

A record holds what the downloads and the instance browser read of a stored outcome (never more):
``instance`` the instance id, ``category``, ``scores`` its image x caption score matrix, ``text_scores`` its
caption x caption scores where a metric reads them, ``answers``, ``error`` (its first line) and ``texts``
its captions (only where the benchmark's license allows publishing them and its data could be read when
the records were made); a key whose value is absent is left out, and local paths are redacted as the pages
redact them. Its line (:func:`record_line`, ``json.dumps``) is a line of the cell's scores download as it
is published: a board bundle holds these lines (:mod:`vlc_leaderboard.bundle`), each read back once and
checked by :func:`read_record`, and its render writes them to the download as they are; ``render`` from
the store makes the same records and lines (:func:`record_lines`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from vlc_leaderboard.board_data import BundleError, CellOutcomes
from vlc_leaderboard.public import redact_paths

RECORD_KEYS = frozenset({"instance", "category", "scores", "text_scores", "answers", "error", "texts"})

_CUT = "\x00"
"""Put between the records :func:`record_lines` encodes together; as JSON ``"\\u0000"``."""


def first_line(text: str | None) -> str:
    """The first line of a stored reason: what it says, never the traceback a worker's error carries."""
    return text.splitlines()[0] if text else ""


def outcome_record(outcome: Any, texts: Mapping[str, list[str]] | None = None) -> dict[str, Any]:
    """The record of one stored outcome (:class:`vlc_harness.results.Outcome`); ``texts``: the captions by
    instance id, where they may be published."""
    record: dict[str, Any] = {"instance": redact_paths(outcome.instance_id), "category": outcome.category}
    if outcome.scores is not None:
        record["scores"] = outcome.scores
    if outcome.text_scores is not None:  # the caption pairs a metric reads (SugarCrepe++'s text-only accuracy)
        record["text_scores"] = outcome.text_scores
    if outcome.answers is not None:
        record["answers"] = outcome.answers
    if outcome.error:
        record["error"] = redact_paths(first_line(outcome.error))
    if texts is not None and outcome.instance_id in texts:
        record["texts"] = list(texts[outcome.instance_id])
    return record


def record_line(record: Mapping[str, Any]) -> str:
    """One record as a scores download and a bundle hold it: ``json.dumps`` (Python's JSON: ``NaN`` where a score
    is not a number)."""
    return json.dumps(record)


def record_lines(records: list[Any]) -> list[str]:
    """:func:`record_line` of each record, from one ``json.dumps`` of them all (a call per record cost more than
    the encoding itself): the records are encoded as one list with :data:`_CUT` between them, which the encoder
    writes as the text ``"\\u0000"`` between ``", "`` separators, and cut there. Where a record's own text holds
    that string (a record holding the string ``"\\x00"``), each is encoded on its own."""
    if len(records) < 2:
        return [record_line(record) for record in records]
    interleaved: list[Any] = [_CUT] * (2 * len(records) - 1)
    interleaved[::2] = records
    text = json.dumps(interleaved)
    cut = json.dumps(_CUT)
    if text.count(cut) != len(records) - 1:  # not only the cuts put there
        return [record_line(record) for record in records]
    return text[1:-1].split(f", {cut}, ")


def cell_outcomes(records: Iterable[dict[str, Any]]) -> CellOutcomes:
    """A cell's records (read from the store) with their lines, as a bundle would hold them."""
    read = list(records)
    return CellOutcomes(read, record_lines(read))


def read_records(text: str, member: str) -> CellOutcomes:
    """The records of a bundle member's ``text`` (one line each) and their lines; :class:`BundleError` naming
    the first line that is not one record as the board reads it."""
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    try:  # one parse for the whole member (a call a line cost a third more), each line then checked
        records = json.loads(f"[{','.join(lines)}]")
    except ValueError:
        records = None
    if records is None or len(records) != len(lines):  # a line that is not one JSON value: find it
        records = [read_record(line, member, n) for n, line in enumerate(lines, 1)]
    for n, record in enumerate(records, 1):
        if not _valid(record):
            read_record(lines[n - 1], member, n)  # says why
    return CellOutcomes(records, lines)


def read_record(line: str, member: str, n: int) -> dict[str, Any]:
    """The outcome record of ``line`` (line ``n`` of ``member``); :class:`BundleError` unless it is one as the
    board reads it."""
    try:
        record = json.loads(line)
    except ValueError:
        raise BundleError(f"{member}:{n}: not JSON") from None
    if type(record) is not dict or not RECORD_KEYS.issuperset(record) or not _NEEDED.issubset(record):
        keys = sorted(record) if isinstance(record, dict) else "-"
        raise BundleError(f"{member}:{n}: not an outcome record (keys {keys})")
    if not _valid(record):
        raise BundleError(f"{member}:{n}: an outcome record holds a field of the wrong shape")
    return record


_NEEDED = frozenset({"instance", "category"})
_SCORE = frozenset({float, int, type(None)})


def _valid(record: Any) -> bool:
    """Whether ``record`` is a record as the board reads it: its keys, and each field of its shape."""
    # json.loads makes only its own types, never a subclass: type() tells them apart (bool from int) fastest
    if type(record) is not dict or not record.keys() <= RECORD_KEYS or not _NEEDED <= record.keys():
        return False
    ok = type(record["instance"]) is str and type(record["category"]) is str and type(record.get("error", "")) is str
    if "scores" in record:
        ok = ok and _matrix(record["scores"])
    if "text_scores" in record:
        ok = ok and _matrix(record["text_scores"])
    if "answers" in record:
        answers = record["answers"]
        ok = ok and type(answers) is list and all(map(_answer, answers))
    if "texts" in record:
        texts = record["texts"]
        ok = ok and type(texts) is list and all(type(t) is str for t in texts)
    return ok


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
