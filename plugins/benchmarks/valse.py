"""VALSE (Parcalabescu et al., ACL 2022): image-to-text choice between a caption and its foil, 6 pieces.

The reference (data layout, versions, metric definitions): its card, ``cards/valse.md``."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from vlc_harness import hookimpl
from vlc_harness.benchmarks import Benchmark, DataFile
from vlc_harness.cards import BenchmarkCard
from vlc_harness.metrics import Macro, Micro, PairwiseAccuracy, PerCategory
from vlc_harness.sources import PinnedFiles, read_json_object
from vlc_harness.sources.fields import DIGITS, NAME, OBJECT, TEXT, Malformed, at, found
from vlc_harness.types import ImageSource, Instance

COMMIT = "2152d90d4aecd11f7f74cf03420abcb63efff9c5"
UPSTREAM = f"https://raw.githubusercontent.com/Heidelberg-NLP/VALSE/{COMMIT}/data"
SHA256 = {
    "existence": "b20fca52eba86c544083d423345a2e28e60e601ef61c56c9ac1c73a95a3a6d18",
    "plurals": "43760db7fc8c6f2a21d3536d52f81539cb101f3370e8d2effb09de43d91486a3",
    "counting-hard": "2cc83615653675fb50914ce2d8ab4041cce1278eed7ac0abf6f319dbce5c967a",
    "counting-small-quant": "ca0645885b05738f6c6df2dffec70c669aaff64114017f33425821faab4bc374",
    "counting-adversarial": "0d23529308449c98b37a91048a865a5f377325eceb9accd73f2947bc512d12b0",
    "relations": "061fc557459c318ccd6734d07c21cfa5bf5ae87aa6b1110b8f5ec3d6b2911043",
    "action-replacement": "336ba134f29a3475d0508809067218909a6bd30f079c59309d19244eccb7917f",
    "actant-swap": "915294ac3ade7c4c067b1c6841d0db93b60cb8a61ac8e2fb6b125c2a1c0ca93a",
    "coreference-standard": "dae1d9eb018acb54e29a1c4983f3563f86ec3b6beb4037a261564270b0473e95",
    "coreference-hard": "ef54d8d971d9e0f264e07de08d9915c6e3d6129a2f239888f2b938f5c2eb4139",
    "foil-it": "6f6f0d7494271ed28f6e6f075c3ba36ba1bc45d00ecf7403920f060915130460",
}
"""sha256 of each upstream file at COMMIT (instrument -> digest), in the paper's column order."""
INSTRUMENTS = tuple(SHA256)
PIECES = {
    "existence": ("existence",),
    "plurality": ("plurals",),
    "counting": ("counting-hard", "counting-small-quant", "counting-adversarial"),
    "spatial relations": ("relations",),
    "actions": ("action-replacement", "actant-swap"),
    "coreference": ("coreference-standard", "coreference-hard"),
}
FIELDS = {"dataset": TEXT, "image_file": NAME, "caption": TEXT, "foil": TEXT, "mturk": OBJECT}
"""What each sample holds that the loader reads (``mturk.caption``, the validity vote, too)."""
VISDIAL_VAL_PREFIX = "VisualDialog_val2018_"
"""File-name prefix of VisDial v1.0 val images (coreference-hard); its other images are COCO 2014's."""
COCO_2014_PREFIXES = {"COCO_train2014_": "coco_train2014_dir", "COCO_val2014_": "coco_val2014_dir"}
"""COCO 2014 file-name prefix -> the param naming its folder (VisDial v1.0 train and FOIL-it! images)."""
SOURCE_DIRS = {"visual7w": "visual7w_dir", "coco2017": "coco2017_dir", "coco_2017": "coco2017_dir", "SWiG": "swig_dir"}
"""Image source (the samples' ``dataset``) -> the param naming its folder, for the sources of one folder."""


@dataclass(frozen=True)
class ValseParams:
    """Data version, the validity filter and where the annotation files and each image source are."""

    version: Literal["github-2152d90", "custom"] = "github-2152d90"
    valid_only: bool = True
    annotations_dir: str = "valse"
    visual7w_dir: str = "visual7w/images"
    coco2017_dir: str = "coco/val2017"
    swig_dir: str = "swig/images_512"
    coco_train2014_dir: str = "coco/train2014"
    coco_val2014_dir: str = "coco/val2014"
    visdial_val_dir: str = "visdial/VisualDialog_val2018"


