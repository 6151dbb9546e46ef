"""BibTeX for each benchmark and for the board.

A benchmark's entries are its card's ``bibtex`` field (or its ``bibtex`` class attribute), shown as
they are; a benchmark without them gets none: its citation prose stands alone, and no entry is ever
derived from it. The board's own entry is built here.
"""

from __future__ import annotations

import re
from typing import Any


def benchmark_bibtex(bench: Any) -> str:
    """The benchmark's BibTeX entries as its card gives them, or ``""`` when it gives none."""
    return str(getattr(bench, "bibtex", "") or "").strip()


def _escape(text: str) -> str:
    """A BibTeX field value: braces balanced by removal, backslashes and specials escaped."""
    text = text.replace("\\", " ").replace("{", "").replace("}", "")
    return re.sub(r"([&%$#_])", r"\\\1", text).strip()


def board_bibtex(
    provenance: dict[str, Any],
    generated: str,
    release: str | None = None,
    rendered_year: str = "",
    published: bool = True,
) -> str:
    """BibTeX for the board itself: the harness, the release (or the live board) and its date.

    ``generated`` is the newest published result's time, and the entry is dated by it. Where there is
    none (nothing published yet, or no completion time stored) the entry is dated by ``rendered_year``
    (the year it was rendered: only the year, so that its bytes stay the same from one night to the
    next); ``published=False`` says the board has no published result yet."""
    year = generated[:4] or rendered_year
    version = str(provenance.get("harness_version", "") or "")
    digest = str(provenance.get("registry_digest", "") or "")[:12]
    if release:
        what = f"release {release}"
    elif not published:
        what = "live board, no published result yet"
    else:
        what = f"live board of {generated[:10]}" if generated else "live board"
    note = what + (f"; vlc-harness {version}" if version else "") + (f"; registry {digest}" if digest else "")
    fields = [
        ("title", "vlc-harness leaderboard: vision-language compositionality in both directions"),
        ("author", "{vlc-harness contributors}"),
        ("year", year),
        ("version", release or ""),
        ("note", note),
    ]
    key = f"vlcharness{year}leaderboard" + ("_" + re.sub(r"[^A-Za-z0-9]", "", release) if release else "")
    return _entry("misc", key, fields)


def _entry(kind: str, key: str, fields: list[tuple[str, str]]) -> str:
    """One BibTeX entry; values escaped except URLs and values already in braces."""
    body = ",\n".join(
        f"  {name} = {{{value if name == 'url' or value.startswith('{') else _escape(value)}}}"
        for name, value in fields
        if value
    )
    return f"@{kind}{{{key},\n{body}\n}}"
