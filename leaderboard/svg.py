"""Small inline SVG charts (no JavaScript, no external assets); every label is escaped."""

from __future__ import annotations

from dataclasses import dataclass
from html import escape

from markupsafe import Markup

from vlc_leaderboard.families import FamilyStyle
from vlc_leaderboard.plot_labels import Placer, short_labels


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
    """One model on a plot."""

    name: str
    x: float
    y: float
    kind: str
    style: FamilyStyle
    """Its family's colour and marker shape (:class:`vlc_leaderboard.families.FamilyStyles`)."""


def marker(p: Point, cx: float, cy: float, tip: str) -> str:
    """The mark of ``p`` at (``cx``, ``cy``): a diamond if image-blind, a ring if a baseline, else its
    family's shape, in its family's colour, with ``tip`` (an SVG ``<title>``) inside."""
    colour = p.style.css
    if p.kind == "blind":
        turn = f"rotate(45 {cx:.1f} {cy:.1f})"
        return (
            f'<rect x="{cx - 4:.1f}" y="{cy - 4:.1f}" width="8" height="8" transform="{turn}" '
            f'class="dot blind {colour}">{tip}</rect>'
        )
    if p.kind == "baseline":
        return f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="4" class="dot ring {colour}">{tip}</circle>'
    if p.style.shape == "triangle":
        d = f"M{cx:.1f} {cy - 5:.1f} L{cx + 5:.1f} {cy + 4:.1f} L{cx - 5:.1f} {cy + 4:.1f} Z"
        return f'<path d="{d}" class="dot triangle {colour}">{tip}</path>'
    if p.style.shape == "square":
        return f'<rect x="{cx - 4:.1f}" y="{cy - 4:.1f}" width="8" height="8" class="dot square {colour}">{tip}</rect>'
    return f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="4" class="dot {colour}">{tip}</circle>'


def legend(entries: list[tuple[str, FamilyStyle, str]]) -> Markup:
    """The families of a plot with their colour and mark (of the kind all its rows share), as a list."""
    items = "".join(
        f'<li><span class="{style.swatch(kind)}" aria-hidden="true"></span> {escape(family)}</li>'
        for family, style, kind in entries
    )
    return Markup(f'<ul class="plot-legend" aria-label="Families">{items}</ul>')


def _clusters(marks: list[tuple[Point, float, float]]) -> list[list[tuple[Point, float, float]]]:
    """Marks drawn within 3 px of each other, grouped (greedily, in the given order): one label each."""
    groups: list[list[tuple[Point, float, float]]] = []
    for mark in marks:
        for group in groups:
            if abs(group[0][1] - mark[1]) <= 3 and abs(group[0][2] - mark[2]) <= 3:
                group.append(mark)
                break
        else:
            groups.append([mark])
    return groups


def scatter(
    points: list[Point],
    human: tuple[float, float] | None,
    chance: tuple[float, float] | None,
    titles: tuple[str, str] | None,
) -> Markup:
    """I2T (x) against T2I (y): each model marked in its family's colour and shape (a diamond if
    image-blind, a ring if a baseline) with its name beside it where it fits, else a number keyed below
    (models drawn on one spot share one number); Human and Chance marked and named once; the diagonal
    where both directions are equal."""
    width, height = 620, 460
    left, top, bottom = 52, 16, 44
    side = height - top - bottom

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
    placer = Placer((left - 40, top - 12, width - 8, height - bottom + 12))
    refs = [(label, point, cls) for label, point, cls in (("Human", human, "human"), ("Chance", chance, "chance"))]
    for _, point, _ in refs:
        if point is not None:
            cx, cy = xy(*point)
            placer.reserve((cx - 6, cy - 6, cx + 6, cy + 6))
    marks = [(p, *xy(p.x, p.y)) for p in points]
    for _, cx, cy in marks:
        placer.reserve((cx - 5, cy - 5, cx + 5, cy + 5))
    labels: list[str] = []
    for label, point, cls in refs:
        if point is None:
            continue
        cx, cy = xy(*point)
        tip = f"<title>{label}: {100 * point[0]:.1f} / {100 * point[1]:.1f}</title>"
        if cls == "human":
            diamond = f"M{cx:.1f} {cy - 6:.1f} L{cx + 6:.1f} {cy:.1f} L{cx:.1f} {cy + 6:.1f} L{cx - 6:.1f} {cy:.1f} Z"
            parts.append(f'<path d="{diamond}" class="human">{tip}</path>')
        else:
            parts.append(f'<rect x="{cx - 4:.1f}" y="{cy - 4:.1f}" width="8" height="8" class="{cls}">{tip}</rect>')
        spot = placer.place(label, cx, cy, reach=6)
        if spot is not None:
            x, y, anchor = spot
            labels.append(
                f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}" class="name {cls}-name">{label}</text>'
            )
    for p, cx, cy in sorted(marks, key=lambda m: (m[2], m[1])):
        parts.append(marker(p, cx, cy, f"<title>{escape(p.name)}: {100 * p.x:.1f} / {100 * p.y:.1f}</title>"))
    texts, key = label_marks(marks, placer)
    parts += labels + texts
    parts.append("</svg>")
    return Markup("".join(parts)) + key_list(key)


def label_marks(marks: list[tuple[Point, float, float]], placer: Placer) -> tuple[list[str], list[tuple[str, str]]]:
    """The label of each mark (or of each group of marks on one spot): its distinct short name where it
    fits, else a number; returns the ``<text>`` elements and the key's (number, names) entries, number
    ``""`` for a mark with no free room even for a number."""
    short = short_labels([p.name for p, _, _ in marks])
    out: list[str] = []
    key: list[tuple[str, str]] = []
    keyed = 0
    for group in _clusters(sorted(marks, key=lambda m: (m[2], m[1]))):
        p, cx, cy = group[0]
        label = short[p.name] if len(group) == 1 else None
        spot = placer.place(label, cx, cy) if label is not None else None
        text = label or ""
        if spot is None:
            text = str(keyed + 1)
            spot = placer.place(text, cx, cy, reach=4)
            names = ", ".join(m[0].name for m in group) + (" (drawn on one spot)" if len(group) > 1 else "")
            if spot is None:
                key.append(("", names + ": not numbered on the plot, no free room beside it"))
                continue
            keyed += 1
            key.append((text, names))
        x, y, anchor = spot
        out.append(f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}" class="name">{escape(text)}</text>')
    return out, key


def key_list(key: list[tuple[str, str]]) -> Markup:
    """The numbered key below a plot (entries from :func:`label_marks`)."""
    if not key:
        return Markup("")
    items = "".join(f'<li><span class="key">{n or "–"}</span> {escape(names)}</li>' for n, names in key)
    return Markup(f'<ol class="plot-key" aria-label="Models numbered on the plot">{items}</ol>')