def image_folder(params: ValseParams, rec: dict[str, Any]) -> str:
    """The folder (a params path) of a sample's image: by its source dataset, and for COCO 2014
    images (VisDial v1.0 train, FOIL-it!) by the split its file name says (else
    :class:`~vlc_harness.sources.fields.Malformed`)."""
    source, name = str(rec["dataset"]), str(rec["image_file"])
    if source in SOURCE_DIRS:
        return str(getattr(params, SOURCE_DIRS[source]))
    if source not in ("VisDial_v1.0", "FOIL dataset"):
        known = ", ".join(repr(s) for s in (*SOURCE_DIRS, "VisDial_v1.0", "FOIL dataset"))
        raise Malformed("dataset", f"a known image source ({known})", found(source))
    prefixes = dict(COCO_2014_PREFIXES)
    if source == "VisDial_v1.0":
        prefixes[VISDIAL_VAL_PREFIX] = "visdial_val_dir"
    for prefix, param in prefixes.items():
        if name.startswith(prefix):
            return str(getattr(params, param))
    expected = ", ".join(f"{p}*" for p in prefixes)
    raise Malformed("image_file", f"a file name of {source} starting {expected} (its folder)", found(name))


class Valse(Benchmark):
    """VALSE: captions against foils that change one linguistic phenomenon (six pieces, eleven files)."""

    type_name = "valse"
    card = BenchmarkCard.read(Path(__file__).with_name("cards") / "valse.md")
    Params = ValseParams
    metrics_version = "2"  # headline over 11 instruments (FOIL-it! included), was 10
    metrics = (
        PairwiseAccuracy(
            "pairwise_accuracy",
            "pairwise accuracy acc_r per instrument: s(image, caption) > s(image, foil)",
            (
                PerCategory(unit="instrument"),
                Micro("pairwise_accuracy_piece", "per piece, pooled over its instruments", groups=PIECES),
                Macro(
                    "pairwise_accuracy_piece_macro",
                    "per piece, unweighted mean of its instruments",
                    groups=PIECES,
                    what="instruments",
                ),
                Macro(
                    "pairwise_accuracy_macro",
                    "unweighted mean of the 11 instruments, FOIL-it! included (the paper's Table 2 Avg.)",
                    over=INSTRUMENTS,
                    what="instruments",
                    name_members=True,
                ),
                Micro("pairwise_accuracy_micro", "pooled over every instance"),
            ),
        ),
    )

    def data_source(self) -> PinnedFiles:
        """The 11 upstream files, pinned (``custom``: any present); ``-all`` without the validity filter."""
        folder = Path(self.params.annotations_dir)
        files = {i: DataFile(str(folder / f"{i}.json"), sha, f"{UPSTREAM}/{i}.json") for i, sha in SHA256.items()}
        suffix = "" if self.params.valid_only else "-all"
        return PinnedFiles(
            self.data_root, self.title, files, self.params.version, missing=b"-", suffix=suffix, noun="instrument file"
        )

    def load_instances(self) -> list[Instance]:
        """Every (valid) sample, instruments in the paper's order, keys in file order: ``<instrument>/<key>``."""
        source, out = self.data_source(), []
        for instrument in source.present():  # all of them, unless version custom
            path = source.file(instrument)
            for key, rec in read_json_object(path, self.title, FIELDS, item="sample").items():
                with at(path, f"sample {key!r}"):
                    folder = self.path(image_folder(self.params, rec))
                    if self.params.valid_only and int(DIGITS.check("mturk.caption", rec["mturk"].get("caption"))) < 2:
                        continue
                out.append(
                    Instance(
                        id=f"{instrument}/{key}",
                        category=instrument,
                        images=(ImageSource(folder / rec["image_file"]),),
                        texts=(rec["caption"], rec["foil"]),
                        gold={"positive": 0},
                    )
                )
        return out

    def image_hint(self) -> str:
        """Where each image source goes."""
        return (
            "VALSE's images come from their original datasets: Visual7W (existence, counting) into "
            f"{self.params.visual7w_dir}, COCO 2017 val (plurals, relations) into {self.params.coco2017_dir}, SWiG "
            f"images_512 (actions) into {self.params.swig_dir}, COCO 2014 (VisDial v1.0 train for "
            f"coreference-standard, and FOIL-it!) into {self.params.coco_train2014_dir} and "
            f"{self.params.coco_val2014_dir} as each file name says, VisDial v1.0 val2018 (coreference-hard) into "
            f"{self.params.visdial_val_dir}, all under the data root (or set the benchmark's *_dir params)"
        )


@hookimpl
def register_benchmarks(register: Any) -> None:
    """Register the VALSE benchmark."""
    register(Valse)
