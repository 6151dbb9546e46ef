"""BiVLC (Miranda et al., 2024): 2 images x 2 captions, image-to-text and text-to-image.

The reference (data layout, versions, metric definitions): its card, ``cards/bivlc.md``."""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

from vlc_harness import hookimpl
from vlc_harness.benchmarks import Benchmark, DataFile
from vlc_harness.cards import BenchmarkCard
from vlc_harness.datafetch import FetchError
from vlc_harness.errors import DataUnavailable
from vlc_harness.metrics import Micro, PairwiseAccuracy, PerCategory
from vlc_harness.metrics.group import CHANCE_SINGLE, MATCHED_PAIRS, TextImageGroup
from vlc_harness.requires import Requires
from vlc_harness.sources import HfSplit, ImageFolder, PinnedFiles, read_csv
from vlc_harness.sources.fields import NAME, Malformed, at
from vlc_harness.sources.hf import split_rows, stored_image_bytes, write_atomically
from vlc_harness.types import ImageSource, Instance, ReferenceRow
from vlc_harness_builtins.benchmarks.coco import val2017

HF_DATASET = "imirandam/BiVLC"
HF_SPLIT = HfSplit(HF_DATASET, "test", images=("image", "negative_image"))
COMMIT = "84f0d1751e7212d97cdeaeb01353862c09908bcb"
UPSTREAM = f"https://raw.githubusercontent.com/IMirandaM/BiVLC/{COMMIT}"
COLUMNS = ("caption", "negative_caption", "type", "subtype")
"""The columns of both CSVs that the rows are joined on (the sources' also have ``filename``)."""
ROWS_FILE = "BiVLC_ViT-B-32.csv"
SOURCES_FILE = "BiVLC_negative_imgs.csv"
FILES = {
    ROWS_FILE: ("results/BiVLC_ViT-B-32.csv", "a16d196aa1ad012f826b002fc59df56926ab08bed68eae33f96ceec5cdb48c82"),
    SOURCES_FILE: (
        "src/BiVLC_Generation/BiVLC_negative_imgs.csv",
        "d7835bf16fc5a1cbd1b7f3b67214088c918b97b043b337f4f4d4e5168877c68e",
    ),
}
TYPES = {
    "replace": ("replace_obj", "replace_att", "replace_rel"),
    "swap": ("swap_obj", "swap_att"),
    "add": ("add_obj", "add_att"),
}
I2T_ONLY = "i2t-only"
I2T_ONLY_METRIC = "i2t_only_i_pos2t"
AGGREGATE = (PerCategory(unit="subset"), Micro(groups=TYPES), Micro())
"""Micro-averaged over instances per subset, per type (Table 4) and over all."""
FULL = TextImageGroup(
    {
        "text": "i2t_score",
        "image": "t2i_score",
        "group": "group_score",
        "image0": "i_pos2t",
        "image1": "i_neg2t",
        "caption0": "t_pos2i",
        "caption1": "t_neg2i",
    },
    AGGREGATE,
    descriptions={
        "text": "I2T (Winoground text score): both images prefer their own caption",
        "image": "T2I (Winoground image score): both captions prefer their own image",
        "group": "group score: I2T and T2I both right (the main metric)",
        "image0": "I_pos2T: the natural image prefers the positive caption",
        "image1": "I_neg2T: the generated image prefers the negative caption",
        "caption0": "T_pos2I: the positive caption prefers the natural image",
        "caption1": "T_neg2I: the negative caption prefers the generated image",
    },
)
FULL_HEADLINE_SOURCE = "Miranda et al. (2024) Table 3: Group over the 2,933 test instances"
I2T_ONLY_HEADLINE_SOURCE = (
    "Miranda et al. (2024) Table 3: I_pos2T over the 2,933 test instances (the I2T-only mode's headline: "
    "the natural image's choice between the two captions)"
)
I2T_ONLY_FAMILY = PairwiseAccuracy(
    I2T_ONLY_METRIC,
    "I2T-only mode (no negative images): the natural image prefers its caption to the negative caption "
    "(the same comparison as I_pos2T of the full mode)",
    AGGREGATE,
    chance=CHANCE_SINGLE,
)


