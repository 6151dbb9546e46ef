"""What'sUp (Kamath, Hessel, Chang, EMNLP 2023): image-to-text choice of the right spatial preposition.

Six subsets, all image-to-text, the correct caption always first (upstream's README):

* What'sUp ``controlled_a`` (household objects photographed on, under, left of, right of each
  other) and ``controlled_b`` (CLEVR-like renders: left of, right of, in front of, behind): 4
  caption options per image, one per preposition;
* COCO-spatial ``coco_one_obj`` / ``coco_two_obj`` and GQA-spatial ``gqa_one_obj`` /
  ``gqa_two_obj`` (upstream's ``COCO_QA`` and ``VG_QA``): the caption against its opposite
  preposition, 2 options.

Data: the JSON files and image archives of github.com/amitakamath/whatsup_vlms (MIT; code at
7c1f255), hosted on Google Drive (ids as upstream ``dataset_zoo/aro_datasets.py`` names them),
read as that file reads them (overridable with the ``data_dir`` param)::

    <data root>/whatsup/controlled_images_dataset.json  # [{image_path, caption_options: [4 captions]}]
    <data root>/whatsup/controlled_clevr_dataset.json   # same schema
    <data root>/whatsup/{coco,vg}_qa_{one,two}_obj.json # [[image_id, caption, foil], ...]
    <data root>/whatsup/controlled_images/<file>        # controlled_images.tar.gz, extracted
    <data root>/whatsup/controlled_clevr/<file>         # controlled_clevr.tar.gz, extracted
    <data root>/coco/val2017/<image_id:012d>.jpg        # COCO val2017 (shared with SugarCrepe)
    <data root>/whatsup/vg_images/<image_id>.jpg        # vg_images.tar.gz, extracted

The Google Drive ids are in ``FILES`` and ``IMAGE_ARCHIVES`` (``gdown --no-cookies <id>``).
``vlc-harness data fetch -b whatsup`` downloads the six annotation files from Google Drive (and
with ``--images`` COCO val2017; the other archives need ``gdown``). Controlled images are read by
the file name of ``image_path`` (upstream opens ``image_path`` relative to its working directory).
**No upstream checksum is published and none could be verified here**, so nothing is pinned: the
data version names the sha256 of the six files read (``gdrive-unpinned-<sha12>``); ``custom``
reads whichever of the six files are present.

Metric (tie rule ``first-index``, recorded: upstream takes ``np.argmax`` over the caption options
and counts index 0 right; ``np.argmax`` returns the first maximum and the correct caption is
listed first, so a tie with it counts right): "individual accuracy" per subset, reported as
``controlled_accuracy`` for the two controlled subsets (chance 1/4; under ``all``, the unweighted
mean of A and B, the paper's Table 1 macro-average and the headline) and ``spatial_accuracy`` for
the four COCO/GQA subsets (chance 1/2), with ``coco_spatial_accuracy`` and
``gqa_spatial_accuracy`` the unweighted means of each one- and two-object pair. Per preposition
(upstream's per-preposition records) as tags ``<subset>: <preposition>``, derived as upstream
derives them.

Pair and set accuracy on the controlled subsets (upstream ``Controlled_Images.evaluate_scores``,
the conjunction of individual verdicts, ``AllCorrect``): upstream keys an image's set by the first
and last ``_`` tokens of its file name (``mug`` and ``plate`` of ``mug_left_of_plate.jpeg``) and
its preposition by the second (``left``, ``right``, ``on``, ``under``, ``in-front``, ``behind``).
``controlled_pair_accuracy`` counts a pair of opposites (left/right; on/under in A, in-front/behind
in B) when both images are right, over the len/2 pairs; ``controlled_set_accuracy`` counts a set
when all four are, over the len/4 sets. Each image is right as in individual accuracy (first-index
ties). Per subset only, as upstream prints them (its README places them in the paper's Table 3;
no A/B mean is reported: the paper, which could not be read here, is not known to give one).
Chance: independent uniform picks among 4 captions, (1/4)^2 = 1/16 for a pair and (1/4)^4 =
1/256 for a set. A group with a member missing from the cell (a failed instance) is left out;
upstream's denominators (len/2, len/4) assume complete groups, which a test checks on the real
files when they are present. The bootstrap resamples groups, not their members (see
:mod:`vlc_harness.metrics.conjunction`).
Upstream reports neither for COCO/GQA-spatial (``COCO_QA``/``VG_QA`` print individual accuracy
and per-preposition records only), so neither is reported here.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from vlc_harness import hookimpl
from vlc_harness.benchmarks import Benchmark
from vlc_harness.cards import BenchmarkCard
from vlc_harness.errors import DataUnavailable
from vlc_harness.metrics import Macro, PairwiseAccuracy, PerCategory, Tags
from vlc_harness.metrics.conjunction import AllCorrect
from vlc_harness.sources import ImageFolder, UnpinnedFiles
from vlc_harness.types import ImageSource, Instance
from vlc_harness_builtins.benchmarks.aro import GDRIVE_URL
from vlc_harness_builtins.benchmarks.coco import val2017_archives

REPO = "https://github.com/amitakamath/whatsup_vlms"
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
    card = BenchmarkCard(
        title="What'sUp",
        citation=(
            'Kamath, Hessel, Chang. What\'s "up" with vision-language models? Investigating their struggle with '
            "spatial reasoning. EMNLP 2023."
        ),
        homepage=REPO,
        license="MIT (code and annotations); COCO images under Flickr terms; Visual Genome/GQA images CC BY 4.0",
        headline="controlled_accuracy",
        headline_source="Kamath, Hessel, Chang (EMNLP 2023) Table 1: macro-average of Controlled-A and -B accuracy",
        index_metrics=("coco_spatial_accuracy", "gqa_spatial_accuracy"),
        captions_redistributable=True,
        image_pools=("whatsup-controlled", "coco-val2017", "vg"),  # controlled A/B; COCO_QA val2017; VG_QA
        reference_file=Path(__file__).with_name("whatsup_reference.json"),
    )
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
        path = self._file(subset)
        try:
            records = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise DataUnavailable(f"What'sUp: cannot read {path} as JSON ({exc})") from None
        if not isinstance(records, list):
            raise DataUnavailable(f"What'sUp: {path} is not a JSON list (the upstream schema)")
        for k, rec in enumerate(records):
            if subset in CONTROLLED:
                ok = isinstance(rec, dict) and "image_path" in rec and len(rec.get("caption_options", [])) == 4
            else:
                ok = isinstance(rec, list) and len(rec) == 3
            if not ok:
                shape = (
                    "{image_path, caption_options: [4 captions]}"
                    if subset in CONTROLLED
                    else "[image_id, caption, foil]"
                )
                raise DataUnavailable(f"What'sUp: item {k} of {path} is not {shape}")
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
