"""One colour per model family, the same on every page of a board (issue 41, item 5).

A family's style is chosen from the family's name and the set of families on the board, never from a
row's position on one page: the index, every benchmark page, every model page and the compare view
read the same :class:`FamilyStyles`, built once from all of the board's rows. Each family prefers the
colour its name hashes to (so a family keeps its colour when others join, unless two collide) and
takes the next free colour otherwise, families taken in name order; no two families share a colour
while the palette has room. Past :data:`COLOURS` families, colours repeat with another marker shape
(circle, then triangle, then square), so up to ``COLOURS * len(SHAPES)`` families stay apart; past
that, pairs share colour and shape and the legend (which names each family) is the only key.
A row's kind keeps its own mark on the plots whatever its family: a diamond for an image-blind model,
a ring for a baseline.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable
from dataclasses import dataclass

from vlc_leaderboard.rows import Row

COLOURS = 8
"""Colours ``fam-0`` .. ``fam-7`` (site.css, light and dark schemes)."""
SHAPES = ("circle", "triangle", "square")
"""Marker shapes, in the order they are taken once every colour is used."""


@dataclass(frozen=True)
class FamilyStyle:
    """How one family is drawn: a colour class and a marker shape."""

    colour: int
    shape: str

    @property
    def css(self) -> str:
        """The CSS class of the colour (``fam-3``)."""
        return f"fam-{self.colour}"

    def swatch(self, kind: str = "model") -> str:
        """The CSS classes of a small HTML mark of this style (``span.swatch``, site.css), for a row of
        ``kind``: a ring for a baseline, a diamond for an image-blind model, else the family's shape."""
        shape = {"baseline": "ring", "blind": "diamond"}.get(kind, self.shape)
        return f"swatch {self.css} shape-{shape}"


def family_of(row: Row) -> str:
    """The family a row is coloured by: ``baseline`` for a baseline, else its declared family
    (``image-blind`` or ``other`` where an image-blind model or a model declares none)."""
    if row.kind == "baseline":
        return "baseline"
    return str(row.meta.get("family") or ("image-blind" if row.kind == "blind" else "other"))


class FamilyStyles:
    """The styles of every family on one board."""

    def __init__(self, families: Iterable[str]) -> None:
        names = sorted(set(families))
        self._styles: dict[str, FamilyStyle] = {}
        taken: set[tuple[int, str]] = set()
        for name in names:
            tier = len(self._styles) // COLOURS
            shape = SHAPES[tier % len(SHAPES)]
            start = zlib.crc32(name.encode()) % COLOURS
            colour = next(
                ((start + step) % COLOURS for step in range(COLOURS) if ((start + step) % COLOURS, shape) not in taken),
                start,
            )
            taken.add((colour, shape))
            self._styles[name] = FamilyStyle(colour, shape)

    @classmethod
    def of_rows(cls, rows: Iterable[Row]) -> FamilyStyles:
        """The styles of the families of ``rows`` (all of a board's rows, so that every page agrees)."""
        return cls(family_of(r) for r in rows)

    def __getitem__(self, family: str) -> FamilyStyle:
        return self._styles[family]

    def of(self, row: Row) -> FamilyStyle:
        """The style of ``row``'s family."""
        return self._styles[family_of(row)]

    def legend(self, rows: Iterable[Row]) -> list[tuple[str, FamilyStyle, str]]:
        """(family, style, kind) for the families of ``rows``, in name order: what a plot's legend lists.
        The kind is the one every row of the family shares (its mark: a diamond for image-blind, a ring
        for a baseline), else ``model``."""
        kinds: dict[str, set[str]] = {}
        for row in rows:
            kinds.setdefault(family_of(row), set()).add(row.kind)
        return [(f, self._styles[f], next(iter(k)) if len(k) == 1 else "model") for f, k in sorted(kinds.items())]
