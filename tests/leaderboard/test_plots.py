"""The plots (issue 41, item 5): one colour per family on every page, labels that never collide or
shorten to the same text, Chance and Human named once, and the size-against-magnitude plot."""

from __future__ import annotations

import html
import itertools
import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import yaml

from vlc_leaderboard.families import COLOURS, SHAPES, FamilyStyles, family_of
from vlc_leaderboard.magnitude import Magnitude
from vlc_leaderboard.plot_labels import MOST, box_of, overlaps, short_labels
from vlc_leaderboard.size_plot import size_plot
from vlc_leaderboard.svg import Point, legend, scatter

ROOT = Path(__file__).resolve().parents[2]
PE = [
    "Perception Encoder PE-Core B/16",
    "Perception Encoder PE-Core L/14 336px",
    "Perception Encoder PE-Core G/14 448px",
]
TEXT = re.compile(r'<text x="([-\d.]+)" y="([-\d.]+)" text-anchor="(\w+)" class="name[^"]*">([^<]+)</text>')


def _labels(svg: str) -> list[tuple[str, tuple[float, float, float, float]]]:
    return [(text, box_of(text, float(x), float(y), anchor)) for x, y, anchor, text in TEXT.findall(svg)]


def _marks(svg: str) -> dict[str, str]:
    """Model name -> the colour class of its mark, from each mark's tooltip."""
    found = re.findall(r'class="dot [^"]*?(fam-\d+)"[^>]*><title>([^<:]+):', svg)
    return {html.unescape(name): colour for colour, name in found}


def _registry_families() -> list[str]:
    models = yaml.safe_load((ROOT / "registry.yaml").read_text())["models"]
    return [str((m.get("meta") or {}).get("family") or "other") for m in models]


def test_families_get_distinct_colours_while_the_palette_has_room_then_shapes():
    eight = [f"family {i}" for i in range(COLOURS)]
    styles = FamilyStyles(eight)
    assert len({styles[f].colour for f in eight}) == COLOURS and {styles[f].shape for f in eight} == {"circle"}
    # the registry's families with an API model's and the image-blind default: colour and shape never shared
    families = sorted({*_registry_families(), "GPT-4o (API)", "image-blind", "baseline"})
    assert COLOURS < len(families) <= COLOURS * len(SHAPES)
    styles = FamilyStyles(reversed(families))  # the order they come in does not matter: by name
    pairs = [(styles[f].colour, styles[f].shape) for f in families]
    assert len(set(pairs)) == len(families)
    assert styles["GPT-4o (API)"] != styles["OpenCLIP (DataComp)"]
    assert FamilyStyles(families)["OpenCLIP (DataComp)"] == styles["OpenCLIP (DataComp)"]


def test_the_same_model_has_the_same_colour_on_the_index_benchmark_model_and_compare_pages(wide):
    board, site = wide["board"], wide["site"]
    index = _marks((site / "index.html").read_text())
    bench = _marks((site / "benchmarks" / "bivlc.html").read_text())
    shared = set(index) & set(bench)
    assert len(shared) >= 10 and all(index[n] == bench[n] for n in shared), (index, bench)
    styles = FamilyStyles.of_rows(board.rows)
    by_name = {r.name: r for r in board.rows}
    assert all(index[n] == styles.of(by_name[n]).css for n in shared)
    # two families on this board never share a colour (it has fewer than the palette's)
    families = {family_of(r) for r in board.rows}
    assert len(families) <= COLOURS and len({styles[f].colour for f in families}) == len(families)
    row = next(r for r in board.rows if r.id == "model-07")
    card = (site / "models" / f"{row.slug}.html").read_text()
    assert f'<span class="{styles.of(row).swatch(row.kind)}" aria-hidden="true"></span>' in card
    compare = (site / "data" / "compare.js").read_text()
    assert f'"swatch":"{styles.of(row).swatch(row.kind)}"' in compare.replace('": "', '":"')


def test_shortened_labels_stay_distinct():
    labels = short_labels([*PE, "OpenAI RN50"])
    assert labels["OpenAI RN50"] == "OpenAI RN50"
    shortened = [labels[n] for n in PE]
    assert all(s is not None and len(s) <= MOST for s in shortened) and len(set(shortened)) == len(PE), shortened
    assert labels[PE[0]] and labels[PE[0]].endswith("B/16")
    # two models with one display name have no distinct short form: both are numbered, not drawn alike
    assert short_labels(["Same", "Same", "Other"]) == {"Same": None, "Other": "Other"}


