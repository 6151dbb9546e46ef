"""Small inline SVG charts (no JavaScript, no external assets); every label is escaped."""

from __future__ import annotations

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


def scatter(
    points: list[tuple[str, float, float, str]],
    human: tuple[float, float] | None,
    chance: tuple[float, float] | None,
    metrics: tuple[str, str] | None,
    size: int = 360,
) -> Markup:
    """I2T (x) against T2I (y), one dot per model, with the human and chance points and the diagonal."""
    pad = 40
    inner = size - 2 * pad

    def xy(a: float, b: float) -> tuple[float, float]:
        return pad + a * inner, size - pad - b * inner

    x_label, y_label = metrics or ("I2T", "T2I")
    parts = [
        f'<svg class="scatter" width="{size}" height="{size}" viewBox="0 0 {size} {size}" role="img" '
        f'aria-label="{escape(x_label)} against {escape(y_label)} per model">',
        f'<rect x="{pad}" y="{pad}" width="{inner}" height="{inner}" class="frame"/>',
        f'<line x1="{pad}" y1="{size - pad}" x2="{size - pad}" y2="{pad}" class="diagonal"/>',
        f'<text x="{size / 2}" y="{size - 8}" text-anchor="middle">{escape(x_label)} (%)</text>',
        f'<text x="12" y="{size / 2}" text-anchor="middle" transform="rotate(-90 12 {size / 2})">'
        f"{escape(y_label)} (%)</text>",
    ]
    for tick in (0, 0.5, 1):
        tx, ty = xy(tick, tick)
        parts.append(f'<text x="{tx}" y="{size - pad + 14}" text-anchor="middle" class="tick">{int(tick * 100)}</text>')
        parts.append(f'<text x="{pad - 6}" y="{ty + 4}" text-anchor="end" class="tick">{int(tick * 100)}</text>')
    for name, a, b, kind in points:
        cx, cy = xy(a, b)
        parts.append(
            f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="4" class="dot {escape(kind)}">'
            f"<title>{escape(name)}: {100 * a:.1f} / {100 * b:.1f}</title></circle>"
        )
    for label, point, cls in (("Human", human, "human"), ("Chance", chance, "chance")):
        if point is not None:
            cx, cy = xy(*point)
            parts.append(
                f'<rect x="{cx - 4:.1f}" y="{cy - 4:.1f}" width="8" height="8" class="{cls}">'
                f"<title>{label}: {100 * point[0]:.1f} / {100 * point[1]:.1f}</title></rect>"
                f'<text x="{cx + 7:.1f}" y="{cy + 4:.1f}" class="tick">{label}</text>'
            )
    parts.append("</svg>")
    return Markup("".join(parts))
