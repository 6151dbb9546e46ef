"""SugarCrepe++ (Dumpala et al., 2024): two positives against one hard negative.

The reference (data layout, versions, metric definitions): its card, ``cards/sugarcrepe_pp.md``."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from vlc_harness import hookimpl
from vlc_harness.benchmarks import Benchmark, DataFile
from vlc_harness.cards import BenchmarkCard
from vlc_harness.metrics import Macro, Micro, PairwiseAccuracy, PerCategory
from vlc_harness.metrics.hard_positive import HardPositive
from vlc_harness.metrics.text_only import TextOnlyTriplet
from vlc_harness.sources import ImageFolder, PinnedFiles, read_json_records
from vlc_harness.sources.fields import ID, NAME, TEXT, at
from vlc_harness.sources.rows import unique_ids
from vlc_harness.types import ImageSource, Instance
from vlc_harness_builtins.benchmarks.coco import val2017

COMMIT = "c083bbf039a5ca215acaf25e7ee736d2ea6f3864"
UPSTREAM = f"https://raw.githubusercontent.com/Sri-Harsha/scpp/{COMMIT}/VLMs/data"
SHA256 = {
    "replace_att": "6826413592894754eeca02aeebbcbbc8b95a7456998abcc714e71c033ce6fe87",
    "replace_obj": "5c6dc499ec8f511a8aa4ec1b7b5eb0eca90317488abe36ec39573355e2d361ab",
    "replace_rel": "040fb95d3f0619bf515db60879e99709a87a5e9b4f524ec3403b127243480fd4",
    "swap_att": "450d0fd9fcad3e6f44950dc634e7f901ab1c6d9c60a569ade5ae8ffb3d203ad8",
    "swap_obj": "5f33cae824de431a7ecd3c5de6301f689815f9497aa36d96b154bbaf117b201b",
}
SUBSETS = tuple(SHA256)
COUNTS = {"replace_att": 788, "replace_obj": 1652, "replace_rel": 1406, "swap_att": 666, "swap_obj": 245}
TYPES = {"REPLACE": SUBSETS[:3], "SWAP": SUBSETS[3:]}
FIELDS = {"filename": NAME, "caption": TEXT, "caption2": TEXT, "negative_caption": TEXT}


AGGREGATE = (
    PerCategory(unit="subset"),
    Micro(groups=TYPES),
    Micro(),
    Macro("{metric}_macro", "unweighted mean of the subsets present", what="subsets"),
)
"""Per subset, per type (pooled), over all (pooled) and the unweighted mean of the subsets."""


@dataclass(frozen=True)
class SugarCrepePPParams:
    """Data version and where the files are (relative to the data root)."""

    version: Literal["github-c083bbf", "custom"] = "github-c083bbf"
    annotations_dir: str = "sugarcrepe_pp"
    images_dir: str = "coco/val2017"


class SugarCrepePP(Benchmark):
    """SugarCrepe++: an image, two meaning-preserving positive captions and SugarCrepe's hard negative."""

    type_name = "sugarcrepe_pp"
    card = BenchmarkCard.read(Path(__file__).with_name("cards") / "sugarcrepe_pp.md")
    Params = SugarCrepePPParams
    metrics_version = "2"  # 2: the word-order audit reports identical-text (2 P1/N pairs) apart from same-words
    metrics = (
        HardPositive(AGGREGATE, ids={"aug": "itt_accuracy"}, report=("aug",)),
        PairwiseAccuracy(
            "p1_neg_accuracy",
            "Image-P1-Neg: s(image, P1) > s(image, N), P2 not considered",
            AGGREGATE,
            gold="original",
            against="negative",
        ),
        PairwiseAccuracy(
            "p2_neg_accuracy",
            "Image-P2-Neg: s(image, P2) > s(image, N), P1 not considered",
            AGGREGATE,
            gold="positive",
            against="negative",
        ),
        TextOnlyTriplet(AGGREGATE),
    )

    def data_source(self) -> PinnedFiles:
        """The five subset files, pinned (``custom``: any present, named by their hash)."""
        folder = Path(self.params.annotations_dir)
        files = {s: DataFile(str(folder / f"{s}.json"), sha, f"{UPSTREAM}/{s}.json") for s, sha in SHA256.items()}
        return PinnedFiles(self.data_root, self.title, files, self.params.version, missing=b"-", noun="subset file")

    def image_folder(self) -> ImageFolder:
        """COCO val2017 (SugarCrepe's images)."""
        return val2017(self.data_root, self.params.images_dir, self.type_name)

    def load_instances(self) -> list[Instance]:
        """Every case of every subset present, in file order: ``<subset>/<id>``; texts P1, P2, N."""
        source, images, out = self.data_source(), self.path(self.params.images_dir), []
        for subset in source.present():  # all of them, unless version custom
            path = source.file(subset)
            records = read_json_records(path, self.title, FIELDS, item="case")
            for k, rec in enumerate(records):
                with at(path, f"case {k}"):
                    ID.check("id", rec.get("id", k))  # upstream's files have ids; a file without them, indices
            unique_ids(path, self.title, "id", [(f"case {k}", rec.get("id", k)) for k, rec in enumerate(records)])
            for k, rec in enumerate(records):
                out.append(
                    Instance(
                        id=f"{subset}/{rec.get('id', k)}",
                        category=subset,
                        images=(ImageSource(images / rec["filename"]),),
                        texts=(rec["caption"], rec["caption2"], rec["negative_caption"]),
                        gold={"original": 0, "positive": 1, "negative": 2},
                    )
                )
        return out


@hookimpl
def register_benchmarks(register: Any) -> None:
    """Register the SugarCrepe++ benchmark."""
    register(SugarCrepePP)
