"""Small inline SVG charts (no JavaScript, no external assets); every label is escaped."""

from __future__ import annotations

from dataclasses import dataclass
from html import escape

from markupsafe import Markup


def gap_bar(gap: float | None, human: float | None = None, width: int = 90, span: float = 0.5) -> Markup:
    """A signed bar for I2T minus T2I: right of the centre when I2T is higher; a tick for humans."""
    if gap is None:
        return Markup("")
    mid = width / 2
    scale = mid / span
    length = max(-mid, min(mid, gap * scale))
    x = mid if length >= 0 else mid + length
    kind = "pos" if length >= 0 else "neg"
    parts = [
        f'<svg class="gap" width="{width}" height="14" viewBox="0 0 {width} 14" role="img" '
        f'aria-label="I2T minus T2I: {100 * gap:+.1f} points">',
        f'<line x1="{mid}" y1="0" x2="{mid}" y2="14" class="axis"/>',
        f'<rect x="{x:.1f}" y="3" width="{abs(length):.1f}" height="8" class="{kind}"/>',
    ]
    if human is not None:
        hx = mid + max(-mid, min(mid, human * scale))
        parts.append(f'<line x1="{hx:.1f}" y1="0" x2="{hx:.1f}" y2="14" class="human"/>')
    parts.append("</svg>")
    return Markup("".join(parts))


@dataclass(frozen=True)
class Point:
    """One model on the I2T-against-T2I plot."""

    name: str
    x: float
    y: float
    kind: str
    family: int
    """Index of the model's family in the legend (its colour)."""


FAMILY_COLOURS = 8
"""Families get colours ``fam-0`` .. ``fam-7`` (site.css, both schemes); later ones repeat."""
CHAR_WIDTH = 7.0
"""Estimated width of a 12 px label character, for placing labels without overlap."""


def _label_text(name: str, most: int = 26) -> str:
    return name if len(name) <= most else name[: most - 1] + "…"


