"""docs/models.md's table of what each registry model entry reproduces, generated from a registry file.

One row per model entry: its id, its type, ``meta.reproduces`` (the upstream evaluation whose
scoring it follows, or ``ours: ...``) and ``meta.differs`` (where it deliberately scores otherwise;
empty: no known difference). The table sits between the two marker comments of docs/models.md;
``vlc-harness dev generate`` writes it (:mod:`vlc_harness.generated`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from vlc_harness.safe_yaml import read_yaml_file

BEGIN = "<!-- models-table:begin -->"
END = "<!-- models-table:end -->"
MARKDOWN_ESCAPES = (("|", "\\|"), ("*", "\\*"), ("__", "\\_\\_"), ("<", "&lt;"))
"""What would otherwise end a cell, emphasise (``__init__.py``) or open an HTML tag (``</s>``)."""


def model_entries(registry: Path) -> list[dict[str, Any]]:
    """The model entries of ``registry`` as written, YAML anchors resolved, in file order."""
    return list((read_yaml_file(registry) or {}).get("models") or [])


def cell(text: str) -> str:
    """``text`` as one Markdown table cell."""
    for old, new in MARKDOWN_ESCAPES:
        text = text.replace(old, new)
    return " ".join(text.split())


def table(entries: list[dict[str, Any]]) -> str:
    """The Markdown table: id, type, what the entry reproduces, what differs from it."""
    lines = ["| id | type | reproduces | differs |", "|---|---|---|---|"]
    for entry in entries:
        meta = entry.get("meta") or {}
        reproduces = cell(str(meta.get("reproduces") or "(not stated)"))
        differs = cell(str(meta.get("differs") or ""))
        lines.append(f"| `{entry['id']}` | `{entry['type']}` | {reproduces} | {differs} |")
    return "\n".join(lines) + "\n"


def with_table(doc: str, generated: str) -> str:
    """``doc`` with the text between the markers replaced by ``generated``; the markers must be there."""
    if doc.count(BEGIN) != 1 or doc.count(END) != 1 or doc.index(BEGIN) > doc.index(END):
        raise ValueError(f"docs/models.md needs one {BEGIN} line followed by one {END} line")
    head, rest = doc.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    return f"{head}{BEGIN}\n{generated}{END}{tail}"
