"""Shapes: a generated, offline benchmark of coloured shapes, scored in both directions.

Every scene (1 to 3 objects with a shape, a colour, a size and at most one spatial relation; see
:mod:`vlc_harness_builtins.benchmarks.shapes_scenes`) comes from a seed, with a caption and:

* for each SugarCrepe kind that applies (``replace_obj``, ``replace_att``, ``replace_rel``,
  ``swap_obj``, ``swap_att``, ``add_obj``, ``add_att``) a hard-negative caption AND an image
  rendered from it: a BiVLC-style 2 images x 2 captions instance (image ``k`` matches caption
  ``k``; the negative image differs from the positive only where the description does);
* hard-positive cases (Kamath et al.): 1 image x 3 texts (caption, meaning-preserving rewording,
  hard negative) of the kinds ``hp_replace_att`` (small/little, large/big), ``hp_replace_rel``
  (left of / to the left of, above / over, ...) and ``hp_swap`` ("B to the right of A", against
  "B to the left of A", which has the caption's own words).

Instance ids are ``<kind>/<scene index>``; a kind that does not apply to a scene (no relation to
replace, nothing to add to three objects) is left out, so the kinds have different counts.

Data: nothing to download. On first use ``check_data`` renders the images (PNG, about 7 per
scene) into ``<data root>/<data_dir>/<data version>/`` and writes ``scenes.jsonl`` (every
description, caption and edit, for inspection) and ``done.json`` (a digest of everything
generated) last; later runs only check the digest and that the files are there, and regenerate
when the digest differs. ``vlc-harness data fetch -b shapes`` does the same ahead of time. The
data version is ``gen<generator version>-seed<seed>-n<scenes>-<size>px`` (``-2x2`` /
``-hard-positives`` when ``parts`` selects one part). Benchmark scenes come from the random
stream ``bench``; the shipped ``shapes_clip`` model was trained on the stream ``train``: other
renderings, but the grammar is small, so many meanings recur (of the 500 default scenes, every
1-object scene, 80% of the 2-object and 1% of the 3-object ones have their description among the
49,152 training scenes, with another layout). It measures composition within a known vocabulary,
not generalisation to unseen words.

Metrics, every comparison strict ``>`` (a tie is wrong), NaN rejected:

* 2x2 kinds (:mod:`vlc_harness.metrics.group`): ``i2t_score`` (both images prefer their caption),
  ``t2i_score`` (both captions prefer their image) and ``group_score`` (all four comparisons;
  the headline), micro-averaged per kind, per type (``replace``, ``swap``, ``add``) and ``all``.
  Chance: 1/4, 1/4, 1/6.
* Hard-positive kinds (the definitions of :mod:`vlc_harness_builtins.benchmarks.hard_positives`):
  ``orig_accuracy`` s(c) > s(c_n), ``aug_accuracy`` also s(c_p) > s(c_n), ``brittleness``
  s(c_n) strictly between s(c) and s(c_p), ``accuracy_drop``; per kind and pooled over the
  hard-positive cases (``all``). Chance: 1/2, 1/3, 1/3.
"""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from vlc_harness import hookimpl
from vlc_harness.benchmarks import Benchmark
from vlc_harness.errors import DataUnavailable
from vlc_harness.metrics import Micro, PairwiseAccuracy, PerCategory
from vlc_harness.metrics.group import MATCHED_PAIRS, TextImageGroup
from vlc_harness.metrics.hard_positive import HardPositive
from vlc_harness.params import ParamError
from vlc_harness.types import ImageSource, Instance, canonical_json
from vlc_harness_builtins.benchmarks.shapes_scenes import (
    GENERATOR_VERSION,
    KIND_TYPES,
    NEGATIVE_KINDS,
    POSITIVE_KINDS,
    Picture,
    hard_positive,
    negative,
    random_picture,
    render,
    scene_rng,
)

NAMESPACE = "bench"
"""Random stream of the benchmark's scenes (training uses another)."""
GROUP = TextImageGroup(
    {"text": "i2t_score", "image": "t2i_score", "group": "group_score"},
    (PerCategory(unit="kind"), Micro(groups=KIND_TYPES), Micro()),
    descriptions={
        "text": "I2T: both images prefer their own caption",
        "image": "T2I: both captions prefer their own image",
        "group": "group: I2T and T2I both right (headline)",
    },
    categories=NEGATIVE_KINDS,
)
"""The 2x2 kinds: micro-averaged per kind, per type and over all 2x2 kinds."""
HP_AGGREGATE = (PerCategory(unit="kind"), Micro())
"""The hard-positive kinds: per kind, and ``all``: the mean over every hard-positive case."""
HARD_POSITIVES = (
    PairwiseAccuracy(
        "orig_accuracy",
        "s(c) > s(c_n)",
        HP_AGGREGATE,
        gold="original",
        against="negative",
        categories=POSITIVE_KINDS,
    ),
    HardPositive(HP_AGGREGATE, categories=POSITIVE_KINDS),
)
DONE = "done.json"
SCENES = "scenes.jsonl"


