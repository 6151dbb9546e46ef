"""VisMin (Awal et al., NeurIPS 2024): 2x2 minimal changes of object, attribute, count or spatial relation.

The reference (data layout, versions, metric definitions): its card, ``cards/vismin.md``."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np

from vlc_harness import hookimpl
from vlc_harness.benchmarks import Benchmark
from vlc_harness.cards import BenchmarkCard
from vlc_harness.metrics import Macro, Micro, PerCategory
from vlc_harness.metrics.engine import Column
from vlc_harness.metrics.group import CHANCE_GROUP, CHANCE_IMAGE, CHANCE_TEXT, MATCHED_PAIRS, TextImageGroup
from vlc_harness.requires import Requires
from vlc_harness.sources import HfExport, HfSplit, ImageFolder
from vlc_harness.sources.fields import ID, NAME, TEXT
from vlc_harness.types import ImageSource, Instance, MetricSpec

HF_DATASET = "mair-lab/vismin-bench"
HF_REVISION = "2f379d5b9a3af7f10d3266f6389b7b351e54c493"
HF_PAGE = f"https://huggingface.co/datasets/{HF_DATASET}"
HF_SPLIT = HfSplit(HF_DATASET, "test", HF_REVISION, images=("image_0", "image_1"), on_disk="data")
ROWS = "test.jsonl"
FIELDS = {"id": ID, "text_0": TEXT, "text_1": TEXT, "image_0": NAME, "image_1": NAME, "category": TEXT}
COUNTS = {"object": 579, "attribute": 294, "counting": 589, "relation": 622}
"""Samples per category, from upstream vismin-bench/solutions/vqa_solution.csv (2,084 in all)."""
AVG = "avg_score"
SCORE_IDS = {"text": "text_score", "image": "image_score", "group": "group_score"}
GET_HINT = (
    "run `vlc-harness data fetch -b vismin` (needs `pip install 'vlc-harness[data]'`), which downloads "
    f"{HF_PAGE} at commit {HF_REVISION[:7]} and exports vismin/test.jsonl and vismin/images/"
)


class WithPaperAverage(TextImageGroup):
    """Text, image and group scores plus the paper's AVG (``avg_score``): the unweighted mean of the 12
    per-category text, image and group scores.

    The AVG column credits each instance the mean of its text, image and group credits (ties and
    abstentions as those scores count them), so its mean over a category is the mean of that
    category's three scores and its macro over the categories is the mean of the 12, for the
    reported value and for every bootstrap resample (drawn within categories) alike.
    """

    name = "text_image_group+avg"
    average = (
        PerCategory(text="mean of the category's text, image and group scores"),
        Macro(what="categories"),
    )

    def columns(self, outcomes: Any) -> list[Column]:
        """The text, image and group columns, and the AVG column built from them."""
        scores = super().columns(outcomes)
        wanted = {self.ids[score] for score in ("text", "image", "group")}
        parts = [c for c in scores if c.metric in wanted]
        first = parts[0]
        halves = [c.ties_half for c in parts if c.ties_half is not None]
        average = Column(
            AVG,
            np.mean([c.credit for c in parts], axis=0),
            self.average,
            members=first.members,
            ties=np.logical_or.reduce([c.ties for c in parts if c.ties is not None]),
            tie_rule=first.tie_rule,
            abstention=first.abstention,
            ties_half=np.mean(halves, axis=0) if len(halves) == len(parts) else None,
        )
        return [*scores, average]

    def extra_specs(self) -> list[MetricSpec]:
        """The AVG's spec (chance 2/9: the mean of 1/4, 1/4 and 1/6)."""
        text = "the paper's AVG: unweighted mean of the 12 per-category text, image and group scores"
        averaging = "; ".join(a.averaging() for a in self.average)
        chance = (CHANCE_TEXT + CHANCE_IMAGE + CHANCE_GROUP) / 3
        return [MetricSpec(AVG, text, averaging, self.spec_tie_rule(), True, None, chance)]


@dataclass(frozen=True)
class VisMinParams:
    """Data version and where the files are (relative to the data root)."""

    version: Literal["hf-2f379d5", "custom"] = "hf-2f379d5"
    data_dir: str = "vismin"


class VisMin(Benchmark):
    """VisMin: an image and its minimal edit (object, attribute, count, spatial relation) with two captions."""

    type_name = "vismin"
    requires = Requires(extras=("data",))
    card = BenchmarkCard.read(Path(__file__).with_name("cards") / "vismin.md")
    Params = VisMinParams
    metrics_version = "2"  # headline: the paper's AVG (was the pooled group score); pooled scores renamed *_pooled
    metrics = (
        WithPaperAverage(
            SCORE_IDS,
            (
                PerCategory(unit="category"),
                Micro("{metric}_pooled", "pooled over every sample (ours: the paper reports per category and AVG)"),
                Macro(
                    "{metric}_macro", "unweighted mean of the four categories (object, attribute, counting, relation)"
                ),
            ),
        ),
    )

    def data_source(self) -> HfExport:
        """The pinned snapshot exported as ``test.jsonl`` and ``images/`` (unpinned: the data version names
        the rows' hash, ``hf-2f379d5-<sha12>``), with the published counts unless custom."""
        folder = Path(self.params.data_dir)
        return HfExport(
            self.data_root,
            self.title,
            folder / ROWS,
            self.params.version,
            HF_SPLIT,
            lambda row, k: f"{row['id']}_{k}",
            images=folder / "images",
            hint=GET_HINT,
            fields=FIELDS,
            key="id",
            expect=_count_problem if self.params.version != "custom" else None,
            noun="samples",
            version=self.params.version,
        )

    def load_instances(self) -> list[Instance]:
        """Every sample in dataset order: ``<category>/<id>``."""
        source = self.data_source()
        return [
            Instance(
                id=f"{row['category']}/{row['id']}",
                category=str(row["category"]),
                images=(ImageSource(source.image(row, "image_0")), ImageSource(source.image(row, "image_1"))),
                texts=(row["text_0"], row["text_1"]),
                gold={"matches": MATCHED_PAIRS},
            )
            for row in source.rows()
        ]

    def image_folder(self) -> ImageFolder:
        """The exported images."""
        return ImageFolder(self.path(self.params.data_dir) / "images", GET_HINT)


def _count_problem(rows: list[dict[str, Any]]) -> str:
    """The published counts per category, or what differs."""
    counts = {c: sum(1 for r in rows if r["category"] == c) for c in COUNTS}
    if counts != COUNTS or len(rows) != sum(COUNTS.values()):
        return f"has {len(rows)} samples {counts}, expected {COUNTS}"
    return ""


@hookimpl
def register_benchmarks(register: Any) -> None:
    """Register the VisMin benchmark."""
    register(VisMin)
