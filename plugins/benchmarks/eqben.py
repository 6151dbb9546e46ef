"""EqBen (Wang et al., ICCV 2023): Winoground-style 2x2 with visual-minimal changes from videos and engines.

The reference (data layout, versions, metric definitions): its card, ``cards/eqben.md``."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from vlc_harness import hookimpl
from vlc_harness.benchmarks import Benchmark
from vlc_harness.cards import BenchmarkCard
from vlc_harness.errors import DataUnavailable
from vlc_harness.metrics import Micro, PerCategory
from vlc_harness.metrics.group import MATCHED_PAIRS, TextImageGroup
from vlc_harness.sources import ImageFolder, UnpinnedFiles, read_json, read_json_records
from vlc_harness.sources.fields import ANY, NAME, OBJECT, WORDS, at, list_of, value
from vlc_harness.sources.rows import check_records
from vlc_harness.types import ImageSource, Instance

REPO = "https://github.com/Wangt-CN/EqBen"
MINI_GDRIVE_ID = "11YUTf06uzRHtFV8rYi96z4vTPi8_GNEM"
MINI_DIR = "eqben_vllm"
MINI_FILE = "all_select.json"
FULL_DIR = "full"
SUBSETS = (
    "eqbenag",
    "eqbenyoucook2",
    "eqbengebc",
    "eqbenkubric_loc",
    "eqbenkubric_attr",
    "eqbenkubric_cnt",
    "eqbensd",
)
GROUPS = {"eqbenk": ("eqbenkubric_cnt", "eqbenkubric_loc", "eqbenkubric_attr")}
"""t2v_metrics' EqBen_Mini group of several subsets (its other groups, eqbensd, eqbeng, eqbenag and
eqbeny, are one subset each: eqbensd, eqbengebc, eqbenag, eqbenyoucook2)."""
N_MINI = 280
"""EqBen-Mini's size as BiVLC (citing Lin et al. 2024) reports it; checked by the count test, not enforced."""
FIELDS = {"image0": NAME, "image1": NAME, "caption0": WORDS, "caption1": WORDS}
FRAMES = list_of(ANY)
"""A full-format file's list of frames (each checked as a record)."""
CAPTIONS = list_of(WORDS, min_length=1)
"""EqBen-AG's caption lists (upstream reads the first)."""
FULL_HEADLINE_SOURCE = (
    "ours: pooled here, not in the paper: the group score over every example of the full test set, which "
    "Action Genome (eqbenag) dominates; the EqBen paper and upstream evaluate_eqben_locally.py "
    "(Wangt-CN/EqBen @ ab6c79a) report each subset only (under its category here)"
)
MINI_HINT = (
    f"download EqBen-Mini (`gdown --no-cookies {MINI_GDRIVE_ID}`, eqben_vllm.zip) and unzip it into the data "
    "folder so that eqben/eqben_vllm/all_select.json exists; no checksum is published, so it is not pinned"
)
FULL_HINT = (
    f"download the full EqBen test set and its annotation as {REPO} describes (Google Drive / SharePoint) and "
    "put each subset's annotation at eqben/full/<subset>.json and the images under eqben/full/images/"
)


@dataclass(frozen=True)
class EqBenParams:
    """Data version and where the files are (relative to the data root)."""

    version: Literal["mini", "full", "custom"] = "mini"
    data_dir: str = "eqben"


