"""Labels on the static plots: texts that stay distinct and boxes that never overlap (issue 41, item 5).

A name longer than the room beside a point is shortened; where two names shorten to the same text
(``Perception Encoder PE-Cor…`` twice) they keep their distinguishing ends instead
(``Perception Enc…B/16``), and a name with no distinct short form is numbered and keyed below the
plot. A label goes in the first of several spots around its point, nearest first, whose box overlaps
no other label, no marker and leaves the plot's frame alone; a label with no such spot is not drawn
(the caller numbers it, or keys it as unmarked). Boxes are estimated from :data:`CHAR_WIDTH`, the same
estimate the tests check overlaps with.
"""

from __future__ import annotations

from collections.abc import Sequence

Box = tuple[float, float, float, float]
"""(left, top, right, bottom) in SVG user units."""

CHAR_WIDTH = 7.0
"""Estimated width of a 12 px label character (a little wider than the average glyph)."""
LINE = 13.0
"""Height of a label's box."""
MOST = 26
"""The longest label drawn beside a point, in characters."""


def box_of(text: str, x: float, y: float, anchor: str) -> Box:
    """The box a label of ``text`` drawn at (``x``, ``y``) baseline with ``anchor`` occupies."""
    w = CHAR_WIDTH * len(text) + 2
    left = x if anchor == "start" else (x - w / 2 if anchor == "middle" else x - w)
    return (left, y - LINE + 3, left + w, y + 3)


def overlaps(a: Box, b: Box) -> bool:
    """Whether two boxes share any area."""
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _cut(name: str, tail: int, most: int) -> str:
    """``name`` in at most ``most`` characters, keeping its last ``tail`` ones (widened to the start of
    their word where the head keeps 8 characters or more)."""
    if not tail:
        return name[: most - 1].rstrip() + "…"
    word = name.rfind(" ", 0, len(name) - tail + 1) + 1
    if word and most - 1 - (len(name) - word) >= 8:
        tail = len(name) - word
    return name[: most - 1 - tail].rstrip() + "…" + name[-tail:]


def short_labels(names: Sequence[str], most: int = MOST) -> dict[str, str | None]:
    """Each name's label: itself when short enough, else a shortened form distinct from every other
    label (the distinguishing end kept); ``None`` for a name with no distinct form of at most ``most``
    characters (it is numbered)."""
    out: dict[str, str | None] = {n: n if len(n) <= most else _cut(n, 0, most) for n in names}
    for tail in range(1, most - 8):
        counts: dict[str | None, int] = {}
        for label in out.values():
            counts[label] = counts.get(label, 0) + 1
        clashing = [n for n, label in out.items() if label is not None and counts[label] > 1 and len(n) > most]
        if not clashing:
            break
        for n in clashing:
            out[n] = _cut(n, tail, most)
    counts = {}
    for n in names:  # two models of one name share a label: both are numbered
        counts[out[n]] = counts.get(out[n], 0) + 1
    return {n: (label if label is not None and counts[label] == 1 else None) for n, label in out.items()}


class Placer:
    """Label spots on one plot: it remembers every box taken (markers and labels)."""

    def __init__(self, frame: Box) -> None:
        self.frame = frame
        """Where a label may go: the plot area with room for labels past its edges."""
        self.taken: list[Box] = []
        self.labels: list[Box] = []
        """The boxes of the labels placed so far (markers are in :attr:`taken` only)."""

    def reserve(self, box: Box) -> None:
        """Keep labels off ``box`` (a marker)."""
        self.taken.append(box)

    def place(self, text: str, cx: float, cy: float, reach: int = 1) -> tuple[float, float, str] | None:
        """A free spot for ``text`` beside the point (``cx``, ``cy``): (x, y, text-anchor), searching
        ``reach`` rings of spots outwards; ``None`` where none is free."""
        for ring in range(reach):
            step = 12.0 * ring
            for x, y, anchor in (
                (cx + 7 + step, cy + 4, "start"),
                (cx - 7 - step, cy + 4, "end"),
                (cx + 6, cy - 7 - step, "start"),
                (cx + 6, cy + 15 + step, "start"),
                (cx - 6, cy - 7 - step, "end"),
                (cx - 6, cy + 15 + step, "end"),
                (cx, cy - 8 - step, "middle"),
                (cx, cy + 17 + step, "middle"),
            ):
                box = box_of(text, x, y, anchor)
                f = self.frame
                if box[0] < f[0] or box[2] > f[2] or box[1] < f[1] or box[3] > f[3]:
                    continue
                if any(overlaps(box, b) for b in self.taken):
                    continue
                self.taken.append(box)
                self.labels.append(box)
                return x, y, anchor
        return None
