"""Shapes scenes as descriptions: the vocabulary, the scene model and the caption grammar.

A scene is 1 to 3 objects, each a shape, a colour and a size, plus at most one spatial relation,
always between the first two objects. Objects in a scene are distinct. Captions are exhaustive
(closed world): every object is named, nothing else is in the image, and an object without a size
word is medium-sized. Under that reading a caption is true of an image exactly when its scene
description equals the image's (:func:`facts`). Surface forms (:class:`Style`) vary without
changing the description: size synonyms (small/little, large/big), relation synonyms (left of / to
the left of, above / over, ...) and the converse order ("A to the left of B" / "B to the right of A").
Random scenes, layouts, edits and rendering are in :mod:`vlc_harness_builtins.benchmarks.shapes_scenes`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

SHAPES = ("circle", "square", "triangle", "diamond", "cross")
COLOURS: dict[str, tuple[int, int, int]] = {
    "red": (220, 45, 45),
    "green": (40, 170, 70),
    "blue": (50, 90, 230),
    "yellow": (240, 205, 40),
    "purple": (150, 70, 200),
    "white": (245, 245, 245),
}
SIZES = ("small", "medium", "large")
MARKED_SIZES = ("small", "large")
RELATIONS = ("left", "right", "above", "below")
CONVERSE = {"left": "right", "right": "left", "above": "below", "below": "above"}
HORIZONTAL = ("left", "right")
RELATION_WORDS = {
    "left": ("to the left of", "left of"),
    "right": ("to the right of", "right of"),
    "above": ("above", "over"),
    "below": ("below", "under"),
}
SIZE_WORDS = {"small": ("small", "little"), "large": ("large", "big"), "medium": ("", "")}

NEGATIVE_KINDS = ("replace_obj", "replace_att", "replace_rel", "swap_obj", "swap_att", "add_obj", "add_att")
"""Hard-negative kinds, named as SugarCrepe's subsets."""
POSITIVE_KINDS = ("hp_replace_att", "hp_replace_rel", "hp_swap")
"""Hard-positive kinds: (caption, meaning-preserving rewording, negative of the reworded part)."""
KIND_TYPES = {"replace": NEGATIVE_KINDS[:3], "swap": NEGATIVE_KINDS[3:5], "add": NEGATIVE_KINDS[5:]}


@dataclass(frozen=True, order=True)
class Obj:
    """One object: its shape, colour and size (``medium`` is the unmarked size)."""

    shape: str
    colour: str
    size: str


@dataclass(frozen=True)
class Scene:
    """What an image shows: its objects and the relation of ``objects[0]`` to ``objects[1]``."""

    objects: tuple[Obj, ...]
    relation: str | None = None

    def as_dict(self) -> dict[str, Any]:
        """JSON form (for the manifest and for inspection)."""
        return {"objects": [[o.shape, o.colour, o.size] for o in self.objects], "relation": self.relation}


@dataclass(frozen=True)
class Spot:
    """Where an object is drawn: its grid cell and its offset from the cell centre (fractions)."""

    col: int
    row: int
    dx: float
    dy: float


@dataclass(frozen=True)
class Style:
    """How a scene is worded: synonym choices and whether the relation is said the other way round."""

    size_form: int = 0
    relation_form: int = 0
    converse: bool = False


@dataclass(frozen=True)
class Picture:
    """A scene, where its objects are, and one wording of it."""

    scene: Scene
    layout: tuple[Spot, ...]
    style: Style

    @property
    def caption(self) -> str:
        """The caption of the scene in this picture's style."""
        return caption(self.scene, self.style)


@dataclass(frozen=True)
class Negative:
    """A hard negative: the edited picture and what the edit did (for inspection and tests)."""

    kind: str
    picture: Picture
    edit: dict[str, Any]


@dataclass(frozen=True)
class HardPositive:
    """A hard-positive case: the rewording (same scene) and the negative of the reworded part."""

    kind: str
    positive: Picture
    negative: Picture
    edit: dict[str, Any]


def facts(scene: Scene) -> tuple[tuple[Obj, ...], tuple[Obj, str, Obj] | None]:
    """The meaning of a scene: its objects as a sorted tuple and its relation as ``left``/``above``.

    Two scenes mean the same exactly when their facts are equal (``A right of B`` is ``B left of A``).
    """
    rel = None
    if scene.relation is not None:
        a, b = scene.objects[0], scene.objects[1]
        rel = (a, scene.relation, b) if scene.relation in ("left", "above") else (b, CONVERSE[scene.relation], a)
    return tuple(sorted(scene.objects)), rel


def valid(scene: Scene) -> bool:
    """1 to 3 distinct objects; a relation needs two."""
    n = len(scene.objects)
    if not 1 <= n <= 3 or len(set(scene.objects)) != n:
        return False
    return scene.relation is None or (n >= 2 and scene.relation in RELATIONS)


def phrase(obj: Obj, style: Style) -> str:
    """``a [size] colour shape``."""
    size = SIZE_WORDS[obj.size][style.size_form]
    return f"a {size} {obj.colour} {obj.shape}" if size else f"a {obj.colour} {obj.shape}"


def caption(scene: Scene, style: Style) -> str:
    """The caption of a scene: ``A rel B``, then ``, and C``; without a relation ``A and B``."""
    names = [phrase(o, style) for o in scene.objects]
    if scene.relation is None:
        if len(names) <= 2:
            return " and ".join(names)
        return ", ".join(names[:-1]) + ", and " + names[-1]
    a, b = names[0], names[1]
    if style.converse:
        head = f"{b} {RELATION_WORDS[CONVERSE[scene.relation]][style.relation_form]} {a}"
    else:
        head = f"{a} {RELATION_WORDS[scene.relation][style.relation_form]} {b}"
    return "".join([head, *(f", and {c}" for c in names[2:])])