class EqBen(Benchmark):
    """EqBen: two minimally different images (video frames, renders, edits) and their two captions."""

    type_name = "eqben"
    card = BenchmarkCard.read(Path(__file__).with_name("cards") / "eqben.md")
    Params = EqBenParams
    metrics = (
        TextImageGroup(
            {"text": "text_score", "image": "image_score", "group": "group_score"},
            (PerCategory(unit="subset"), Micro(groups=GROUPS), Micro()),
        ),
    )

    def headline_origin(self) -> str:
        """EqBen-Mini's pooled group score is t2v_metrics' 'overall'; the full set's pool is ours."""
        return FULL_HEADLINE_SOURCE if self.params.version == "full" else self.headline_source

    def _dir(self) -> Path:
        return self.path(self.params.data_dir)

    def _annotation_files(self) -> list[Path]:
        if self.params.version == "full":
            return [self._dir() / FULL_DIR / f"{s}.json" for s in SUBSETS]
        return [self._dir() / MINI_DIR / MINI_FILE]

    def _images(self) -> Path:
        return self._dir() / (FULL_DIR if self.params.version == "full" else MINI_DIR) / "images"

    def data_source(self) -> UnpinnedFiles:
        """The annotation file(s) of the version, any present (unpinned: no published checksum; the data
        version is ``<version>-<sha12>`` over the files read)."""
        files = {path.name: path for path in self._annotation_files()}
        hint = FULL_HINT if self.params.version == "full" else MINI_HINT
        return UnpinnedFiles(
            self.data_root, self.title, files, self.params.version, hint=hint, needs="any", digest="names"
        )

    def check_data(self) -> None:
        """The annotation file(s) present and well formed; every ``.npy`` frame converted to PNG.

        EqBen-Mini's size (280) is not enforced: no upstream file states it (the count test checks it).
        """
        super().check_data()
        unconverted = [
            rec[key]
            for _, rec in self._records()
            for key in ("image0", "image1")
            if rec[key].endswith(".npy") and not (self._images() / rec[key]).with_suffix(".png").is_file()
        ]
        if unconverted:
            raise DataUnavailable(
                f"EqBen: {len(unconverted)} YouCook2 .npy frames have no PNG beside them (e.g. {unconverted[0]}): run "
                "`vlc-harness data fetch -b eqben` to write them (lossless, BGR to RGB as upstream decodes them)"
            )

    def _records(self) -> list[tuple[str, dict[str, Any]]]:
        """``(subset, record)`` in file order; the record has image0, image1, caption0, caption1."""
        if self.params.version != "full":
            path = self._annotation_files()[0]
            records = read_json_records(path, self.title, FIELDS, item="item")
            return [(rec["image0"].split("/")[0], rec) for rec in records]
        out = []
        for subset, path in zip(SUBSETS, self._annotation_files()):
            if path.is_file():
                out += [(subset, rec) for rec in full_subset_records(subset, read_json(path, self.title), path)]
        return out

    def load_instances(self) -> list[Instance]:
        """Every example in file order: ``<subset>/<index within the subset>``."""
        images = self._images()
        counts: dict[str, int] = {}
        out = []
        for subset, rec in self._records():
            k = counts.get(subset, 0)
            counts[subset] = k + 1
            out.append(
                Instance(
                    id=f"{subset}/{k}",
                    category=subset,
                    images=(
                        ImageSource(_image_path(images, rec["image0"])),
                        ImageSource(_image_path(images, rec["image1"])),
                    ),
                    texts=(rec["caption0"], rec["caption1"]),
                    gold={"matches": MATCHED_PAIRS},
                )
            )
        return out

    def image_folder(self) -> ImageFolder:
        """The images folder of the selected version."""
        return ImageFolder(self._images(), FULL_HINT if self.params.version == "full" else MINI_HINT)

    def fetch(self, images: bool = False, progress: bool = True) -> list[str]:
        """Nothing is downloadable; converts the YouCook2 ``.npy`` frames present to PNG (lossless)."""
        from vlc_harness.datafetch import FetchError

        if not any(p.is_file() for p in self._annotation_files()):
            raise FetchError(f"EqBen is not downloadable here: {self.image_hint()}")
        written = convert_npy_frames(self._images(), [r for _, r in self._records()])
        return [f"present  {self._annotation_files()[0].parent} ({written} .npy frames converted to PNG)"]


def full_subset_records(subset: str, data: Any, path: Path) -> list[dict[str, Any]]:
    """The records of one full-format subset file, flattened in file order as upstream's loaders do; each
    level checked (an :class:`~vlc_harness.errors.InputError` names the video, frame list or item)."""
    places: list[tuple[str, Any]] = []
    with at(path):
        if subset == "eqbenag":
            for name in OBJECT.check("the file", data):
                with at(path, f"video {name!r}"):
                    video = value(data, name, OBJECT)
                    frame_lists = {key: value(video, key, FRAMES) for key in video}
                for key, frames in frame_lists.items():
                    for k, frame in enumerate(frames):
                        place = f"video {name!r} frames {key!r} item {k}"
                        with at(path, place):  # upstream EqBenAG uses only the first caption of each list
                            captions = {c: value(frame, c, CAPTIONS)[0] for c in ("caption0", "caption1")}
                        places.append((place, {**frame, **captions}))
        elif subset in ("eqbenyoucook2", "eqbengebc"):
            for name in OBJECT.check("the file", data):
                places += [(f"{name!r} item {k}", frame) for k, frame in enumerate(value(data, name, FRAMES))]
        else:
            places = [(f"item {k}", rec) for k, rec in enumerate(FRAMES.check("the file", data))]
    return check_records(path, places, FIELDS)


def _image_path(images: Path, relative: str) -> Path:
    """The file read for an image path: a YouCook2 ``.npy`` frame is read from its PNG conversion."""
    path = images / relative
    return path.with_suffix(".png") if path.suffix == ".npy" else path


def convert_npy_frames(images: Path, records: list[dict[str, Any]]) -> int:
    """Write ``<frame>.png`` beside each ``.npy`` frame present (BGR array to RGB, as upstream decodes it)."""
    import numpy as np
    from PIL import Image

    written = 0
    for rec in records:
        for key in ("image0", "image1"):
            source = images / rec[key]
            target = source.with_suffix(".png")
            if source.suffix != ".npy" or target.is_file() or not source.is_file():
                continue
            array = np.load(source, allow_pickle=False)
            if array.ndim != 3 or array.shape[2] != 3 or array.dtype != np.uint8:
                raise ValueError(f"{source}: expected an HxWx3 uint8 BGR frame, got {array.shape} {array.dtype}")
            partial = target.with_name(target.name + ".partial")
            Image.fromarray(np.ascontiguousarray(array[:, :, [2, 1, 0]]), "RGB").save(partial, format="PNG")
            partial.replace(target)
            written += 1
    return written


@hookimpl
def register_benchmarks(register: Any) -> None:
    """Register the EqBen benchmark."""
    register(EqBen)
