"""BibTeX for each benchmark and for the board.

A benchmark plugin may give its own entry (a ``bibtex`` class attribute); otherwise one is
derived from its ``citation`` line, written as ``Authors. Title. Venue Year.`` by every built-in
(authors by surname). The derived entry is marked with a ``note`` so nobody mistakes it for the
authors' own.
"""

from __future__ import annotations

import re
from typing import Any

_YEAR = re.compile(r"\b(19|20)\d{2}\b")
_CONFERENCE = re.compile(
    r"\b(CVPR|ICCV|ECCV|NeurIPS|NIPS|ICLR|ICML|ACL|EMNLP|NAACL|EACL|COLING|AAAI|IJCAI|WACV|BMVC|Findings|"
    r"Workshop|Conference|Proceedings)\b"
)
_JOURNAL = re.compile(r"\b(TPAMI|IJCV|JMLR|TACL|Transactions|Journal)\b")
_SURNAME = re.compile(r"^[A-Z][A-Za-z'\u00c0-\u017f-]+(?: [a-z]{1,3} [A-Z][A-Za-z'-]+)?$")


def _venue(venue: str) -> str:
    """The venue without its year and arXiv number (those have their own fields)."""
    text = re.sub(r"\(?arXiv:\s*\d{4}\.\d{4,5}\)?", "", venue)
    text = _YEAR.sub("", text)
    return re.sub(r"\s+", " ", text).strip(" ,;()")


def _escape(text: str) -> str:
    """A BibTeX field value: braces balanced by removal, backslashes and specials escaped."""
    text = text.replace("\\", " ").replace("{", "").replace("}", "")
    return re.sub(r"([&%$#_])", r"\\\1", text).strip()


def _key(author: str, year: str, title: str) -> str:
    surname = re.sub(r"[^a-z]", "", (author.split()[-1] if author.split() else "anon").lower()) or "anon"
    word = next((w for w in re.findall(r"[A-Za-z]+", title) if len(w) > 3), "benchmark").lower()
    return f"{surname}{year}{word}"


def benchmark_bibtex(bench: Any, bench_id: str = "") -> str:
    """The benchmark's BibTeX: its own ``bibtex`` attribute, else derived from ``citation``."""
    own = getattr(bench, "bibtex", None)
    if isinstance(own, str) and own.strip().startswith("@"):
        return own.strip()
    citation = str(getattr(bench, "citation", "") or "").strip()
    if not citation:
        return ""
    sentences = [p.strip() for p in re.split(r"(?<=[^A-Z\s][.?])\s+", citation) if p.strip()]
    authors = sentences[0].rstrip(".") if sentences else ""
    names = [a.strip() for a in re.split(r",\s*|\s+and\s+", authors.replace(" et al", "")) if a.strip()]
    homepage = str(getattr(bench, "homepage", "") or "")
    url = homepage if homepage.startswith(("https://", "http://")) else ""
    title_of = str(getattr(bench, "title", "") or bench_id)
    if len(sentences) < 3 or not all(_SURNAME.match(n) for n in names):
        year_match = _YEAR.search(citation)
        year = year_match.group(0) if year_match else ""
        fields = [("title", title_of), ("year", year), ("url", url), ("note", citation)]
        return _entry("misc", _key(bench_id or "benchmark", year, title_of), fields)
    at = next((i for i in range(2, len(sentences)) if _YEAR.search(sentences[i]) or "arXiv" in sentences[i]), 2)
    title = " ".join(sentences[1:at]).rstrip(".")
    venue = sentences[at].rstrip(".")
    year_match = _YEAR.search(venue) or _YEAR.search(citation)
    year = year_match.group(0) if year_match else ""
    first = names[0]
    arxiv = re.search(r"arXiv:\s*(\d{4}\.\d{4,5})", venue)
    if _CONFERENCE.search(venue) and not venue.startswith("arXiv"):
        kind, venue_field = "inproceedings", "booktitle"
    elif _JOURNAL.search(venue):
        kind, venue_field = "article", "journal"
    else:
        kind, venue_field = "misc", "howpublished"
    fields = [
        ("author", " and ".join(names)),
        ("title", title.rstrip(".")),
        (venue_field, _venue(venue)),
        ("year", year),
        ("eprint", arxiv.group(1) if arxiv else ""),
        ("archiveprefix", "arXiv" if arxiv else ""),
        ("url", url),
        ("note", "entry derived by vlc-harness from the citation line"),
    ]
    return _entry(kind, _key(first, year, title), fields)


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
