"""Reading annotation rows (JSON, JSON lines, CSV) with errors that name the benchmark, the file and the row."""

from __future__ import annotations

import csv
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from vlc_harness.errors import DataUnavailable


def read_json(path: Path, what: str) -> Any:
    """A JSON file's content; an unreadable or malformed file is :class:`DataUnavailable`."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise DataUnavailable(f"{what}: cannot read {path} as JSON ({exc})") from None


def read_json_records(
    path: Path, what: str, fields: tuple[str, ...] = (), *, item: str = "record", key: str | None = None
) -> list[dict[str, Any]]:
    """A JSON list of records (upstream's schema), each an object with ``fields``; ``key`` must be unique.
    Problems raise :class:`DataUnavailable` naming ``what``, the file and the record."""
    records = read_json(path, what)
    if not isinstance(records, list):
        raise DataUnavailable(f"{what}: {path} is not a JSON list of records (the upstream schema)")
    for k, rec in enumerate(records):
        missing = [f for f in fields if not isinstance(rec, dict) or f not in rec]
        if missing:
            raise DataUnavailable(f"{what}: {item} {k} of {path} lacks {', '.join(missing)}")
    if key is not None:
        unique(records, key, path, what)
    return records


def read_jsonl(
    path: Path,
    title: str,
    fields: tuple[str, ...] = (),
    check: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
    key: str | None = None,
) -> list[dict[str, Any]]:
    """The rows of a JSON-lines file (blank lines skipped): each an object with ``fields``, then through
    ``check`` (which raises ``ValueError`` naming what is wrong); ``key`` must be unique. Problems raise
    :class:`DataUnavailable` naming ``title``, the file and the line."""
    rows = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError:
            raise DataUnavailable(f"{title}: line {n} of {path} is not JSON") from None
        absent = [f for f in fields if not isinstance(row, dict) or f not in row]
        if absent:
            raise DataUnavailable(f"{title}: line {n} of {path} lacks {', '.join(absent)}")
        try:
            rows.append(check(row) if check else row)
        except ValueError as exc:
            raise DataUnavailable(f"{title}: line {n} of {path}: {exc}") from None
    if key is not None:
        unique(rows, key, path, title)
    return rows


def unique(rows: list[dict[str, Any]], key: str, path: Path, what: str) -> None:
    """Raise :class:`DataUnavailable` when two rows share their ``key``."""
    seen: set[str] = set()
    for row in rows:
        if str(row[key]) in seen:
            raise DataUnavailable(f"{what}: {path} repeats {key} {row[key]!r}")
        seen.add(str(row[key]))


def read_csv(path: Path) -> list[dict[str, str]]:
    """The rows of a CSV file with a header, as dicts (upstream's ``csv.DictReader`` reading)."""
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))
