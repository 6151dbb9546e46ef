"""What the instance browser says about one instance beyond its scores: which caption and image are gold,
the questions of a multiple-choice form, and where each image comes from.

Gold is read from the instance's own gold structure (:attr:`vlc_harness.types.Instance.gold`), in the
shapes the built-in benchmarks use: ``positive`` (the caption image 0 should prefer; with ``original``
beside it, a meaning-preserving rewording of the original), ``original``, ``negative``, ``matches``
(image ``i`` goes with caption ``j``), ``label`` (one image-text pair: matches or not). Multiple-choice
questions (``answers``) come from the benchmark's own :meth:`~vlc_harness.benchmarks.Benchmark.questions`.

Images are named by their path under the data root (never a local folder). A COCO file is linked to
its source on images.cocodataset.org when its path says which split it is in: ``COCO_<split>2014_<id>.jpg``
names its split itself, and a ``<12 digits>.jpg`` file counts as COCO 2017 only inside a ``val2017`` or
``train2017`` folder (the layout ``data fetch`` makes). COCO images carry per-image Flickr licenses, so
the board links them and never copies them.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from vlc_harness.types import ImageSource, Instance

COCO_IMAGES = "http://images.cocodataset.org"
_COCO_2014 = re.compile(r"COCO_((?:train|val)2014)_\d{12}\.jpg")
_COCO_2017 = re.compile(r"\d{12}\.jpg")
_COCO_2017_SPLITS = ("val2017", "train2017")

GOLD, TRUE, FOIL = "gold", "also true", "foil"
"""Caption roles: the caption the metric wants chosen, another true caption (a rewording), a hard negative."""


def coco_source(path: Path) -> str | None:
    """The COCO source URL of an image file, when its name (2014) or its folder (2017) says its split."""
    name = path.name
    found = _COCO_2014.fullmatch(name)
    if found:
        return f"{COCO_IMAGES}/{found.group(1)}/{name}"
    if _COCO_2017.fullmatch(name) and path.parent.name in _COCO_2017_SPLITS:
        return f"{COCO_IMAGES}/{path.parent.name}/{name}"
    return None


def image_name(source: ImageSource, data_root: Path | None) -> str:
    """The image as the browser names it: its path under the data root (else its file name), and its crop."""
    path = source.path
    try:
        name = path.relative_to(data_root).as_posix() if data_root is not None else path.name
    except ValueError:  # a folder outside the data root (an absolute images_dir): the name only
        name = path.name
    if source.transform and "crop" in source.transform:
        x, y, w, h = (round(float(v)) for v in source.transform["crop"])
        name += f" (crop {w}×{h} at {x},{y})"
    return name


def _index(gold: dict[str, Any], key: str) -> int | None:
    value = gold.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def caption_roles(instance: Instance) -> list[str]:
    """Per caption, what it is: gold, also true (a rewording of the gold one), foil, gold for image ``k``
    (several images), a question, or whether it matches the image (one image-text pair)."""
    gold = dict(instance.gold)
    n = len(instance.texts)
    matches = gold.get("matches")
    if isinstance(matches, list):
        roles = [FOIL] * n
        for i, j in matches:
            roles[j] = f"gold for image {i + 1}"
        return roles
    if "label" in gold and n == 1:
        return [GOLD if int(gold["label"]) == 1 else "does not match the image"]
    if "answers" in gold:
        return [f"question {k + 1}" for k in range(n)]
    roles = [FOIL] * n
    original, positive = _index(gold, "original"), _index(gold, "positive")
    if original is not None and original < n:
        roles[original] = GOLD
        if positive is not None and positive < n:
            roles[positive] = TRUE
    elif positive is not None and positive < n:
        roles[positive] = GOLD
    return roles


def image_roles(instance: Instance) -> list[str]:
    """Per image, the caption it is gold for (several images: a text-to-image choice), else nothing."""
    matches = dict(instance.gold).get("matches")
    roles = [""] * len(instance.images)
    if isinstance(matches, list) and len(instance.images) > 1:
        for i, j in matches:
            roles[i] = f"gold for caption {j + 1}"
    return roles


def gold_cells(instance: Instance) -> list[list[int]]:
    """The (image, caption) pairs that are gold: the pairs the model should score highest."""
    gold = dict(instance.gold)
    if isinstance(gold.get("matches"), list):
        return [[int(i), int(j)] for i, j in gold["matches"]]
    if "label" in gold:
        return [[0, 0]] if int(gold["label"]) == 1 else []
    return [[0, j] for j, role in enumerate(caption_roles(instance)) if role in (GOLD, TRUE)]


def question_labels(benchmark: Any, instance: Instance) -> list[list[Any]] | None:
    """The instance's multiple-choice questions in presentation-order order: ``[order, what is asked,
    the candidates' names, the correct one's index]``; ``None`` for a benchmark without that form."""
    questions = benchmark.questions(instance)
    if not questions:
        return None
    out = []
    for q in sorted(questions, key=lambda q: q.order):
        if q.kind == "vqa":
            asked, names = f"question {(q.prompt or 0) + 1} about image {q.images[0] + 1}", list(q.options)
        elif q.kind == "i2t":
            asked, names = f"image {q.images[0] + 1}, order {q.order + 1}", [f"caption {j + 1}" for j in q.texts]
        else:
            asked, names = f"caption {q.texts[0] + 1}, order {q.order + 1}", [f"image {i + 1}" for i in q.images]
        out.append([q.order, asked, names, q.correct])
    return out
