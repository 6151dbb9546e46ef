"""What a reader expects of a record's fields, checked in one place: kinds of values, and the record's place.

A loader declares the fields it reads as a schema (field -> :class:`Kind`): ``{"filename": NAME, "caption":
TEXT}``. :func:`require` checks a record against it and raises :class:`Malformed` (the field, what was
expected, what was found); a reader, which knows the file and the record (:func:`at`), turns that into
:class:`~vlc_harness.errors.InputError`, one sentence naming all four. Fields a loader does not read are not
checked: upstream files carry many.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from vlc_harness.errors import InputError


class Malformed(ValueError):
    """One field of a record is not what its reader expects (raised where the file is not known: :func:`at`
    adds it). ``field`` may name a part instead (``the record``); ``record``, when given, names the record
    (else :func:`at`'s)."""

    def __init__(self, field: str, expected: str, found: str = "", record: str | None = None) -> None:
        where = f"{record}, {field}" if record else field
        super().__init__(f"{where}: expected {expected}" + (f", found {found}" if found else ""))
        self.field, self.expected, self.found, self.record = field, expected, found, record


@dataclass(frozen=True)
class Kind:
    """A kind of value a field holds: what a reader says it expected, and the test."""

    expected: str
    accepts: Callable[[Any], bool]

    def check(self, field: str, value: Any) -> Any:
        """``value`` when the kind accepts it, else :class:`Malformed` naming ``field``."""
        if not self.accepts(value):
            raise Malformed(field, self.expected, found(value))
        return value


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_name(value: Any) -> bool:
    """A relative path the file system can open: no NUL, each part at most 255 bytes (NAME_MAX)."""
    if not isinstance(value, str) or not value.strip() or "\0" in value or os.path.isabs(value):
        return False
    return all(len(part.encode("utf-8", "surrogatepass")) <= 255 for part in value.replace("\\", "/").split("/"))


ANY = Kind("a value", lambda v: True)
"""Present, whatever it holds (a field only compared or copied)."""
TEXT = Kind("a string", lambda v: isinstance(v, str))
WORDS = Kind("a string of at least one word", lambda v: isinstance(v, str) and bool(v.split()))
NAME = Kind("a file name (a relative path, each part at most 255 bytes)", _is_name)
INT = Kind("an integer", _is_int)
INDEX = Kind("a non-negative integer", lambda v: _is_int(v) and v >= 0)
NUMBER = Kind(
    "a finite number", lambda v: (_is_int(v) or isinstance(v, float)) and not isinstance(v, bool) and math.isfinite(v)
)
ID = Kind("an id (a non-empty string or an integer)", lambda v: _is_int(v) or (isinstance(v, str) and v.strip() != ""))
DIGITS = Kind("an integer or a string of digits", lambda v: _is_int(v) or (isinstance(v, str) and v.isdecimal()))
TEXT_OR_NULL = Kind("a string or null", lambda v: v is None or isinstance(v, str))
SCALAR = Kind("a string, a number or null", lambda v: v is None or isinstance(v, (str, int, float)))
OBJECT = Kind("a JSON object", lambda v: isinstance(v, dict))


def one_of(*values: Any) -> Kind:
    """Exactly one of ``values``."""
    return Kind(
        "one of " + ", ".join(repr(v) for v in values), lambda v: any(v == x and type(v) is type(x) for x in values)
    )


def list_of(kind: Kind, length: int | None = None, *, min_length: int = 0) -> Kind:
    """A list (``length`` items, or at least ``min_length``), each item of ``kind``."""
    size = f"{length} " if length is not None else (f"at least {min_length} " if min_length else "")
    return Kind(
        f"a list of {size}items, each {kind.expected}",
        lambda v: (
            isinstance(v, list)
            and (len(v) == length if length is not None else len(v) >= min_length)
            and all(kind.accepts(x) for x in v)
        ),
    )


ABSENT = "nothing: the field is absent"
"""What a reader found where a field is absent."""

Schema = Mapping[str, Kind]
"""The fields a reader reads, each with its kind."""


def schema_of(fields: Schema | tuple[str, ...]) -> Schema:
    """A schema, from a schema or a tuple of field names (each :data:`ANY`: present, whatever it holds)."""
    return dict(fields) if isinstance(fields, Mapping) else dict.fromkeys(fields, ANY)


def require(record: Any, fields: Schema | tuple[str, ...]) -> dict[str, Any]:
    """``record`` when it is an object with each field of ``fields``, of its kind; else :class:`Malformed`
    (the first field in the schema's order that is absent or of another kind)."""
    if not isinstance(record, dict):
        raise Malformed("the record", "a JSON object", found(record))
    for name, kind in schema_of(fields).items():
        if name not in record:
            raise Malformed(name, kind.expected, ABSENT)
        kind.check(name, record[name])
    return record


def value(record: Any, name: str | int, kind: Kind) -> Any:
    """One field (or item of a list) of ``record``, of ``kind``; else :class:`Malformed`."""
    if isinstance(name, int):
        if not isinstance(record, list) or not -len(record) <= name < len(record):
            raise Malformed("the record", f"a list with an item {name}", found(record))
        return kind.check(f"item {name}", record[name])
    if not isinstance(record, dict):
        raise Malformed("the record", "a JSON object", found(record))
    if name not in record:
        raise Malformed(name, kind.expected, ABSENT)
    return kind.check(name, record[name])


@contextmanager
def at(file: str | os.PathLike[str], record: str = "the file") -> Iterator[None]:
    """Turn a :class:`Malformed` raised inside into :class:`~vlc_harness.errors.InputError` at ``file``'s
    ``record`` (the one the error names, if it does)."""
    try:
        yield
    except Malformed as exc:
        raise InputError(file, exc.record or record, exc.field, exc.expected, exc.found) from exc


def found(value: Any, limit: int = 60) -> str:
    """What a value is, in a few words of JSON (``the string 'a red…'``, ``the number 7``, ``null``)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return f"the number {value}" if value.bit_length() < 200 else f"an integer of {value.bit_length()} bits"
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        return f"the number {value!r}" if math.isfinite(value) else "a number too large to read (infinity)"
    if isinstance(value, str):
        if not value.strip():
            return "an empty string" if not value else "a string of blanks"
        shown = value if len(value) <= limit else value[:limit] + "…"
        return f"the string {shown!r}"
    if isinstance(value, list):
        return f"a list of {len(value)} item{'s' if len(value) != 1 else ''}"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__