@dataclass(frozen=True)
class ShapesParams:
    """Seed, number of scenes, image side in pixels, which parts, and the folder under the data root."""

    seed: int = 0
    n_scenes: int = 500
    image_size: int = 128
    parts: Literal["all", "2x2", "hard-positives"] = "all"
    data_dir: str = "shapes"

    def __post_init__(self) -> None:
        if not 1 <= self.n_scenes <= 100_000:
            raise ParamError("params.n_scenes", f"expected 1 to 100000, got {self.n_scenes}")
        if not 16 <= self.image_size <= 1024:
            raise ParamError("params.image_size", f"expected 16 to 1024 pixels, got {self.image_size}")


@dataclass(frozen=True)
class Item:
    """One instance before it has paths: kind, scene index, image file names, texts, gold and the edit."""

    kind: str
    index: int
    images: tuple[str, ...]
    texts: tuple[str, ...]
    gold: dict[str, Any]
    edit: dict[str, Any] = field(default_factory=dict)

    @property
    def id(self) -> str:
        """``<kind>/<scene index>``."""
        return f"{self.kind}/{self.index}"


@dataclass(frozen=True)
class Generated:
    """Everything a data version holds: the instances and the picture behind each image file."""

    items: list[Item]
    pictures: dict[str, Picture]
    records: list[dict[str, Any]]

    def digest(self, image_size: int) -> str:
        """sha256 over the generator version, image size, pictures and instances."""
        h = hashlib.sha256(f"shapes/gen{GENERATOR_VERSION}/{image_size}px\n".encode())
        for name in sorted(self.pictures):
            h.update(canonical_json([name, _picture_json(self.pictures[name])]).encode() + b"\n")
        for item in self.items:
            h.update(canonical_json([item.id, item.images, item.texts, item.gold]).encode() + b"\n")
        return h.hexdigest()


def _picture_json(p: Picture) -> dict[str, Any]:
    return {
        "scene": p.scene.as_dict(),
        "layout": [[s.col, s.row, round(s.dx, 12), round(s.dy, 12)] for s in p.layout],
        "caption": p.caption,
    }


def generate(seed: int, n_scenes: int, namespace: str = NAMESPACE) -> Generated:
    """Every instance of ``n_scenes`` scenes of a stream, kinds in order, then scene index (pure)."""
    by_kind: dict[str, list[Item]] = defaultdict(list)
    pictures: dict[str, Picture] = {}
    records = []
    for index in range(n_scenes):
        pic = random_picture(namespace, seed, index)
        name = f"{index:05d}.png"
        pictures[name] = pic
        record: dict[str, Any] = {"index": index, "image": name, **_picture_json(pic), "negatives": {}}
        for kind in NEGATIVE_KINDS:
            neg = negative(pic, kind, scene_rng(namespace, seed, index, kind))
            if neg is None:
                continue
            neg_name = f"{index:05d}_{kind}.png"
            pictures[neg_name] = neg.picture
            texts = (pic.caption, neg.picture.caption)
            by_kind[kind].append(Item(kind, index, (name, neg_name), texts, {"matches": MATCHED_PAIRS}, neg.edit))
            record["negatives"][kind] = {"image": neg_name, **_picture_json(neg.picture), "edit": neg.edit}
        for kind in POSITIVE_KINDS:
            hp = hard_positive(pic, kind, scene_rng(namespace, seed, index, kind))
            if hp is None:
                continue
            texts = (pic.caption, hp.positive.caption, hp.negative.caption)
            gold = {"original": 0, "positive": 1, "negative": 2}
            by_kind[kind].append(Item(kind, index, (name,), texts, gold, hp.edit))
            record["negatives"][kind] = {"positive": hp.positive.caption, **_picture_json(hp.negative), "edit": hp.edit}
        records.append(record)
    items = [item for kind in (*NEGATIVE_KINDS, *POSITIVE_KINDS) for item in by_kind[kind]]
    return Generated(items, pictures, records)


