"""Hard positives (Kamath, Hsieh, Chang, Krishna, ECCV 2024): an image, its caption, a hard positive, a hard negative.

The reference (data layout, versions, metric definitions): its card, ``cards/hard_positives.md``."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from vlc_harness import hookimpl
from vlc_harness.benchmarks import Benchmark, DataFile
from vlc_harness.cards import BenchmarkCard
from vlc_harness.datafiles import UNPINNED
from vlc_harness.errors import DataUnavailable
from vlc_harness.metrics import Macro, PairwiseAccuracy, PerCategory
from vlc_harness.metrics.hard_positive import HardPositive, MeanScore
from vlc_harness.sources import ImageFolder, PinnedFiles, gc_paused, read_json_records
from vlc_harness.sources.fields import ANY, NAME, TEXT, Schema
from vlc_harness.types import ImageSource, Instance
from vlc_harness_builtins.benchmarks.aro import ATTRIBUTES, VG_FIELDS, crop, vg_images_hint

COMMIT = "33addaae84b58d96dc8e9251b61d497c536ed23d"
UPSTREAM = f"https://raw.githubusercontent.com/amitakamath/hard_positives/{COMMIT}"
ORIGINAL, SWAPPED = "data", "swapped_data"
REPLACE_FILES = {"replace_att": "vl_checklist_attributes.json", "replace_rel": "vl_checklist_relations.json"}
SWAP_FILE = "visual_genome_attribution.json"
SHA256 = {
    "data/vl_checklist_attributes.json": "4c7d262e77e1a1fd5a89ee0de43191fe697d4cf1c044e76c496761f07d824950",
    "data/vl_checklist_relations.json": "f4aee47194df09f73c4bdb13e2f24c17901d71fbb15ab629b40c8667a841d535",
    "swapped_data/vl_checklist_attributes.json": "7f6d2f2614ff8a037780ab4b6243c6e1165ceabc5e4db506ad70c63fd95f6441",
    "swapped_data/vl_checklist_relations.json": "25174b3f0286c124cd7c2c844c1e57bb85179e37cdee0d55fc2857387dede9b5",
}
SWAP_BLOB_PREFIX = {
    "data/visual_genome_attribution.json": "64f742c8",
    "swapped_data/visual_genome_attribution.json": "064e9409",
}
REPLACE_FIELDS = {"image_id": ANY, "true_caption": TEXT, "false_caption": TEXT, "image_path": NAME}
CATEGORIES = ("replace_att", "replace_rel", "swap")
VG_HINT = (
    "download the Visual Genome images (images.zip and images2.zip from the Visual Genome download page, "
    "https://homes.cs.washington.edu/~ranjay/visualgenome/api.html) and unzip them so that {}/VG_100K/ and "
    "{}/VG_100K_2/ exist, or set images_dir"
)
AGGREGATE = (
    PerCategory(),
    Macro(category="replace", over=("replace_att", "replace_rel"), what="REPLACE sub-splits", one="REPLACE sub-split"),
    Macro(category="all", over=("replace", "swap"), what="forms (REPLACE, SWAP)", one="form (REPLACE, SWAP)"),
)
"""Per category: the mean over its cases; ``replace``: the unweighted mean of replace_att and
replace_rel; ``all``: the unweighted mean of REPLACE and SWAP."""


@dataclass(frozen=True)
class HardPositivesParams:
    """Data version, which forms to load, and where the annotations and images are."""

    version: Literal["upstream-33addaa", "custom"] = "upstream-33addaa"
    forms: Literal["replace+swap", "replace", "swap"] = "replace+swap"
    annotations_dir: str = "hard_positives"
    images_dir: str = "visual_genome"
    swap_images_dir: str = "aro/images"


def git_blob_sha1(path: Path) -> str:
    """The git blob id of a file (sha1 of ``blob <size>\\0`` + bytes)."""
    h = hashlib.sha1(f"blob {path.stat().st_size}\0".encode(), usedforsecurity=False)
    with open(path, "rb") as f:
        while chunk := f.read(1 << 20):
            h.update(chunk)
    return h.hexdigest()


class SwapBlobs(PinnedFiles):
    """The files, with each unpinned SWAP file checked by the git blob id upstream lists for it."""

    def _swap_files(self) -> list[tuple[Path, str, DataFile]]:
        return [
            (self.path(f.relpath), SWAP_BLOB_PREFIX["/".join(Path(f.relpath).parts[-2:])], f)
            for f in self.data_files()
            if f.sha256 == UNPINNED
        ]

    def check(self) -> None:
        """Pinned files by sha256; SWAP files by git blob id prefix; custom: presence only."""
        super().check()
        for path, prefix, f in self._swap_files():
            blob = git_blob_sha1(path)
            if not blob.startswith(prefix):
                raise DataUnavailable(
                    f"{self.what}: {path} has git blob id {blob[:12]}..., expected {prefix}... ({f.url}); "
                    "use version: custom to read another copy"
                )

    def fetch(self, progress: bool = True) -> list[str]:
        """REPLACE files by sha256; SWAP files checked by git blob id after download."""
        from vlc_harness.datafetch import FetchError, download

        lines = super().fetch(progress)
        for dest, prefix, f in self._swap_files():
            if dest.is_file() and git_blob_sha1(dest).startswith(prefix):
                lines.append(f"present  {dest}")
                continue
            download(f.url, dest, None, progress)
            if not git_blob_sha1(dest).startswith(prefix):
                dest.unlink(missing_ok=True)
                raise FetchError(f"{f.url} is not upstream's blob {prefix}...; not saved")
            lines.append(f"fetched  {dest} (git blob {prefix}... checked; no upstream sha256)")
        return lines


class HardPositives(Benchmark):
    """Hard positives: the original caption and a hard positive must both beat the hard negative."""

    type_name = "hard_positives"
    card = BenchmarkCard.read(Path(__file__).with_name("cards") / "hard_positives.md")
    Params = HardPositivesParams
    metrics_version = "2"  # 2: an abstention is a full accuracy_drop; the audit reports identical-text apart
    metrics = (
        PairwiseAccuracy(
            "orig_accuracy", "s(c) > s(c_n) (Orig. Test Acc.)", AGGREGATE, gold="original", against="negative"
        ),
        HardPositive(AGGREGATE),
        *(MeanScore(role, AGGREGATE) for role in ("original", "positive", "negative")),
    )

    @property
    def categories(self) -> tuple[str, ...]:
        """The categories the ``forms`` param selects."""
        forms = self.params.forms
        return tuple(c for c in CATEGORIES if (c == "swap") == (forms == "swap") or forms == "replace+swap")

    def _files(self, category: str) -> tuple[str, str]:
        name = SWAP_FILE if category == "swap" else REPLACE_FILES[category]
        folder = Path(self.params.annotations_dir)
        return str(folder / ORIGINAL / name), str(folder / SWAPPED / name)

    def data_source(self) -> SwapBlobs:
        """REPLACE files pinned by sha256, SWAP files unpinned (their git blob ids are checked); ``custom``:
        all present, named by their hash and the forms."""
        p = self.params
        files = {}
        for rel in (rel for category in self.categories for rel in self._files(category)):
            upstream = str(Path(rel).relative_to(p.annotations_dir))
            files[rel] = DataFile(rel, SHA256.get(upstream, UNPINNED), f"{UPSTREAM}/{upstream}")
        suffix = "" if p.version == "custom" or p.forms == "replace+swap" else f"-{p.forms}"
        seed = p.forms.encode()
        return SwapBlobs(self.data_root, self.title, files, p.version, seed=seed, suffix=suffix, custom_needs="all")

    def image_folder(self) -> ImageFolder:
        """Visual Genome (REPLACE); SWAP reads ARO's images from ``swap_images_dir``."""
        hints = []
        images = self.path(self.params.images_dir)
        if self.params.forms != "swap":
            hints.append("REPLACE: " + VG_HINT.format(images, images))
        if self.params.forms != "replace":
            hints.append("SWAP: " + vg_images_hint(self.path(self.params.swap_images_dir)))
        return ImageFolder(images, "; ".join(hints), manual=True)

    def _pairs(self, category: str, fields: Schema) -> list[tuple[dict[str, Any], dict[str, Any]]]:
        """Aligned (original, swapped) records of a category; misalignment is DataUnavailable."""
        orig_rel, swap_rel = self._files(category)
        orig = read_json_records(self.path(orig_rel), self.title, fields)
        swapped = read_json_records(self.path(swap_rel), self.title, fields)
        if len(orig) != len(swapped):
            raise DataUnavailable(f"{self.title}: {orig_rel} has {len(orig)} records, {swap_rel} {len(swapped)}")
        same = ("image_path", "false_caption") + tuple(f for f in fields if f.startswith("bbox_"))
        for k, (a, b) in enumerate(zip(orig, swapped)):
            if any(a[f] != b[f] for f in same):
                raise DataUnavailable(f"{self.title}: {orig_rel} and {swap_rel} differ at record {k} ({same})")
        return list(zip(orig, swapped))

    def load_instances(self) -> list[Instance]:
        """Every aligned case, categories in paper order, records in file order."""
        with gc_paused():  # REPLACE: 27,443 cases read from four files (vlc_harness.sources.bulk)
            return self._load_instances()

    def _load_instances(self) -> list[Instance]:
        out = []
        sizes: dict[Path, tuple[int, int] | None] = {}
        for category in self.categories:
            if category == "swap":
                images = self.path(self.params.swap_images_dir)
                pairs = self._pairs(category, {**VG_FIELDS, "attributes": ATTRIBUTES})
            else:
                images = self.path(self.params.images_dir)
                pairs = self._pairs(category, REPLACE_FIELDS)
            for k, (orig, swapped) in enumerate(pairs):
                if category == "swap":
                    source = ImageSource(images / orig["image_path"], crop(orig, images / orig["image_path"], sizes))
                else:
                    parts = Path(orig["image_path"]).parts
                    source = ImageSource(images.joinpath(*(parts[1:] if parts[0] == ORIGINAL else parts)))
                out.append(
                    Instance(
                        id=f"{category}/{k}",
                        category=category,
                        images=(source,),
                        texts=(orig["true_caption"], swapped["true_caption"], orig["false_caption"]),
                        gold={"original": 0, "positive": 1, "negative": 2},
                    )
                )
        return out


@hookimpl
def register_benchmarks(register: Any) -> None:
    """Register the hard-positives benchmark."""
    register(HardPositives)
