"""Scenes of coloured shapes: random scenes, their layouts, edits and a renderer (the description model
and the caption grammar are :mod:`vlc_harness_builtins.benchmarks.shapes_model`, re-exported here).

Pure and deterministic: every random choice comes from :class:`random.Random` seeded with a
string (``"<namespace>/<seed>/<index>/<what>"``; string seeds are hashed with SHA-512, so the
stream is the same on every platform and Python version), and rendering uses Pillow only.

Objects sit in the cells of a 3 x 3 grid with a small jitter; ``left``/``right`` put the related
pair in one row, ``above``/``below`` in one column, and any other object off that row or column.

Hard negatives (:data:`NEGATIVE_KINDS`, the SugarCrepe kinds) change the description in one
declared way and come with their own layout, so each renders as an image that differs from the
positive one only where the description does. Hard positives (:data:`POSITIVE_KINDS`) keep the
description and change the wording; each comes with a negative that changes what the wording
changed.
"""

from __future__ import annotations

import random
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from vlc_harness_builtins.benchmarks.shapes_model import (
    COLOURS,
    CONVERSE,
    HORIZONTAL,
    MARKED_SIZES,
    RELATIONS,
    SHAPES,
    SIZES,
    HardPositive,
    Negative,
    Obj,
    Picture,
    Scene,
    Spot,
    Style,
    facts,
    valid,
)

# the vocabulary and grammar scripts/train_shapes_clip.py imports from here
from vlc_harness_builtins.benchmarks.shapes_model import NEGATIVE_KINDS as NEGATIVE_KINDS
from vlc_harness_builtins.benchmarks.shapes_model import RELATION_WORDS as RELATION_WORDS
from vlc_harness_builtins.benchmarks.shapes_model import SIZE_WORDS as SIZE_WORDS
from vlc_harness_builtins.benchmarks.shapes_model import caption as caption

if TYPE_CHECKING:
    from PIL import Image


GENERATOR_VERSION = 1
"""Bump when any change here or in :mod:`.shapes_model` alters a description, a caption or a pixel."""

RADIUS = {"small": 0.055, "medium": 0.085, "large": 0.12}
"""Object radius as a fraction of the image side (a grid cell is 1/3)."""
BACKGROUND = (60, 60, 64)
GRID = 3
JITTER = 0.5 / GRID - RADIUS["large"] - 0.01
"""Largest offset of an object from its cell centre: any size fits its cell at any jitter."""
SUPERSAMPLE = 4


def scene_rng(namespace: str, seed: int, index: int, what: str) -> random.Random:
    """The random stream of one decision about one scene (string-seeded: platform independent)."""
    return random.Random(f"{namespace}/{seed}/{index}/{what}")


def random_object(rng: random.Random) -> Obj:
    """A uniformly drawn object."""
    return Obj(rng.choice(SHAPES), rng.choice(sorted(COLOURS)), rng.choice(SIZES))


def random_picture(namespace: str, seed: int, index: int) -> Picture:
    """Scene ``index`` of a stream: 1 object (25%), 2 related (45%) or 2 related plus one (30%)."""
    rng = scene_rng(namespace, seed, index, "scene")
    n = rng.choices((1, 2, 3), weights=(25, 45, 30))[0]
    objects: list[Obj] = []
    while len(objects) < n:
        obj = random_object(rng)
        if obj not in objects:
            objects.append(obj)
    relation = rng.choice(RELATIONS) if n >= 2 else None
    scene = Scene(tuple(objects), relation)
    style = Style(rng.randrange(2), rng.randrange(2), rng.random() < 0.5)
    return Picture(scene, layout_for(scene, rng), style)


def _jitter(rng: random.Random) -> tuple[float, float]:
    return rng.uniform(-JITTER, JITTER), rng.uniform(-JITTER, JITTER)


def _pair_cells(relation: str) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """Every (cell of objects[0], cell of objects[1]) placement that shows the relation."""
    out = []
    for line in range(GRID):
        for lo in range(GRID):
            for hi in range(lo + 1, GRID):
                if relation in HORIZONTAL:
                    first, second = (lo, line), (hi, line)
                else:
                    first, second = (line, lo), (line, hi)
                out.append((first, second) if relation in ("left", "above") else (second, first))
    return out


def _off_line(cell: tuple[int, int], pair: tuple[tuple[int, int], tuple[int, int]], relation: str | None) -> bool:
    """A third object stays off the related pair's row (left/right) or column (above/below)."""
    if cell in pair:
        return False
    if relation is None:
        return True
    axis = 1 if relation in HORIZONTAL else 0
    return cell[axis] != pair[0][axis]


