"""The index's size-against-score picture: parameters (log scale) against the magnitude (issue 41, item 5).

Each model with a magnitude (:mod:`vlc_leaderboard.magnitude`: 0 at chance, 1 at human level) and a
declared parameter count is one mark at (parameters, magnitude) with its 95% interval as a vertical
bar, in its family's colour and marker (:mod:`vlc_leaderboard.families`). A model of unknown size is
never placed at 0: it is listed apart, with its magnitude. Chance (0) and Human (1) are lines, each
named once outside the frame. The SVG carries a ``<title>`` and ``<desc>``, and the same numbers come
as a table for readers who cannot see the picture. Built from the board alone, in its row order.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from html import escape
from typing import Any

from markupsafe import Markup

from vlc_harness.wording import plural
from vlc_leaderboard.families import FamilyStyles
from vlc_leaderboard.plot_labels import Placer
from vlc_leaderboard.rows import Row
from vlc_leaderboard.svg import Point, key_list, label_marks, legend, marker

WIDTH, HEIGHT = 620, 460
LEFT, TOP, BOTTOM, RIGHT = 52, 16, 44, 64
"""Margins; the right one holds the Chance and Human names."""


@dataclass(frozen=True)
class SizePlot:
    """The size plot with the words and table around it."""

    svg: Markup
    legend: Markup
    plotted: list[dict[str, Any]]
    """Per plotted model: name, slug, parameters (M), magnitude and its interval (or ``None``)."""
    unknown_size: list[dict[str, Any]] = field(default_factory=list)
    """The same for models with a magnitude and no declared parameter count (not plotted)."""
    no_interval: list[str] = field(default_factory=list)
    """Plotted models whose magnitude has no interval (no bar; the magnitude's tooltip says why)."""


def _params(row: Row) -> float | None:
    value = row.meta.get("parameters_m")
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
        return None
    return float(value)


def _size_text(millions: float) -> str:
    return f"{millions / 1000:g}B" if millions >= 1000 else f"{millions:g}M"


def _entry(row: Row, params: float | None) -> dict[str, Any]:
    m = row.magnitude
    return {"name": row.name, "slug": row.slug, "params": params, "value": m.value, "ci95": m.ci95}


def size_plot(rows: list[Row], styles: FamilyStyles) -> SizePlot | None:
    """The size plot of a board's ``rows`` (``None`` when no model has both a magnitude and a size)."""
    rated = [r for r in rows if r.magnitude is not None]
    known = [(r, p) for r in rated if (p := _params(r)) is not None]
    unknown = [_entry(r, None) for r in rated if _params(r) is None]
    if not known:
        return None
    logs = [math.log10(p) for _, p in known]
    x_lo, x_hi = math.floor(min(logs)), math.ceil(max(logs))
    x_hi = max(x_hi, x_lo + 1)
    ends = [v for r, _ in known for v in (r.magnitude.value, *(r.magnitude.ci95 or ()))]
    y_lo = min(0.0, math.floor(4 * min(ends)) / 4)
    y_hi = max(1.0, math.ceil(4 * max(ends)) / 4)
    side_x, side_y = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def xy(params: float, value: float) -> tuple[float, float]:
        return (
            LEFT + (math.log10(params) - x_lo) / (x_hi - x_lo) * side_x,
            TOP + (y_hi - value) / (y_hi - y_lo) * side_y,
        )

    desc = (
        f"{len(known)} models by parameter count (log scale) against their magnitude, 0 at chance and 1 at human "
        f"level, with 95% intervals; {plural(len(unknown), 'model')} of unknown size listed below the plot, not placed."
    )
    parts = [
        f'<svg class="scatter size" width="{WIDTH}" height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
        'aria-labelledby="size-svg-title size-svg-desc">',
        '<title id="size-svg-title">Parameters against magnitude</title>',
        f'<desc id="size-svg-desc">{escape(desc)}</desc>',
        f'<rect x="{LEFT}" y="{TOP}" width="{side_x}" height="{side_y}" class="frame"/>',
        f'<text x="{LEFT + side_x / 2}" y="{HEIGHT - 8}" text-anchor="middle">Parameters (log scale)</text>',
        f'<text x="14" y="{TOP + side_y / 2}" text-anchor="middle" transform="rotate(-90 14 {TOP + side_y / 2})">'
        "Magnitude (0 chance, 1 human)</text>",
    ]
    for power in range(x_lo, x_hi + 1):
        tx, _ = xy(10.0**power, y_lo)
        parts.append(f'<line x1="{tx:.1f}" y1="{TOP + side_y}" x2="{tx:.1f}" y2="{TOP + side_y + 4}" class="axis"/>')
        parts.append(
            f'<text x="{tx:.1f}" y="{TOP + side_y + 16}" text-anchor="middle" class="tick">'
            f"{_size_text(10.0**power)}</text>"
        )
    steps = round((y_hi - y_lo) / 0.25)
    for i in range(steps + 1):
        tick = y_lo + 0.25 * i
        _, ty = xy(10.0**x_lo, tick)
        parts.append(f'<text x="{LEFT - 6}" y="{ty + 4:.1f}" text-anchor="end" class="tick">{tick:g}</text>')
    for value, name, cls in ((1.0, "Human", "human"), (0.0, "Chance", "chance")):
        _, ty = xy(10.0**x_lo, value)
        parts.append(f'<line x1="{LEFT}" y1="{ty:.1f}" x2="{LEFT + side_x}" y2="{ty:.1f}" class="ref {cls}-line"/>')
        parts.append(
            f'<text x="{LEFT + side_x + 4}" y="{ty + 4:.1f}" text-anchor="start" class="name {cls}-name">{name}</text>'
        )
    placer = Placer((LEFT - 40, TOP - 12, LEFT + side_x, HEIGHT - BOTTOM + 12))
    marks: list[tuple[Point, float, float]] = []
    for row, params in known:
        m = row.magnitude
        cx, cy = xy(params, m.value)
        marks.append((Point(row.name, params, m.value, row.kind, styles.of(row)), cx, cy))
        placer.reserve((cx - 5, cy - 5, cx + 5, cy + 5))
        if m.ci95 is not None:
            _, y1 = xy(params, m.ci95[1])
            _, y2 = xy(params, m.ci95[0])
            placer.reserve((cx - 1, y1, cx + 1, y2))
            parts.append(
                f'<line x1="{cx:.1f}" y1="{y1:.1f}" x2="{cx:.1f}" y2="{y2:.1f}" class="ci {styles.of(row).css}"/>'
            )
    for (row, params), (point, cx, cy) in zip(known, marks, strict=True):
        ci = row.magnitude.ci95
        span = f" ({ci[0]:.2f}–{ci[1]:.2f})" if ci else ""
        tip = f"<title>{escape(point.name)}: {_size_text(params)} parameters, magnitude {point.y:.2f}{span}</title>"
        parts.append(marker(point, cx, cy, tip))
    texts, key = label_marks(marks, placer)
    parts += texts
    parts.append("</svg>")
    svg = Markup("".join(parts)) + key_list(key)
    no_interval = [r.name for r, _ in known if r.magnitude.ci95 is None]
    return SizePlot(
        svg, legend(styles.legend(r for r, _ in known)), [_entry(r, p) for r, p in known], unknown, no_interval
    )
