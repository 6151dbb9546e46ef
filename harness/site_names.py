"""The file names the published site gives ids, and the registry's check that no two ids share one.

The board writes a model's page as ``models/<file_name(id)>.html``, a benchmark's as
``benchmarks/<file_name(id)>.html``, a cell's per-instance scores as
``downloads/scores/<model>__<benchmark>.jsonl.gz`` and its instance files under
``data/instances/<benchmark>/``. The rule lives in the core, used by both the board and the
registry, so that two ids written to one file are a registry error naming both entries: otherwise
the later overwrites the earlier, and the index links one model's name to another's page
(``lab/model-a`` beside ``lab_model-a``).

Names are compared without case (``str.casefold``): the site is built on Linux, but an archive of
it unpacked on a case-insensitive disk (macOS, Windows) would merge ``Lab_Model.html`` and
``lab_model.html``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

KINDS = ("models", "benchmarks")


def file_name(entry_id: str) -> str:
    """The file-safe form of an id: each run of characters other than letters, digits, ``.``, ``_``
    and ``-`` becomes one ``_``, with ``_`` trimmed from both ends (``lab/model-a`` -> ``lab_model-a``)."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", entry_id).strip("_") or "_"


def download_name(model_id: str, benchmark_id: str) -> str:
    """The per-instance scores download of one cell."""
    return f"downloads/scores/{file_name(model_id)}__{file_name(benchmark_id)}.jsonl.gz"


@dataclass(frozen=True)
class Clash:
    """A later id whose published file an earlier id already has."""

    file: str
    entry: str
    """The later entry, refused: its id (and, for a download, the other id of the name)."""
    other: str
    """The earlier entry, the same way, with where it is (``'lab/model-a' (registry.yaml:12)``)."""

    def describe(self) -> str:
        """The problem in words."""
        return (
            f"{self.entry} would be published as {self.file}, already the file of {self.other}; rename one "
            "of them (file names are compared without case)"
        )


class SiteFiles:
    """The files the site writes for the ids added so far, in load order."""

    def __init__(self) -> None:
        self._where: dict[tuple[str, str], str] = {}
        self._pages: dict[str, tuple[str, str]] = {}
        self._downloads: dict[str, tuple[tuple[str, str], tuple[str, str]]] = {}

    def add(self, kind: str, entry_id: str, where: str) -> Clash | None:
        """Add an id of ``kind`` (``models`` or ``benchmarks``) found at ``where`` (``file:line``);
        the clash it makes with an earlier id (then nothing is added), else ``None``.

        The same id again is no clash: a later registry file replaces the entry whole."""
        ref = (kind, entry_id)
        if ref in self._where:
            self._where[ref] = where
            return None
        page = f"{kind}/{file_name(entry_id)}.html"
        if page.casefold() in self._pages:
            return Clash(page, repr(entry_id), self._named(self._pages[page.casefold()]))
        other_kind = KINDS[1 - KINDS.index(kind)]
        new: dict[str, tuple[tuple[str, str], tuple[str, str]]] = {}
        for theirs in [r for r in self._where if r[0] == other_kind]:
            model, benchmark = (ref, theirs) if kind == "models" else (theirs, ref)
            name = download_name(model[1], benchmark[1])
            if name.casefold() in self._downloads:
                old = self._downloads[name.casefold()]
                same, partner = old if kind == "models" else old[::-1]
                mine = f"{entry_id!r} with {other_kind[:-1]} {self._named(theirs)}"
                return Clash(name, mine, f"{self._named(same)} with {other_kind[:-1]} {self._named(partner)}")
            new[name.casefold()] = (model, benchmark)
        self._where[ref] = where
        self._pages[page.casefold()] = ref
        self._downloads.update(new)
        return None

    def _named(self, ref: tuple[str, str]) -> str:
        return f"{ref[1]!r} ({self._where[ref]})"