def free_cells(
    taken: list[tuple[int, int]], pair: tuple[tuple[int, int], tuple[int, int]] | None, relation: str | None
) -> list[tuple[int, int]]:
    """Cells a further object may take: not taken and, with a relation, off the pair's line."""
    cells = [(c, r) for r in range(GRID) for c in range(GRID) if (c, r) not in taken]
    if pair is None:
        return cells
    return [cell for cell in cells if _off_line(cell, pair, relation)]


def layout_for(scene: Scene, rng: random.Random) -> tuple[Spot, ...]:
    """A random placement of the scene's objects that shows its relation."""
    cells: list[tuple[int, int]] = []
    pair = None
    if scene.relation is not None:
        pair = rng.choice(_pair_cells(scene.relation))
        cells += list(pair)
    while len(cells) < len(scene.objects):
        cells.append(rng.choice(free_cells(cells, pair, scene.relation)))
    return tuple(Spot(c, r, *_jitter(rng)) for c, r in cells)


def _with(scene: Scene, index: int, **change: str) -> Scene:
    objects = list(scene.objects)
    objects[index] = replace(objects[index], **change)
    return Scene(tuple(objects), scene.relation)


def _swapped(scene: Scene, field: str) -> Scene:
    a, b = scene.objects[0], scene.objects[1]
    first, second = replace(a, **{field: getattr(b, field)}), replace(b, **{field: getattr(a, field)})
    return Scene((first, second, *scene.objects[2:]), scene.relation)


def _candidates(kind: str, scene: Scene) -> list[tuple[Scene, dict[str, Any]]]:
    """Every edit of a kind that yields a valid, different scene, in a fixed order."""
    out: list[tuple[Scene, dict[str, Any]]] = []
    objs = scene.objects
    if kind == "replace_obj":
        for i, o in enumerate(objs):
            out += [(_with(scene, i, shape=s), {"object": i, "shape": [o.shape, s]}) for s in SHAPES if s != o.shape]
    elif kind == "replace_att":
        for i, o in enumerate(objs):
            out += [
                (_with(scene, i, colour=c), {"object": i, "colour": [o.colour, c]})
                for c in sorted(COLOURS)
                if c != o.colour
            ]
            if o.size in MARKED_SIZES:
                other = "large" if o.size == "small" else "small"
                out.append((_with(scene, i, size=other), {"object": i, "size": [o.size, other]}))
    elif kind == "replace_rel" and scene.relation is not None:
        out += [(Scene(objs, r), {"relation": [scene.relation, r]}) for r in RELATIONS if r != scene.relation]
    elif kind == "swap_obj" and scene.relation is not None and objs[0].shape != objs[1].shape:
        out.append((_swapped(scene, "shape"), {"swap": "shape"}))
    elif kind == "swap_att" and scene.relation is not None:
        out += [
            (_swapped(scene, f), {"swap": f}) for f in ("colour", "size") if getattr(objs[0], f) != getattr(objs[1], f)
        ]
    elif kind == "add_obj" and len(objs) < 3:
        for shape in SHAPES:
            for colour in sorted(COLOURS):
                for size in SIZES:
                    new = Obj(shape, colour, size)
                    out.append((Scene((*objs, new), scene.relation), {"add": [shape, colour, size]}))
    elif kind == "add_att":
        for i, o in enumerate(objs):
            if o.size == "medium":
                out += [(_with(scene, i, size=s), {"object": i, "size": ["medium", s]}) for s in MARKED_SIZES]
    return [(s, e) for s, e in out if valid(s) and facts(s) != facts(scene)]


def _relayout(old: Picture, scene: Scene, rng: random.Random) -> tuple[Spot, ...]:
    """Objects that are still there keep their spots; a new relation moves the related pair."""
    layout = list(old.layout[: len(scene.objects)])
    if scene.relation != old.scene.relation and scene.relation is not None:
        others = [(s.col, s.row) for s in layout[2:]]
        pairs = [p for p in _pair_cells(scene.relation) if all(_off_line(c, p, scene.relation) for c in others)]
        first, second = rng.choice(pairs)
        layout[0] = Spot(*first, layout[0].dx, layout[0].dy)
        layout[1] = Spot(*second, layout[1].dx, layout[1].dy)
    if len(scene.objects) > len(layout):
        cells = [(s.col, s.row) for s in layout]
        pair = (cells[0], cells[1]) if scene.relation is not None else None
        layout.append(Spot(*rng.choice(free_cells(cells, pair, scene.relation)), *_jitter(rng)))
    return tuple(layout)


