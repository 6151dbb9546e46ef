"""docs/models.md's table of what each registry model entry reproduces, generated from registry.yaml.

One row per model entry: its id, its type, ``meta.reproduces`` (the upstream evaluation whose
scoring it follows, or ``ours: ...``) and ``meta.differs`` (where it deliberately scores otherwise;
empty: no known difference). The table sits between the two marker comments of docs/models.md.

``python scripts/models_table.py`` rewrites the table; ``--check`` exits 1 when docs/models.md
disagrees with registry.yaml (``tests/harness/test_models_table.py`` runs the same comparison).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from vlc_harness.safe_yaml import read_yaml_file

REPO = Path(__file__).resolve().parents[1]
REGISTRY = REPO / "registry.yaml"
DOC = REPO / "docs" / "models.md"
BEGIN = "<!-- models-table:begin -->"
END = "<!-- models-table:end -->"
COMMAND = "python scripts/models_table.py"
MARKDOWN_ESCAPES = (("|", "\\|"), ("*", "\\*"), ("__", "\\_\\_"), ("<", "&lt;"))
"""What would otherwise end a cell, emphasise (``__init__.py``) or open an HTML tag (``</s>``)."""


def model_entries(registry: Path | None = None) -> list[dict[str, Any]]:
    """The model entries of ``registry`` (default: registry.yaml) as written, YAML anchors resolved,
    in file order."""
    return list((read_yaml_file(registry or REGISTRY) or {}).get("models") or [])


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
        raise ValueError(f"{DOC.name} needs one {BEGIN} line followed by one {END} line")
    head, rest = doc.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    return f"{head}{BEGIN}\n{generated}{END}{tail}"


def main(argv: list[str] | None = None) -> int:
    """Rewrite docs/models.md's table, or with ``--check`` report whether it is current."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if docs/models.md is out of date")
    args = parser.parse_args(argv)
    doc = DOC.read_text()
    updated = with_table(doc, table(model_entries()))
    if args.check:
        if updated != doc:
            print(f"{DOC.relative_to(REPO)} is out of date with registry.yaml: run {COMMAND}", file=sys.stderr)
            return 1
        return 0
    if updated != doc:
        DOC.write_text(updated)
    return 0


if __name__ == "__main__":
    sys.exit(main())
