"""Reading annotation rows (JSON, JSON lines, CSV), every malformed file one error that names the place.

A file that is absent or unreadable here is :class:`~vlc_harness.errors.DataUnavailable`; one whose content
cannot be read as the reader expects (UTF-8, JSON or CSV syntax, an empty file, a key twice in an object, a
record without a field the schema names or with another kind of value, a repeated id) is
:class:`~vlc_harness.errors.InputError` naming the file, the record (line, key or index) and the field
(:mod:`vlc_harness.sources.fields`).
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from vlc_harness.errors import DataUnavailable, InputError
from vlc_harness.sources.fields import Malformed, Schema, at, found, require, schema_of

Fields = Schema | tuple[str, ...]
"""The fields a reader checks: a schema (field -> kind), or names that need only be present."""


def read_text(path: Path, encoding: str = "utf-8") -> str:
    """A file's text; bytes that are not ``encoding`` are an :class:`InputError` naming the line and byte (an
    absent or unreadable file raises its ``OSError``: a loader's check says what to get first)."""
    data = Path(path).read_bytes()
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - data.rfind(b"\n", 0, exc.start)
        bad = f"the byte 0x{data[exc.start]:02x}"
        raise InputError(path, f"line {line} byte {column}", "the text", f"{encoding.upper()} text", bad) from None


class _RepeatedKey(ValueError):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, item in pairs:
        if key in out:
            raise _RepeatedKey(key)
        out[key] = item
    return out


def parse_json(text: str, path: Path, line: int | None = None) -> Any:
    """A JSON document (``line``: the line of a JSON-lines file it is); bad syntax, an empty document, a key
    twice in one object, a number of more than 4300 digits or nesting too deep is :class:`InputError`."""
    where = "the file" if line is None else f"line {line}"
    if not text.strip():
        raise InputError(path, where, where, "a JSON document", "an empty file" if line is None else "a blank line")
    try:
        return json.loads(text, object_pairs_hook=_unique_keys)
    except _RepeatedKey as exc:
        raise InputError(path, where, "the JSON text", "each key once in an object", f"{exc.key!r} twice") from None
    except json.JSONDecodeError as exc:
        at_line = f"line {exc.lineno if line is None else line} column {exc.colno}"
        raise InputError(path, at_line, "the JSON text", "valid JSON", exc.msg.lower()) from None
    except (ValueError, RecursionError) as exc:  # int() over 4300 digits; nesting deeper than the stack
        problem = "nesting too deep" if isinstance(exc, RecursionError) else str(exc).split(":")[0].lower()
        raise InputError(path, where, "the JSON text", "valid JSON", problem) from None


def load_json(path: Path) -> Any:
    """A JSON file's content; malformed is :class:`InputError` (an absent file raises its ``OSError``)."""
    return parse_json(read_text(path), path)


def read_json(path: Path, what: str) -> Any:
    """A JSON file's content; absent or unreadable is :class:`DataUnavailable`, malformed :class:`InputError`."""
    try:
        text = read_text(path)
    except OSError as exc:
        raise DataUnavailable(f"{what}: cannot read {path} ({exc.strerror or exc})") from None
    return parse_json(text, path)


def check_records(
    path: Path, records: Iterable[tuple[str, Any]], fields: Fields, check: Callable[[dict], dict] | None = None
) -> list[dict[str, Any]]:
    """Each ``(place, record)`` checked against ``fields`` (then through ``check``, which raises
    :class:`~vlc_harness.sources.fields.Malformed`, or ``ValueError`` naming what is wrong), as
    :class:`InputError` at ``path``'s ``place``; the records, as ``check`` returns them."""
    schema, out = schema_of(fields), []
    for place, record in records:
        with at(path, place):
            require(record, schema)
            try:
                out.append(check(record) if check else record)
            except Malformed:
                raise
            except ValueError as exc:  # a plugin's own check, in its own words
                raise Malformed("the record", "a record its benchmark accepts", str(exc)) from None
    return out