class Shapes(Benchmark):
    """Generated shapes scenes: SugarCrepe-kind hard negatives as captions and images, plus hard positives."""

    type_name = "shapes"
    title = "Shapes (generated)"
    image_pools = ("shapes",)
    citation = (
        "vlc-harness generated benchmark; negative kinds after Hsieh et al., SugarCrepe (NeurIPS 2023), both "
        "directions after Miranda et al., BiVLC (2024), hard positives after Kamath et al. (ECCV 2024)."
    )
    homepage = ""
    license = "generated by vlc-harness (MIT)"
    headline = "group_score"
    headline_source = (
        "ours: a generated benchmark of this harness, in no paper; the group score follows Winoground's "
        "definition, pooled over the seven SugarCrepe kinds (parts hard-positives: Kamath et al.'s aug. accuracy)"
    )
    index_metrics = ("i2t_score", "t2i_score", "aug_accuracy", "brittleness")
    gap_metrics = ("i2t_score", "t2i_score")
    captions_redistributable = True
    Params = ShapesParams
    metrics_version = "2"  # 2: an abstention is a full accuracy_drop (hard-positive kinds)

    @property
    def data_version(self) -> str:
        """``gen<version>-seed<seed>-n<scenes>-<size>px``, suffixed with the part when one is selected."""
        p = self.params
        base = f"gen{GENERATOR_VERSION}-seed{p.seed}-n{p.n_scenes}-{p.image_size}px"
        return base if p.parts == "all" else f"{base}-{p.parts}"

    def folder(self) -> Path:
        """Where the images of these params are written (shared by every ``parts``)."""
        p = self.params
        root = Path(p.data_dir) if Path(p.data_dir).is_absolute() else self.data_root / p.data_dir
        return root / f"gen{GENERATOR_VERSION}-seed{p.seed}-n{p.n_scenes}-{p.image_size}px"

    def _generated(self) -> Generated:
        if not hasattr(self, "_cache"):
            self._cache = generate(self.params.seed, self.params.n_scenes)
        return self._cache

    def ready(self) -> bool:
        """True when the folder holds this generation (same digest) and every image file."""
        gen, folder = self._generated(), self.folder()
        try:
            done = json.loads((folder / DONE).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return False
        return done.get("digest") == gen.digest(self.params.image_size) and all(
            (folder / name).is_file() for name in gen.pictures
        )

    def check_data(self) -> None:
        """Render the data on first use (or when the generator changed); unwritable is unavailable."""
        if self.ready():
            return
        try:
            self.write()
        except OSError as exc:
            raise DataUnavailable(f"Shapes: cannot write the generated images under {self.folder()}: {exc}") from None

    def write(self) -> Path:
        """Render every image and write ``scenes.jsonl`` and ``done.json`` (last) into :meth:`folder`."""
        gen, folder, size = self._generated(), self.folder(), self.params.image_size
        folder.mkdir(parents=True, exist_ok=True)
        for name, picture in gen.pictures.items():
            partial = folder / f".{name}.partial"
            render(picture, size).save(partial, format="PNG")
            partial.replace(folder / name)
        lines = "".join(canonical_json(r) + "\n" for r in gen.records)
        (folder / SCENES).write_text(lines, encoding="utf-8")
        done = {
            "generator_version": GENERATOR_VERSION,
            "seed": self.params.seed,
            "n_scenes": self.params.n_scenes,
            "image_size": size,
            "images": len(gen.pictures),
            "instances": len(gen.items),
            "digest": gen.digest(size),
        }
        (folder / DONE).write_text(json.dumps(done, indent=1) + "\n", encoding="utf-8")
        return folder

    def fetch(self, images: bool = False, progress: bool = True) -> list[str]:
        """Nothing to download: render the data now (``data fetch`` ahead of a run)."""
        if self.ready():
            return [f"present  {self.folder()}"]
        return [f"generated {self.write()} ({len(self._generated().pictures)} images)"]

    def load_instances(self) -> list[Instance]:
        """2x2 kinds in SugarCrepe order, then the hard-positive kinds; scenes in index order."""
        folder, parts = self.folder(), self.params.parts
        out = []
        for item in self._generated().items:
            is_pair = item.kind in NEGATIVE_KINDS
            if (parts == "2x2" and not is_pair) or (parts == "hard-positives" and is_pair):
                continue
            images = tuple(ImageSource(folder / name) for name in item.images)
            out.append(Instance(item.id, item.kind, images, item.texts, dict(item.gold)))
        return out

    def image_dir(self) -> Path:
        """The generated images' folder."""
        return self.folder()

    def image_hint(self) -> str:
        """The images are generated by ``check_data`` or ``data fetch``."""
        return "the images are generated on first use (or by `vlc-harness data fetch -b shapes`)"

    def metric_families(self) -> tuple[TextImageGroup | PairwiseAccuracy | HardPositive, ...]:
        """I2T, T2I and group (headline) over the 2x2 kinds; the hard-positive metrics over the others."""
        out: tuple[TextImageGroup | PairwiseAccuracy | HardPositive, ...] = ()
        if self.params.parts != "hard-positives":
            out += (GROUP,)
        if self.params.parts != "2x2":
            out += HARD_POSITIVES
        return out

    def headline_metric(self) -> str:
        """``group_score``; ``aug_accuracy`` when only the hard positives are selected."""
        return "aug_accuracy" if self.params.parts == "hard-positives" else self.headline


@hookimpl
def register_benchmarks(register: Any) -> None:
    """Register the generated shapes benchmark."""
    register(Shapes)
