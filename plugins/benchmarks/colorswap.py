"""ColorSwap (Burapacheep et al., Findings of ACL 2024): 2x2 examples whose captions swap color words.

The reference (data layout, versions, metric definitions): its card, ``cards/colorswap.md``."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from vlc_harness import hookimpl
from vlc_harness.benchmarks import Benchmark
from vlc_harness.cards import BenchmarkCard
from vlc_harness.metrics import Micro, PerCategory, Tags
from vlc_harness.metrics.group import MATCHED_PAIRS, TextImageGroup
from vlc_harness.requires import Requires
from vlc_harness.sources import HfExport, HfSplit, ImageFolder
from vlc_harness.sources.fields import ID, NAME, TEXT, TEXT_OR_NULL
from vlc_harness.types import ImageSource, Instance

HF_DATASET = "stanfordnlp/colorswap"
HF_PAGE = f"https://huggingface.co/datasets/{HF_DATASET}"
REPO = "https://github.com/Top34051/colorswap"
FIELDS = {
    "id": ID,
    "caption_1": TEXT,
    "caption_2": TEXT,
    "image_1": NAME,
    "image_2": NAME,
    "image_source": TEXT_OR_NULL,
    "caption_source": TEXT_OR_NULL,
}
SPLIT_SIZES = {"test": 300}
"""Examples per split, as far as verified (the released test-split answers cover 300 ids)."""
GATED_HINT = (
    f"{HF_DATASET} is gated: accept its terms at {HF_PAGE} while logged in, then run `huggingface-cli login` "
    "(or set HF_TOKEN)"
)
GET_HINT = (
    "run `vlc-harness data fetch -b colorswap` (needs `pip install 'vlc-harness[data]'`; "
    f"{GATED_HINT}), or unzip the authors' data (see {REPO}) so that colorswap/<split>.json and colorswap/images/ exist"
)


@dataclass(frozen=True)
class ColorSwapParams:
    """Data version, split and where the files are (relative to the data root)."""

    version: Literal["hf", "custom"] = "hf"
    split: Literal["test", "train"] = "test"
    data_dir: str = "colorswap"


class ColorSwap(Benchmark):
    """ColorSwap: two images and two captions that swap their color words (Winoground schema)."""

    type_name = "colorswap"
    requires = Requires(extras=("data",))
    card = BenchmarkCard.read(Path(__file__).with_name("cards") / "colorswap.md")
    Params = ColorSwapParams
    metrics = (
        TextImageGroup(
            {"text": "text_score", "image": "image_score", "group": "group_score"},
            (
                PerCategory(unit="image source"),
                Tags(lambda inst: [f"caption: {inst.gold['caption_source']}"]),
                Micro(),
            ),
        ),
    )

    def data_source(self) -> HfExport:
        """The split exported from the gated dataset as the authors' ``<split>.json`` (unpinned: the data
        version names its hash, ``hf-<split>-<sha12>``); the test split has 300 examples unless custom."""
        p = self.params
        return HfExport(
            self.data_root,
            self.title,
            Path(p.data_dir) / f"{p.split}.json",
            f"{p.version}-{p.split}",
            HfSplit(HF_DATASET, p.split, images=("image_1", "image_2"), gated=GATED_HINT),
            lambda row, k: f"img_{row['id']}_{k}",
            images=Path(p.data_dir) / "images",
            hint=GET_HINT,
            fields=FIELDS,
            key="id",
            count=SPLIT_SIZES.get(p.split) if p.version != "custom" else None,
            layout="json",
            refer="path",
            noun="examples",
            version=p.version,
        )

    def load_instances(self) -> list[Instance]:
        """Every example in file order: ``<image_source>/<id>``."""
        source, out = self.data_source(), []
        for rec in source.rows():
            category = str(rec["image_source"] or "unknown")
            out.append(
                Instance(
                    id=f"{category}/{rec['id']}",
                    category=category,
                    images=(ImageSource(source.image(rec, "image_1")), ImageSource(source.image(rec, "image_2"))),
                    texts=(rec["caption_1"], rec["caption_2"]),
                    gold={"matches": MATCHED_PAIRS, "caption_source": str(rec["caption_source"] or "unknown")},
                )
            )
        return out

    def image_folder(self) -> ImageFolder:
        """The ``images`` folder (gated)."""
        return ImageFolder(self.path(self.params.data_dir) / "images", GET_HINT)


@hookimpl
def register_benchmarks(register: Any) -> None:
    """Register the ColorSwap benchmark."""
    register(ColorSwap)