def read_json_records(
    path: Path, what: str, fields: Fields = (), *, item: str = "record", key: str | None = None
) -> list[dict[str, Any]]:
    """A JSON list of records (upstream's schema), each an object with ``fields``; ``key`` must be unique.
    Problems are :class:`InputError` naming the file, the ``item`` (``record 3``) and the field."""
    records = read_json(path, what)
    if not isinstance(records, list):
        raise InputError(path, "the file", "the file", f"a JSON list of {item}s (the upstream schema)", found(records))
    rows = check_records(path, ((f"{item} {k}", rec) for k, rec in enumerate(records)), fields)
    if key is not None:
        unique(rows, key, path, what, [f"{item} {k}" for k in range(len(rows))])
    return rows


def read_json_object(path: Path, what: str, fields: Fields = (), *, item: str = "record") -> dict[str, dict[str, Any]]:
    """A JSON object of records keyed by id (upstream's schema), each an object with ``fields``; problems
    are :class:`InputError` naming the file, the key (``record '12'``) and the field."""
    records = read_json(path, what)
    if not isinstance(records, dict):
        raise InputError(path, "the file", "the file", f"a JSON object of {item}s keyed by id", found(records))
    rows = check_records(path, ((f"{item} {k!r}", rec) for k, rec in records.items()), fields)
    return dict(zip(records, rows))


def read_jsonl(
    path: Path,
    title: str,
    fields: Fields = (),
    check: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
    key: str | None = None,
) -> list[dict[str, Any]]:
    """The rows of a JSON-lines file (blank lines skipped): each an object with ``fields``, then through
    ``check`` (which raises :class:`~vlc_harness.sources.fields.Malformed` or ``ValueError``); ``key`` must be
    unique. Problems are :class:`InputError` naming the file, the line and the field."""
    places, parsed = [], []
    for n, line in enumerate(read_text(path).splitlines(), 1):
        if line.strip():
            places.append(f"line {n}")
            parsed.append(parse_json(line, path, n))
    rows = check_records(path, zip(places, parsed), fields, check)
    if key is not None:
        unique(rows, key, path, title, places)
    return rows


def unique(rows: list[dict[str, Any]], key: str, path: Path, what: str, places: list[str] | None = None) -> None:
    """Raise :class:`InputError` at the second row that repeats a ``key`` (as text: ``1`` and ``"1"`` are one
    id); ``places`` names each row (default ``row <k>``)."""
    unique_ids(path, what, key, [(places[k] if places else f"row {k}", row[key]) for k, row in enumerate(rows)])


def unique_ids(path: Path, what: str, field: str, ids: list[tuple[str, Any]]) -> None:
    """Raise :class:`InputError` at the second ``(place, id)`` whose id (as text) an earlier one has: the ids
    a loader derives from ``field`` of each record."""
    seen: dict[str, str] = {}
    for place, name in ids:
        if str(name) in seen:
            raise InputError(path, place, field, f"an id of its own ({what})", f"{name!r}, as {seen[str(name)]} has")
        seen[str(name)] = place


def read_csv(path: Path, what: str = "", fields: tuple[str, ...] = (), encoding: str = "utf-8") -> list[dict[str, str]]:
    """The rows of a CSV file with a header, as dicts (upstream's ``csv.DictReader`` reading): the header
    names every one of ``fields``, each row has the header's columns. Problems are :class:`InputError` naming
    the file, the line and the column."""
    text = read_text(path, encoding)
    reader = csv.DictReader(io.StringIO(text, newline=""))
    try:
        header = reader.fieldnames or []
        absent = [f for f in fields if f not in header]
        if absent:
            raise InputError(path, "line 1 (the header)", absent[0], "a column of that name", "no such column")
        rows = []
        for row in reader:
            line = f"line {reader.line_num}"
            if None in row:
                extra = f"{len(header) + len(row[None])} columns"
                raise InputError(path, line, "the record", f"{len(header)} columns, as the header", extra)
            short = next((c for c, v in row.items() if v is None), None)
            if short is not None:
                raise InputError(path, line, short, f"{len(header)} columns, as the header", "a shorter row")
            rows.append(row)
    except csv.Error as exc:  # a field over csv's size limit, a stray quote in strict mode
        raise InputError(path, f"line {reader.reader.line_num}", "the record", "a CSV row", str(exc)) from None
    return rows