def _crowded(n_at_chance: int = 6) -> tuple[list[Point], str]:
    styles = FamilyStyles(["Perception Encoder (Meta)", "CLIP", "baseline", "blind text-only"])
    points = [
        Point(name, 0.6 + 0.01 * i, 0.55 + 0.01 * i, "model", styles["Perception Encoder (Meta)"])
        for i, name in enumerate(PE)
    ]
    points += [
        Point(f"Perception Encoder PE-Core variant {i} at chance", 0.5, 0.5, "model", styles["CLIP"])
        for i in range(n_at_chance)
    ]
    points.append(Point("Random (seeded)", 0.5, 0.5, "baseline", styles["baseline"]))
    points += [
        Point(f"OpenAI model {i}", 0.3 + 0.02 * (i % 5), 0.3 + 0.03 * (i // 5), "model", styles["CLIP"])
        for i in range(15)
    ]
    return points, str(scatter(points, (0.9, 0.88), (0.5, 0.5), ("I2T", "T2I")))


def test_labels_never_overlap_nor_repeat_and_models_at_chance_share_one_number():
    points, html = _crowded()
    svg = html[: html.index("</svg>")]
    labels = _labels(svg)
    texts = [t for t, _ in labels]
    assert texts.count("Chance") == 1 and texts.count("Human") == 1
    assert len(texts) == len(set(texts)), texts  # no two labels read the same
    for (a, box_a), (b, box_b) in itertools.combinations(labels, 2):
        assert not overlaps(box_a, box_b), (a, b)
    # every model is named beside its mark or numbered in the key; the seven at chance share one number
    key = re.findall(r'<li><span class="key">([^<]+)</span> ([^<]+)</li>', html)
    numbers = [n for n, _ in key]
    assert len(numbers) == len(set(numbers)) and all(n in texts for n in numbers if n != "–")
    at_chance = [names for _, names in key if "Random (seeded)" in names]
    assert len(at_chance) == 1 and all(f"variant {i} at chance" in at_chance[0] for i in range(6))
    short = short_labels([p.name for p in points])
    keyed = " ".join(names for _, names in key)
    assert all(short[p.name] in texts or p.name in keyed for p in points)


def test_a_guard_plants_an_overlap():
    """The overlap check of the test above fails on two labels drawn at one spot."""
    text = '<text x="10" y="10" text-anchor="start" class="name">model</text>'
    (_, a), (_, b) = _labels(text + text)
    assert overlaps(a, b)


def _row(name: str, params: Any, value: float, ci: tuple[float, float] | None, family: str = "CLIP") -> Any:
    return SimpleNamespace(
        name=name,
        slug=name.lower().replace(" ", "-"),
        kind="model",
        meta={"family": family, "parameters_m": params},
        magnitude=Magnitude(value, ci, ["b"]),
    )


def test_size_plot_places_known_sizes_on_a_log_scale_and_lists_unknown_ones_apart():
    rows = [
        _row("Small", 75, 0.30, (0.25, 0.35)),
        _row("Medium", 428, 0.45, (0.40, 0.50), "SigLIP"),
        _row("Large", 5045, 0.62, (0.58, 0.66)),
        _row("Closed API", None, 0.70, None, "GPT (API)"),
    ]
    plot = size_plot(rows, FamilyStyles.of_rows(rows))
    assert plot is not None
    svg = str(plot.svg)
    assert '<title id="size-svg-title">' in svg and '<desc id="size-svg-desc">' in svg and 'role="img"' in svg
    assert [e["name"] for e in plot.plotted] == ["Small", "Medium", "Large"]
    assert [e["name"] for e in plot.unknown_size] == ["Closed API"] and "Closed API" not in svg.split("</desc>")[1]
    xs = {name: float(x) for x, name in re.findall(r'<circle cx="([\d.]+)"[^>]*><title>([^:]+):', svg)}
    # log scale: equal ratios are equal distances
    assert xs["Small"] < xs["Medium"] < xs["Large"]
    import math

    per_decade = (xs["Large"] - xs["Small"]) / math.log10(5045 / 75)
    assert abs((xs["Medium"] - xs["Small"]) - per_decade * math.log10(428 / 75)) < 0.5
    assert svg.count('class="ci ') == 3 and plot.no_interval == []  # each interval drawn
    alone = size_plot(rows[:1] + [_row("No bar", 150, 0.5, None)], FamilyStyles.of_rows(rows))
    assert alone is not None and alone.no_interval == ["No bar"] and str(alone.svg).count('class="ci ') == 1
    names = [t for t, _ in _labels(svg)]
    assert names.count("Human") == 1 and names.count("Chance") == 1


def test_a_legend_shows_the_mark_its_rows_have():
    rows = [_row("Blind", 10, 0.1, None, "text only"), _row("Random", None, 0.0, None, "baseline")]
    rows[0].kind, rows[1].kind = "blind", "baseline"
    rows.append(_row("Clip", 100, 0.4, None, "CLIP"))
    styles = FamilyStyles.of_rows(rows)
    legend_html = str(legend(styles.legend(rows)))
    assert f'class="{styles["text only"].swatch("blind")}"' in legend_html and "shape-diamond" in legend_html
    assert f'class="{styles["baseline"].swatch("baseline")}"' in legend_html and "shape-ring" in legend_html
    assert f'class="{styles["CLIP"].swatch("model")}"' in legend_html
    assert [f for f, _, _ in styles.legend(rows)] == ["CLIP", "baseline", "text only"]


def test_the_index_shows_the_size_plot_beside_the_summary_with_a_table(wide):
    html = (wide["site"] / "index.html").read_text()
    section = html[html.index('<section class="summary-plot"') :]
    section = section[: section.index("</section>")]
    assert section.index('<svg class="scatter"') < section.index('<svg class="scatter size"')
    assert 'class="size-table cards"' in section and "Of unknown size, so not placed" in section
