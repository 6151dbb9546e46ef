"""Shapes: a generated, offline benchmark of coloured shapes, scored in both directions.

The reference (data layout, versions, metric definitions): its card, ``cards/shapes.md``."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from vlc_harness import hookimpl
from vlc_harness.benchmarks import Benchmark
from vlc_harness.cards import BenchmarkCard
from vlc_harness.metrics import Micro, PairwiseAccuracy, PerCategory
from vlc_harness.metrics.group import TextImageGroup
from vlc_harness.metrics.hard_positive import HardPositive
from vlc_harness.params import ParamError
from vlc_harness.sources import ImageFolder
from vlc_harness.types import ImageSource, Instance
from vlc_harness_builtins.benchmarks.shapes_data import ShapesData
from vlc_harness_builtins.benchmarks.shapes_model import KIND_TYPES, NEGATIVE_KINDS, POSITIVE_KINDS

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


class Shapes(Benchmark):
    """Generated shapes scenes: SugarCrepe-kind hard negatives as captions and images, plus hard positives."""

    type_name = "shapes"
    card = BenchmarkCard.read(Path(__file__).with_name("cards") / "shapes.md")
    Params = ShapesParams
    metrics_version = "2"  # 2: an abstention is a full accuracy_drop (hard-positive kinds)

    def data_source(self) -> ShapesData:
        """The generated images and records of these params (generated once per benchmark object)."""
        if not hasattr(self, "_data"):
            self._data = ShapesData(self.data_root, self.title, self.params)
        return self._data

    def load_instances(self) -> list[Instance]:
        """2x2 kinds in SugarCrepe order, then the hard-positive kinds; scenes in index order."""
        data, parts = self.data_source(), self.params.parts
        out = []
        for item in data.generated.items:
            is_pair = item.kind in NEGATIVE_KINDS
            if (parts == "2x2" and not is_pair) or (parts == "hard-positives" and is_pair):
                continue
            images = tuple(ImageSource(data.folder / name) for name in item.images)
            out.append(Instance(item.id, item.kind, images, item.texts, dict(item.gold)))
        return out

    def image_folder(self) -> ImageFolder:
        """The generated images' folder (shared by every ``parts``)."""
        hint = "the images are generated on first use (or by `vlc-harness data fetch -b shapes`)"
        return ImageFolder(self.data_source().folder, hint)

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
