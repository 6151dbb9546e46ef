"""Malformed variants of a real-format input file, drawn by hypothesis: what a lab's or a broken download's
files look like. Text damage (truncation, bytes that are not UTF-8, a byte-order mark, an empty file, stray
JSON punctuation) for any file; for JSON and JSON-lines files a change to one place of the parsed document
(a value of another type, 1e400, NaN, a 5000-digit number, a huge or empty string, a field dropped or added,
a record repeated, a key twice in one object); for CSV files a change to one cell or row (empty, huge, a
column more or less, a quote). Each draw says what it did (``Mutation.what``), for the failure message.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

RAW = "__fuzz_raw_{}__"
"""A placeholder string, replaced after dumping by a literal json.dumps cannot write."""
LITERALS = ("1e400", "-1e400", "NaN", "Infinity", "1" * 5000, "[" * 3000 + "]" * 3000)
HUGE = "x" * 200_000
VALUES = st.one_of(
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=12),
    st.sampled_from(["", " ", "\0", "../../../etc/passwd", "/abs/x.jpg", HUGE]),
    st.none(),
    st.booleans(),
    st.lists(st.integers(min_value=0, max_value=9), max_size=3),
    st.lists(st.text(max_size=4), max_size=3),
    st.dictionaries(st.text(max_size=4), st.integers(), max_size=2),
    st.sampled_from([RAW.format(k) for k in range(len(LITERALS))]),
)
"""What a field may be replaced with: every JSON type, extremes, and the raw literals."""


@dataclass(frozen=True)
class Mutation:
    """A mutated file: its new bytes and what was done."""

    data: bytes
    what: str


def _raw(text: str) -> str:
    for k, literal in enumerate(LITERALS):
        text = text.replace(json.dumps(RAW.format(k)), literal)
    return text


def _slots(doc: Any, path: tuple[Any, ...] = (), depth: int = 0) -> list[tuple[tuple[Any, ...], Any]]:
    """Every field and item of a document (to depth 4, the first 8 of each container), as ``(path of its
    container, key or index)``: the places a mutation changes."""
    items = (
        list(doc.items())[:8] if isinstance(doc, dict) else list(enumerate(doc[:8])) if isinstance(doc, list) else []
    )
    out = [(path, key) for key, _ in items]
    if depth < 4:
        for key, item in items:
            out += _slots(item, (*path, key), depth + 1)
    return out


def _at(doc: Any, path: tuple[Any, ...]) -> Any:
    for step in path:
        doc = doc[step]
    return doc


ACTIONS = ("set", "set", "set", "drop", "add", "repeat")
"""What a mutation does to a field or item: most often a value of another kind."""


def _change_document(draw: Any, doc: Any) -> tuple[Any, str, str | None]:
    """One change to a parsed document: ``(document, what, the key to write twice or None)``."""
    slots = _slots(doc)
    if not slots:
        return draw(VALUES), "the whole document replaced", None
    path, key = draw(st.sampled_from(slots))
    container, where = _at(doc, path), f"{list(path)}[{key!r}]"
    action = draw(st.sampled_from(ACTIONS))
    if action == "set":
        container[key] = value = draw(VALUES)
        return doc, f"{where} set to {value!r:.40}", None
    if action == "drop":
        del container[key]
        return doc, f"{where} dropped", None
    if action == "add" and isinstance(container, dict):
        container[draw(st.text(min_size=1, max_size=6))] = draw(VALUES)
        return doc, f"{list(path)} got an extra field", None
    if isinstance(container, dict):  # the same key twice in one object (written by _dump)
        container["__fuzz_repeat__"] = container[key]
        return doc, f"{where} written twice", key
    container.append(json.loads(json.dumps(container[key])))
    return doc, f"{where} repeated at the end", None


def _dump(doc: Any, repeated: str | None) -> str:
    text = _raw(json.dumps(doc, ensure_ascii=False))
    if repeated is not None:
        text = text.replace(json.dumps("__fuzz_repeat__"), json.dumps(repeated, ensure_ascii=False), 1)
    return text


def _mutate_json(draw: Any, text: str) -> Mutation:
    doc, what, repeated = _change_document(draw, json.loads(text))
    return Mutation(_dump(doc, repeated).encode("utf-8"), what)


def _mutate_jsonl(draw: Any, text: str) -> Mutation:
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines:
        return Mutation(b"{}\n", "an empty object")
    k = draw(st.integers(min_value=0, max_value=len(lines) - 1))
    if draw(st.booleans()) and draw(st.booleans()):
        lines.append(lines[k])
        return Mutation(("\n".join(lines) + "\n").encode("utf-8"), f"line {k + 1} repeated at the end")
    doc, what, repeated = _change_document(draw, json.loads(lines[k]))
    lines[k] = _dump(doc, repeated)
    return Mutation(("\n".join(lines) + "\n").encode("utf-8"), f"line {k + 1}: {what}")


def _mutate_csv(draw: Any, text: str) -> Mutation:
    rows = list(csv.reader(io.StringIO(text, newline="")))
    if len(rows) < 2:
        return Mutation(b"", "an empty CSV")
    r = draw(st.integers(min_value=0, max_value=len(rows) - 1))
    row = rows[r]
    action = draw(st.sampled_from(["cell", "short", "long", "repeat"]))
    if action == "short" and row:
        row.pop()
    elif action == "long":
        row.append("extra")
    elif action == "repeat":
        rows.append(list(row))
    elif row:
        c = draw(st.integers(min_value=0, max_value=len(row) - 1))
        row[c] = draw(st.sampled_from(["", " ", "2", "-1", "abc", '"', "a,b", "a\nb", "\0", HUGE, "²", "1e400"]))
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(rows)
    return Mutation(out.getvalue().encode("utf-8"), f"CSV row {r}: {action}")


def _mutate_text(draw: Any, data: bytes) -> Mutation:
    action = draw(st.sampled_from(["truncate", "empty", "bad-utf8", "bom", "junk", "blank"]))
    at = draw(st.integers(min_value=0, max_value=max(len(data) - 1, 0)))
    if action == "truncate":
        return Mutation(data[:at], f"truncated at byte {at}")
    if action == "empty":
        return Mutation(b"", "emptied")
    if action == "bad-utf8":
        bad = draw(st.sampled_from([b"\xff", b"\xc3\x28", b"\xed\xa0\x80", b"\x80\x80"]))
        return Mutation(data[:at] + bad + data[at:], f"{bad!r} inserted at byte {at}")
    if action == "bom":
        return Mutation(b"\xef\xbb\xbf" + data, "a byte-order mark in front")
    if action == "blank":
        return Mutation(b" \n\n  \n", "only blanks")
    junk = draw(st.text(alphabet='{}[]",:\\\n0', min_size=1, max_size=3)).encode()
    return Mutation(data[:at] + junk + data[at:], f"{junk!r} inserted at byte {at}")


@st.composite
def mutations(draw: Any, path: Path, data: bytes) -> Mutation:
    """One malformed variant of the file at ``path`` (its original bytes ``data``)."""
    if draw(st.integers(min_value=0, max_value=3)) == 0:  # a quarter: damage to the text itself
        return _mutate_text(draw, data)
    text = data.decode("utf-8-sig")
    if path.suffix == ".jsonl":
        return _mutate_jsonl(draw, text)
    if path.suffix == ".json":
        return _mutate_json(draw, text)
    if path.suffix == ".csv":
        return _mutate_csv(draw, text)
    return _mutate_text(draw, data)