@dataclass(frozen=True)
class BiVLCParams:
    """Data version, mode (both images, or the natural image only) and where the files are."""

    version: Literal["test-2933", "custom"] = "test-2933"
    mode: Literal["full", "i2t-only"] = "full"
    annotations_dir: str = "bivlc"
    images_dir: str = "coco/val2017"
    negative_images_dir: str = "bivlc/negative_images"


class BiVLC(Benchmark):
    """BiVLC: SugarCrepe's hard negatives with a generated image each, scored in both directions."""

    type_name = "bivlc"
    requires = Requires(extras=("data",))
    card = BenchmarkCard.read(Path(__file__).with_name("cards") / "bivlc.md")
    Params = BiVLCParams

    @property
    def i2t_only(self) -> bool:
        """True in the I2T-only mode (no negative images)."""
        return self.params.mode == I2T_ONLY

    def data_source(self) -> PinnedFiles:
        """The two CSVs of the authors' repository, pinned (``custom``: both present, named by their hash)."""
        folder = Path(self.params.annotations_dir)
        files = {name: DataFile(str(folder / name), sha, f"{UPSTREAM}/{path}") for name, (path, sha) in FILES.items()}
        suffix = f"-{I2T_ONLY}" if self.i2t_only else ""
        return PinnedFiles(self.data_root, self.title, files, self.params.version, suffix=suffix, custom_needs="all")

    def check_data(self) -> None:
        """The CSVs (pinned by sha256 unless ``custom``); in full mode also every negative image."""
        super().check_data()
        if not self.i2t_only:
            folder = self.path(self.params.negative_images_dir)
            n_rows = len(self._rows())
            missing = sum(1 for k in range(n_rows) if not (folder / f"{k}.jpg").is_file())
            if missing:
                raise DataUnavailable(
                    f"BiVLC: {missing} of {n_rows} negative images are missing under {folder}: {NEGATIVE_HINT}"
                )

    def _rows(self) -> list[dict[str, str]]:
        return read_csv(self.data_source().file(ROWS_FILE), self.title, COLUMNS)

    def _filenames(self, rows: list[dict[str, str]]) -> list[str]:
        """Each row's COCO file name (:func:`coco_filenames`); a row without its case, or a case without a
        file name, is an :class:`~vlc_harness.errors.InputError`."""
        path = self.data_source().file(SOURCES_FILE)
        sources = read_csv(path, self.title, (*COLUMNS, "filename"))
        for k, src in enumerate(sources):
            with at(path, f"row {k}"):
                NAME.check("filename", src["filename"])
        with at(self.data_source().file(ROWS_FILE)):
            return coco_filenames(rows, sources)

    def load_instances(self) -> list[Instance]:
        """Every test row in Hugging Face order; ids are ``<type>_<subtype>/<row>``."""
        rows = self._rows()
        filenames = self._filenames(rows)
        coco = self.path(self.params.images_dir)
        negatives = self.path(self.params.negative_images_dir)
        out = []
        for k, (row, filename) in enumerate(zip(rows, filenames)):
            category = f"{row['type']}_{row['subtype']}"
            texts = (row["caption"], row["negative_caption"])
            if self.i2t_only:
                images: tuple[ImageSource, ...] = (ImageSource(coco / filename),)
                gold: dict[str, Any] = {"positive": 0}
            else:
                images = (ImageSource(coco / filename), ImageSource(negatives / f"{k}.jpg"))
                gold = {"matches": MATCHED_PAIRS}
            out.append(Instance(id=f"{category}/{k}", category=category, images=images, texts=texts, gold=gold))
        return out

    def image_folder(self) -> ImageFolder:
        """COCO val2017 (the positive images); the hint also names the negative images in full mode."""
        coco = val2017(self.data_root, self.params.images_dir, self.type_name)
        return coco if self.i2t_only else replace(coco, hint=f"{coco.hint}; negative images: {NEGATIVE_HINT}")

    def headline_metric(self) -> str:
        """``group_score``; in I2T-only mode, its only metric."""
        return I2T_ONLY_METRIC if self.i2t_only else self.headline

    def headline_origin(self) -> str:
        """The card's source names both modes' headlines; each mode states its own (issue 41, item 8)."""
        return I2T_ONLY_HEADLINE_SOURCE if self.i2t_only else FULL_HEADLINE_SOURCE

    def metric_families(self) -> tuple[TextImageGroup | PairwiseAccuracy, ...]:
        """Full mode: I2T, T2I, group (headline) and the four directions; I2T-only mode: I_pos2T only."""
        return (I2T_ONLY_FAMILY,) if self.i2t_only else (FULL,)

    def reference_rows(self) -> list[ReferenceRow]:
        """Paper rows for the metrics of the selected mode."""
        ids = {s.id for s in self.metric_specs()}
        return [r for r in super().reference_rows() if r.metric in ids]

    def fetch(self, images: bool = False, progress: bool = True) -> list[str]:
        """The pinned CSVs (and COCO with ``images``); in full mode the negative images from HF."""
        lines = super().fetch(images=images, progress=progress)
        if not self.i2t_only and self.params.version != "custom":
            lines += self._fetch_negative_images(progress)
        return lines

    def _fetch_negative_images(self, progress: bool) -> list[str]:
        rows = self._rows()
        folder = self.path(self.params.negative_images_dir)
        if all((folder / f"{k}.jpg").is_file() for k in range(len(rows))):
            return [f"present  {folder} ({len(rows)} negative images)"]
        split = HF_SPLIT.load(self.title, progress)
        if len(split) != len(rows):
            raise FetchError(f"{HF_DATASET} test has {len(split)} rows, the pinned {ROWS_FILE} has {len(rows)}")
        folder.mkdir(parents=True, exist_ok=True)
        coco = self.path(self.params.images_dir)
        filenames = self._filenames(rows)
        same = differ = 0
        for k, record in split_rows(split, HF_DATASET, progress):
            row = rows[k]
            for key in ("caption", "negative_caption", "type", "subtype"):
                if record[key] != row[key]:
                    raise FetchError(
                        f"{HF_DATASET} test row {k} has {key} {record[key]!r}, the pinned {ROWS_FILE} has "
                        f"{row[key]!r}: the Hugging Face dataset no longer matches commit {COMMIT[:7]}"
                    )
            data = stored_image_bytes(record["negative_image"])
            if not data.startswith(b"\xff\xd8\xff"):
                raise FetchError(f"{HF_DATASET} test row {k}: the negative image is not a JPEG")
            write_atomically(folder / f"{k}.jpg", data)
            positive = coco / filenames[k]
            if positive.is_file():
                if stored_image_bytes(record["image"]) == positive.read_bytes():
                    same += 1
                else:
                    differ += 1
        lines = [f"fetched  {folder} ({len(rows)} negative images from {HF_DATASET})"]
        if same or differ:
            lines.append(f"checked  positive images: {same} byte-identical to COCO val2017, {differ} differ")
        return lines