def scatter(
    points: list[Point],
    human: tuple[float, float] | None,
    chance: tuple[float, float] | None,
    titles: tuple[str, str] | None,
    families: list[str] | None = None,
) -> Markup:
    """I2T (x) against T2I (y): each model a dot coloured by family (a diamond if image-blind, a
    ring if a baseline) with its name beside it where it fits (else a number keyed below), the
    human and chance points marked and named, and the diagonal where both directions are equal."""
    width, height = 620, 460
    left, top, bottom = 52, 16, 44
    side = height - top - bottom
    right_edge = width - 8

    def xy(a: float, b: float) -> tuple[float, float]:
        return left + max(0.0, min(1.0, a)) * side, top + side - max(0.0, min(1.0, b)) * side

    x_label, y_label = titles or ("I2T", "T2I")
    parts = [
        f'<svg class="scatter" width="{width}" height="{height}" viewBox="0 0 {width} {height}" role="img" '
        f'aria-label="{escape(x_label)} against {escape(y_label)}, one point per model">',
        f'<rect x="{left}" y="{top}" width="{side}" height="{side}" class="frame"/>',
        f'<line x1="{left}" y1="{top + side}" x2="{left + side}" y2="{top}" class="diagonal"/>',
        f'<text x="{left + side / 2}" y="{height - 8}" text-anchor="middle">{escape(x_label)} (%)</text>',
        f'<text x="14" y="{top + side / 2}" text-anchor="middle" transform="rotate(-90 14 {top + side / 2})">'
        f"{escape(y_label)} (%)</text>",
    ]
    for tick in (0, 0.25, 0.5, 0.75, 1):
        tx, ty = xy(tick, tick)
        parts.append(f'<line x1="{tx:.1f}" y1="{top + side}" x2="{tx:.1f}" y2="{top + side + 4}" class="axis"/>')
        parts.append(
            f'<text x="{tx:.1f}" y="{top + side + 16}" text-anchor="middle" class="tick">{int(tick * 100)}</text>'
        )
        parts.append(f'<text x="{left - 6}" y="{ty + 4:.1f}" text-anchor="end" class="tick">{int(tick * 100)}</text>')
    placed: list[tuple[float, float, float, float]] = []
    for _, point, _ in (("Human", human, "human"), ("Chance", chance, "chance")):
        if point is not None:
            cx, cy = xy(*point)
            placed.append((cx - 5, cy - 5, cx + 5, cy + 5))
    marks = [(p, *xy(p.x, p.y)) for p in points]
    for _, cx, cy in marks:
        placed.append((cx - 4, cy - 4, cx + 4, cy + 4))
    labels: list[str] = []
    keyed: list[tuple[int, str]] = []
    for label, point, cls in (("Human", human, "human"), ("Chance", chance, "chance")):
        if point is None:
            continue
        cx, cy = xy(*point)
        if cls == "human":
            diamond = f"M{cx:.1f} {cy - 6:.1f} L{cx + 6:.1f} {cy:.1f} L{cx:.1f} {cy + 6:.1f} L{cx - 6:.1f} {cy:.1f} Z"
            tip = f"<title>{label}: {100 * point[0]:.1f} / {100 * point[1]:.1f}</title>"
            parts.append(f'<path d="{diamond}" class="human">{tip}</path>')
        else:
            parts.append(
                f'<rect x="{cx - 4:.1f}" y="{cy - 4:.1f}" width="8" height="8" class="{cls}">'
                f"<title>{label}: {100 * point[0]:.1f} / {100 * point[1]:.1f}</title></rect>"
            )
        spot = _place(label, cx, cy, placed, left, right_edge, top, height - bottom + 12)
        if spot is not None:
            x, y, anchor = spot
            labels.append(
                f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}" class="name {cls}-name">{label}</text>'
            )
    for p, cx, cy in sorted(marks, key=lambda m: (m[2], m[1])):
        title = f"<title>{escape(p.name)}: {100 * p.x:.1f} / {100 * p.y:.1f}</title>"
        colour = f"fam-{p.family % FAMILY_COLOURS}"
        if p.kind == "blind":
            turn = f"rotate(45 {cx:.1f} {cy:.1f})"
            parts.append(
                f'<rect x="{cx - 4:.1f}" y="{cy - 4:.1f}" width="8" height="8" transform="{turn}" '
                f'class="dot blind {colour}">{title}</rect>'
            )
        elif p.kind == "baseline":
            parts.append(f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="4" class="dot ring {colour}">{title}</circle>')
        else:
            parts.append(f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="4" class="dot {colour}">{title}</circle>')
        text = _label_text(p.name)
        spot = _place(text, cx, cy, placed, left, right_edge, top, height - bottom + 12)
        if spot is None:
            keyed.append((len(keyed) + 1, p.name))
            spot = _place(str(len(keyed)), cx, cy, placed, left, right_edge, top, height - bottom + 12, force=True)
            text = str(len(keyed))
        assert spot is not None
        x, y, anchor = spot
        labels.append(f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}" class="name">{escape(text)}</text>')
    parts += labels
    parts.append("</svg>")
    svg = "".join(parts)
    if keyed:
        items = "".join(f'<li><span class="key">{n}</span> {escape(name)}</li>' for n, name in keyed)
        svg += f'<ol class="plot-key" aria-label="Models numbered on the plot">{items}</ol>'
    return Markup(svg)


def _place(
    text: str,
    cx: float,
    cy: float,
    placed: list[tuple[float, float, float, float]],
    x_min: float,
    x_max: float,
    y_min: float,
    y_max: float,
    force: bool = False,
) -> tuple[float, float, str] | None:
    """Where a label beside a point fits without overlapping the others: (x, y, text-anchor)."""
    w, h = CHAR_WIDTH * len(text) + 2, 13.0
    candidates = [
        (cx + 7, cy + 4, "start"),
        (cx - 7, cy + 4, "end"),
        (cx + 6, cy - 7, "start"),
        (cx + 6, cy + 15, "start"),
        (cx - 6, cy - 7, "end"),
        (cx - 6, cy + 15, "end"),
    ]
    for x, y, anchor in candidates:
        box = (x, y - h + 3, x + w, y + 3) if anchor == "start" else (x - w, y - h + 3, x, y + 3)
        if box[0] < x_min - 40 or box[2] > x_max or box[1] < y_min - 12 or box[3] > y_max:
            continue
        if any(box[0] < b[2] and b[0] < box[2] and box[1] < b[3] and b[1] < box[3] for b in placed):
            continue
        placed.append(box)
        return x, y, anchor
    if force:
        x, y, anchor = candidates[0]
        placed.append((x, y - h + 3, x + w, y + 3))
        return x, y, anchor
    return None
