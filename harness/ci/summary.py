"""The CI jobs' Markdown: a PR check step's :class:`Section`, tables, code blocks, and the job summary
(``$GITHUB_STEP_SUMMARY``) both jobs append to."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

MAX_ROWS = 100
"""A table's rows at most; the rest are counted in one line."""


@dataclass
class Section:
    """One step's Markdown: a title, a verdict (passed, failed, skipped, or overridden: a check that
    could not run here, accepted by a maintainer's label; it does not fail the job, and never reads
    as passed) and body lines."""

    title: str
    verdict: str = "passed"
    lines: list[str] = field(default_factory=list)

    def fail(self, line: str | None = None) -> None:
        self.verdict = "failed"
        if line:
            self.lines.append(line)

    def override(self, line: str | None = None) -> None:
        """Mark a check that could not run here as accepted by a maintainer (a failure stays one)."""
        if self.verdict != "failed":
            self.verdict = "overridden"
        if line:
            self.lines.append(line)

    def markdown(self) -> str:
        mark = {"passed": "✅", "failed": "❌", "skipped": "⏭️", "overridden": "⚠️"}[self.verdict]
        return "\n".join([f"## {mark} {self.title}: {self.verdict}", "", *self.lines, ""]) + "\n"


def tail(text: str, n: int = 5) -> str:
    """The last ``n`` lines of a command's output, on one line."""
    return " / ".join(text.strip().splitlines()[-n:])


def code(text: str) -> list[str]:
    """A fenced code block of the last 60 lines of ``text``."""
    return ["```", *text.rstrip().splitlines()[-60:], "```"]


def table(header: list[str], rows: list[list[Any]]) -> list[str]:
    """A Markdown table (cells escaped, on one line each), cut at :data:`MAX_ROWS` rows."""

    def cell(v: Any) -> str:
        return str(v).replace("|", "\\|").replace("\n", " ")

    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows[:MAX_ROWS]]
    if len(rows) > MAX_ROWS:
        out.append(f"\n... and {len(rows) - MAX_ROWS} more")
    return out


def append(path: Path, text: str) -> None:
    """Append ``text`` to a summary file (the job summary gathers every step's)."""
    with open(path, "a", encoding="utf-8") as f:
        f.write(text)
