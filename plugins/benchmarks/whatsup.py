"""What'sUp (Kamath, Hessel, Chang, EMNLP 2023): image-to-text choice of the right spatial preposition.

The reference (data layout, versions, metric definitions): its card, ``cards/whatsup.md``."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from vlc_harness import hookimpl
from vlc_harness.benchmarks import Benchmark
from vlc_harness.cards import BenchmarkCard
from vlc_harness.metrics import Macro, PairwiseAccuracy, PerCategory, Tags
from vlc_harness.metrics.conjunction import AllCorrect
from vlc_harness.sources import ImageFolder, UnpinnedFiles, read_json
from vlc_harness.sources.fields import ANY, ID, NAME, TEXT, WORDS, at, list_of, require
from vlc_harness.types import ImageSource, Instance
from vlc_harness_builtins.benchmarks.aro import GDRIVE_URL
from vlc_harness_builtins.benchmarks.coco import val2017_archives

FILES = {
    "controlled_a": ("controlled_images_dataset.json", "1ap8mmmpQjLIjPGuplkpBgc1hoEHCj4hm"),
    "controlled_b": ("controlled_clevr_dataset.json", "1unNNosLbdy9NDjgj4l8fsQP3WiAAGA6z"),
    "coco_one_obj": ("coco_qa_one_obj.json", "1RsMdpE9mmwnK4zzMPpC1-wTU_hNis-dq"),
    "coco_two_obj": ("coco_qa_two_obj.json", "1TCEoM0mgFmz8T4cF7PQ3XJmO6JjtiQ-s"),
    "gqa_one_obj": ("vg_qa_one_obj.json", "1ARMRzRdohs9QTr1gpIfzyUzvW20wYp_p"),
    "gqa_two_obj": ("vg_qa_two_obj.json", "1sjVG5O3QMY8s118k7kQM8zzDZH12i_95"),
}
"""Subset -> (upstream annotation file, its Google Drive id)."""
IMAGE_ARCHIVES = {
    "controlled_images": "19KGYVQjrV3syb00GgcavB2nZTW5NXX0H",
    "controlled_clevr": "13jdBpg8t3NqW3jrL6FK8HO93vwsUjDxG",
    "vg_images": "1idW7Buoz7fQm4-670n-oERw9U-2JLJvE",
}
ANNOTATIONS_HINT = "get them from Google Drive (not pinned: no published checksum): " + "; ".join(
    f"{name}: `gdown --no-cookies {gid}`" for name, gid in FILES.values()
)
CONTROLLED = ("controlled_a", "controlled_b")
CONTROLLED_ITEM = {"image_path": NAME, "caption_options": list_of(TEXT, 4)}
SPATIAL = ("coco_one_obj", "coco_two_obj", "gqa_one_obj", "gqa_two_obj")


@dataclass(frozen=True)
class WhatsUpParams:
    """Data version and where the files are (relative to the data root)."""

    version: Literal["gdrive-unpinned", "custom"] = "gdrive-unpinned"
    data_dir: str = "whatsup"
    coco_dir: str = "coco/val2017"


def preposition(subset: str, record: Any) -> str:
    """The preposition an item tests, derived as upstream ``evaluate_scores`` derives it."""
    if subset in CONTROLLED:
        path = str(record["image_path"])
        if "left_of" in path:
            return "left_of"
        if "right_of" in path:
            return "right_of"
        if subset == "controlled_a":
            return "on" if "_on_" in path else "under"
        return "in-front_of" if "_in-front_of_" in path else "behind"
    caption = str(record[1])
    if subset.endswith("one_obj"):
        return caption.split()[-1]
    for phrase, name in (("left of", "left"), ("right of", "right")):
        if phrase in caption:
            return name
    if subset == "coco_two_obj":
        return "above" if "above" in caption else "below"
    if "front of" in caption:
        return "front"
    return "behind" if "behind" in caption else "top"


def _tags(inst: Instance) -> list[str]:
    return [f"{inst.category}: {inst.gold['preposition']}"]


OPPOSITES = {"left": "left/right", "right": "left/right", "on": "on/under", "under": "on/under"}
OPPOSITES |= {"in-front": "in-front/behind", "behind": "in-front/behind"}
"""Upstream's preposition token (the file name's second ``_`` token) -> its pair of opposites."""


def object_pair(inst: Instance) -> str | None:
    """A controlled image's set, keyed as upstream ``evaluate_scores`` keys ``eval_dict``: the first and
    last ``_`` tokens of the image's file name (``mug`` and ``plate`` of ``mug_left_of_plate.jpeg``)."""
    if inst.category not in CONTROLLED:
        return None
    tokens = Path(inst.images[0].path).stem.split("_")  # upstream strips the 5 characters of ".jpeg"
    return f"{tokens[0]} | {tokens[-1]}"