def negative(picture: Picture, kind: str, rng: random.Random) -> Negative | None:
    """A hard negative of the given kind (worded in the picture's style), or ``None`` if none applies."""
    options = _candidates(kind, picture.scene)
    if not options:
        return None
    scene, edit = rng.choice(options)
    return Negative(kind, Picture(scene, _relayout(picture, scene, rng), picture.style), edit)


def hard_positive(picture: Picture, kind: str, rng: random.Random) -> HardPositive | None:
    """A hard-positive case of the given kind, or ``None`` if the scene has nothing to reword.

    * ``hp_replace_att``: size words reworded (small/little, large/big); the negative gives one
      marked object the opposite size.
    * ``hp_replace_rel``: the relation reworded (left of / to the left of, above / over, ...);
      the negative states the opposite relation.
    * ``hp_swap``: the relation said the other way round ("B to the right of A"); the negative
      exchanges the related objects ("B to the left of A": the same words as the caption).
    """
    scene, style = picture.scene, picture.style
    if kind == "hp_replace_att":
        marked = [i for i, o in enumerate(scene.objects) if o.size in MARKED_SIZES]
        if not marked:
            return None
        i = rng.choice(marked)
        old = scene.objects[i].size
        new = "large" if old == "small" else "small"
        reworded = replace(style, size_form=1 - style.size_form)
        neg_scene = _with(scene, i, size=new)
        edit = {"object": i, "size": [old, new]}
    elif kind == "hp_replace_rel":
        if scene.relation is None:
            return None
        reworded = replace(style, relation_form=1 - style.relation_form)
        neg_scene = Scene(scene.objects, CONVERSE[scene.relation])
        edit = {"relation": [scene.relation, neg_scene.relation]}
    elif kind == "hp_swap":
        if scene.relation is None:
            return None
        reworded = replace(style, converse=not style.converse)
        a, b = scene.objects[0], scene.objects[1]
        neg_scene = Scene((b, a, *scene.objects[2:]), scene.relation)
        edit = {"swap": "objects"}
    else:
        raise ValueError(f"unknown hard-positive kind {kind!r}")
    if not valid(neg_scene) or facts(neg_scene) == facts(scene):
        return None
    positive = Picture(scene, picture.layout, reworded)
    negative_picture = Picture(neg_scene, _relayout(picture, neg_scene, rng), style)
    return HardPositive(kind, positive, negative_picture, edit)


def _polygon(shape: str, x: float, y: float, r: float) -> list[tuple[float, float]]:
    if shape == "square":
        h = r * 0.85
        return [(x - h, y - h), (x + h, y - h), (x + h, y + h), (x - h, y + h)]
    if shape == "diamond":
        return [(x, y - r), (x + r, y), (x, y + r), (x - r, y)]
    if shape == "triangle":
        return [(x, y - r), (x + r * 0.94, y + r * 0.75), (x - r * 0.94, y + r * 0.75)]
    if shape == "cross":
        w = r * 0.36
        return [
            (x - w, y - r), (x + w, y - r), (x + w, y - w), (x + r, y - w), (x + r, y + w), (x + w, y + w),
            (x + w, y + r), (x - w, y + r), (x - w, y + w), (x - r, y + w), (x - r, y - w), (x - w, y - w),
        ]  # fmt: skip
    raise ValueError(f"unknown shape {shape!r}")


def render(picture: Picture, size: int = 128) -> Image.Image:
    """Draw the picture as a ``size`` x ``size`` RGB image (drawn 4x larger, then box-averaged: antialiased)."""
    from PIL import Image, ImageDraw

    big = size * SUPERSAMPLE
    image = Image.new("RGB", (big, big), BACKGROUND)
    draw = ImageDraw.Draw(image)
    for obj, spot in zip(picture.scene.objects, picture.layout):
        x = ((spot.col + 0.5) / GRID + spot.dx) * big
        y = ((spot.row + 0.5) / GRID + spot.dy) * big
        r = RADIUS[obj.size] * big
        fill = COLOURS[obj.colour]
        if obj.shape == "circle":
            draw.ellipse([x - r, y - r, x + r, y + r], fill=fill)
        else:
            draw.polygon(_polygon(obj.shape, x, y, r), fill=fill)
    return image.reduce(SUPERSAMPLE)