NEGATIVE_HINT = (
    f"run `vlc-harness data fetch -b bivlc` (exports negative_image of the Hugging Face dataset {HF_DATASET}; "
    "needs `pip install 'vlc-harness[data]'`), or use the benchmark param mode=i2t-only"
)


def _normalise(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", " ", text.lower()).strip()


def coco_filenames(rows: list[dict[str, str]], sources: list[dict[str, str]]) -> list[str]:
    """The COCO val2017 file name of each BiVLC row, from the SugarCrepe case it was built from.

    Rows and cases are matched on their normalised captions, type and subtype; among equal
    candidates the first one after the previous row's case is taken (the rows keep SugarCrepe's
    order). A row without a match raises :class:`~vlc_harness.sources.fields.Malformed` (a ``ValueError``).
    """
    index: dict[tuple[str, str, str, str], list[int]] = defaultdict(list)
    for i, src in enumerate(sources):
        index[(_normalise(src["caption"]), _normalise(src["negative_caption"]), src["type"], src["subtype"])].append(i)
    out, previous = [], -1
    for k, row in enumerate(rows):
        key = (_normalise(row["caption"]), _normalise(row["negative_caption"]), row["type"], row["subtype"])
        after = [i for i in index.get(key, []) if i > previous]
        if not after:
            expected = f"a SugarCrepe case in {SOURCES_FILE} with these captions, type and subtype"
            raise Malformed("caption", expected, repr(row["caption"]), record=f"row {k}")
        previous = after[0]
        out.append(sources[previous]["filename"])
    return out


@hookimpl
def register_benchmarks(register: Any) -> None:
    """Register the BiVLC benchmark."""
    register(BiVLC)