def opposite_pair(inst: Instance) -> str | None:
    """A controlled image's pair: its set and the opposites its preposition belongs to (upstream pairs
    ``left`` with ``right``, and ``on`` with ``under`` (A) or ``in-front`` with ``behind`` (B))."""
    objects = object_pair(inst)
    tokens = Path(inst.images[0].path).stem.split("_")
    axis = OPPOSITES.get(tokens[1]) if len(tokens) > 2 else None
    return None if objects is None or axis is None else f"{objects} | {axis}"


CONTROLLED_ACCURACY = PairwiseAccuracy(
    "controlled_accuracy",
    "individual accuracy: the image picks its caption among the 4 prepositions (a tie with it counts "
    "right, as upstream's first-index argmax)",
    (PerCategory(unit="subset"), Tags(_tags), Macro(what="subsets", name_members=True)),
    tie_rule="first-index",
    chance=0.25,
    gold="positive",
    categories=CONTROLLED,
)
"""Individual accuracy on Controlled A and B; pair and set accuracy conjoin its verdicts."""


class WhatsUp(Benchmark):
    """What'sUp: pick the caption with the right spatial preposition (controlled photos, COCO, GQA)."""

    type_name = "whatsup"
    card = BenchmarkCard.read(Path(__file__).with_name("cards") / "whatsup.md")
    Params = WhatsUpParams
    metrics_version = "2"  # pair and set accuracy added; every earlier value unchanged
    metrics = (
        CONTROLLED_ACCURACY,
        PairwiseAccuracy(
            "spatial_accuracy",
            "individual accuracy: the image picks its caption over the opposite preposition (a tie counts right, "
            "as upstream's first-index argmax)",
            (
                PerCategory(unit="subset"),
                Tags(_tags),
                Macro(
                    "coco_spatial_accuracy", "COCO-spatial: unweighted mean of one- and two-object", over=SPATIAL[:2]
                ),
                Macro("gqa_spatial_accuracy", "GQA-spatial: unweighted mean of one- and two-object", over=SPATIAL[2:]),
            ),
            tie_rule="first-index",
            chance=0.5,
            gold="positive",
            categories=SPATIAL,
        ),
        AllCorrect(
            "controlled_pair_accuracy",
            "pair accuracy: both images of an object pair's opposite prepositions (left/right; on/under or "
            "in-front/behind) pick their captions, each as in individual accuracy (first-index ties)",
            CONTROLLED_ACCURACY,
            opposite_pair,
            (PerCategory(unit="subset", text="mean over the subset's pairs of opposite-preposition images"),),
            size=2,
            chance=1 / 16,
        ),
        AllCorrect(
            "controlled_set_accuracy",
            "set accuracy: all 4 images of an object pair pick their captions, each as in individual accuracy "
            "(first-index ties)",
            CONTROLLED_ACCURACY,
            object_pair,
            (PerCategory(unit="subset", text="mean over the subset's object pairs (sets of 4 images)"),),
            size=4,
            chance=1 / 256,
        ),
    )

    def _dir(self) -> Path:
        return self.path(self.params.data_dir)

    def data_source(self) -> UnpinnedFiles:
        """The six annotation files from Google Drive (unpinned, as ARO's are: the data version names their
        hash, ``gdrive-unpinned-<sha12>``); ``custom``: any of them."""
        folder = Path(self.params.data_dir)
        return UnpinnedFiles(
            self.data_root,
            self.title,
            {subset: folder / name for subset, (name, _) in FILES.items()},
            self.params.version,
            hint=ANNOTATIONS_HINT,
            urls={subset: GDRIVE_URL.format(gid) for subset, (_, gid) in FILES.items()},
            needs="any" if self.params.version == "custom" else "all",
            digest="names",
            version=self.params.version,
        )

    def check_data(self) -> None:
        """All six files present (custom: at least one), each in its upstream schema."""
        super().check_data()
        for subset in self.data_source().present():
            self._records(subset)

    def _file(self, subset: str) -> Path:
        return self._dir() / FILES[subset][0]

    def _records(self, subset: str) -> list[Any]:
        """A subset's items in its upstream schema (an :class:`~vlc_harness.errors.InputError` names the item
        that is not): ``{image_path, caption_options: [4 captions]}`` (Controlled), else ``[image id, caption,
        foil]``, a one-object caption ending in its preposition."""
        path = self._file(subset)
        records = read_json(path, self.title)
        with at(path):
            list_of(ANY).check("the file", records)
        for k, rec in enumerate(records):
            with at(path, f"item {k}"):
                if subset in CONTROLLED:
                    require(rec, CONTROLLED_ITEM)
                else:
                    list_of(ANY, 3).check("the record", rec)
                    ID.check("item 0 (the image id)", rec[0])
                    (WORDS if subset.endswith("one_obj") else TEXT).check("item 1 (the caption)", rec[1])
                    TEXT.check("item 2 (the foil)", rec[2])
        return records

    def _image(self, subset: str, rec: Any) -> Path:
        if subset == "controlled_a":
            return self._dir() / "controlled_images" / Path(str(rec["image_path"])).name
        if subset == "controlled_b":
            return self._dir() / "controlled_clevr" / Path(str(rec["image_path"])).name
        if subset.startswith("coco"):
            return self.path(self.params.coco_dir) / f"{str(rec[0]).zfill(12)}.jpg"
        return self._dir() / "vg_images" / f"{rec[0]}.jpg"

    def load_instances(self) -> list[Instance]:
        """Every item of every subset present, in file order: ``<subset>/<index>``; the correct caption first."""
        out = []
        for subset in FILES:
            if not self._file(subset).is_file():
                continue  # only possible for version custom
            for k, rec in enumerate(self._records(subset)):
                texts = tuple(rec["caption_options"]) if subset in CONTROLLED else (rec[1], rec[2])
                out.append(
                    Instance(
                        id=f"{subset}/{k}",
                        category=subset,
                        images=(ImageSource(self._image(subset, rec)),),
                        texts=texts,
                        gold={"positive": 0, "preposition": preposition(subset, rec)},
                    )
                )
        return out

    def image_folder(self) -> ImageFolder:
        """The What'sUp folder (its archives are on Google Drive only) and COCO val2017 under ``coco_dir``."""
        archives = ", ".join(f"{name}.tar.gz (`gdown --no-cookies {gid}`)" for name, gid in IMAGE_ARCHIVES.items())
        hint = (
            f"extract {archives} into {self._dir()}, and COCO val2017 into {self.path(self.params.coco_dir)} "
            "(`vlc-harness data fetch -b whatsup --images` fetches COCO)"
        )
        return ImageFolder(self._dir(), hint, tuple(val2017_archives(self.params.coco_dir)), manual=True)


@hookimpl
def register_benchmarks(register: Any) -> None:
    """Register the What'sUp benchmark."""
    register(WhatsUp)
