"""The generated data of a shapes data version: its instances and pictures, their digest, and the data
source that renders them into the data root on first use (:mod:`vlc_harness_builtins.benchmarks.shapes`)."""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from vlc_harness.errors import DataUnavailable, InputError
from vlc_harness.metrics.group import MATCHED_PAIRS
from vlc_harness.sources import DataSource, load_json
from vlc_harness.types import canonical_json
from vlc_harness_builtins.benchmarks.shapes_model import NEGATIVE_KINDS, POSITIVE_KINDS, Picture
from vlc_harness_builtins.benchmarks.shapes_scenes import (
    GENERATOR_VERSION,
    hard_positive,
    negative,
    random_picture,
    render,
    scene_rng,
)

NAMESPACE = "bench"
"""Random stream of the benchmark's scenes (training uses another)."""
DONE = "done.json"
SCENES = "scenes.jsonl"


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
            texts: tuple[str, ...] = (pic.caption, neg.picture.caption)
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


class ShapesData(DataSource):
    """The images and records of one generation (seed, scenes, image size) under ``<data_dir>/<version>/``,
    rendered on first use or by ``data fetch``, and again whenever the generator's digest differs."""

    def __init__(self, root: Path, what: str, params: Any) -> None:
        super().__init__(root, what)
        self.params = params
        self.base = f"gen{GENERATOR_VERSION}-seed{params.seed}-n{params.n_scenes}-{params.image_size}px"
        self.folder = self.path(params.data_dir) / self.base

    @property
    def data_version(self) -> str:
        """``gen<version>-seed<seed>-n<scenes>-<size>px``, suffixed with the part when one is selected."""
        return self.base if self.params.parts == "all" else f"{self.base}-{self.params.parts}"

    @cached_property
    def generated(self) -> Generated:
        """Every instance and picture of these params (generated once)."""
        return generate(self.params.seed, self.params.n_scenes)

    def ready(self) -> bool:
        """True when the folder holds this generation (same digest) and every image file."""
        gen, folder = self.generated, self.folder
        try:
            done = load_json(folder / DONE)
        except (OSError, InputError):  # absent or damaged: generated again
            return False
        return (
            isinstance(done, dict)
            and done.get("digest") == gen.digest(self.params.image_size)
            and all((folder / name).is_file() for name in gen.pictures)
        )

    def check(self) -> None:
        """Render the data on first use (or when the generator changed); unwritable is unavailable."""
        if self.ready():
            return
        try:
            self.write()
        except OSError as exc:
            raise DataUnavailable(f"Shapes: cannot write the generated images under {self.folder}: {exc}") from None

    def write(self) -> Path:
        """Render every image and write ``scenes.jsonl`` and ``done.json`` (last) into :attr:`folder`."""
        gen, folder, size = self.generated, self.folder, self.params.image_size
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

    def fetch(self, progress: bool = True) -> list[str]:
        """Nothing to download: render the data now (``data fetch`` ahead of a run)."""
        if self.ready():
            return [f"present  {self.folder}"]
        return [f"generated {self.write()} ({len(self.generated.pictures)} images)"]
