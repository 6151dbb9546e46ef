"""BiVLC (Miranda et al., 2024): 2 images x 2 captions, image-to-text and text-to-image.

Each instance is a COCO val2017 image with its caption (positive) and a SugarCrepe hard-negative
caption with an SDXL-DPO image generated from it (negative). The test split has 2,933 instances.

Data: the Hugging Face dataset ``imirandam/BiVLC`` (split ``test``) holds both images of every
instance; the authors' repository github.com/IMirandaM/BiVLC pins the split's rows as CSV. Data
root layout (overridable with the ``annotations_dir``, ``images_dir`` and ``negative_images_dir``
params)::

    <data root>/bivlc/BiVLC_ViT-B-32.csv        # repo results/: the 2,933 test rows in HF order
                                                # (caption, negative_caption, type, subtype)
    <data root>/bivlc/BiVLC_negative_imgs.csv   # repo src/BiVLC_Generation/: the 7,512 SugarCrepe
                                                # cases with their COCO file names
    <data root>/bivlc/negative_images/<row>.jpg # HF test split row <row>: negative_image, bytes as stored
    <data root>/coco/val2017/000000xxxxxx.jpg   # positive images: COCO val2017 (shared with SugarCrepe)

The score columns of ``BiVLC_ViT-B-32.csv`` are not read. The COCO file of each row is found by
joining the row to ``BiVLC_negative_imgs.csv`` on (caption, negative caption, type, subtype),
compared lower-cased with punctuation and spacing removed (BiVLC re-cased and re-punctuated the
captions), taking the first match after the previous row's, since the rows keep SugarCrepe's
order (two SugarCrepe cases share their captions). ``vlc-harness data fetch -b bivlc`` downloads
the two CSVs and exports the negative images from Hugging Face with the ``datasets`` library,
checking that the Hugging Face rows equal the pinned CSV row by row; ``--images`` adds COCO val2017.

Versions: ``test-2933`` (default) is the pinned test split. ``custom`` reads whatever CSVs are
present without checksum pinning, under a data version named by their hash (for subsets and
fixtures). Modes: ``full`` (default) needs both images. ``i2t-only`` needs no negative image: it
scores only the natural image against the two captions (the SugarCrepe-style part of BiVLC)
under its own data version (``...-i2t-only``) and metric id (``i2t_only_i_pos2t``), so it is
never mixed with full results; T2I and group scores do not exist in that mode.

Metrics (strict ``>``: a tie is wrong, as ``evaluate_BiVLC`` in the authors' code does), each
micro-averaged over instances per subset (``replace_obj`` ...), per type (``replace``, ``swap``,
``add``: Table 4) and over ``all``: ``i2t_score``, ``t2i_score``, ``group_score`` (the headline)
and the four retrieval directions ``i_pos2t``, ``i_neg2t``, ``t_pos2i``, ``t_neg2i`` (Table 3).
"""

from __future__ import annotations

import csv
import hashlib
import re
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from vlc_harness import hookimpl
from vlc_harness.benchmarks import Benchmark, DataFile, ImageArchive, verify_files
from vlc_harness.datafetch import FetchError
from vlc_harness.errors import DataUnavailable
from vlc_harness.kit.exports import split_rows, stored_image_bytes, write_atomically
from vlc_harness.metrics import Micro, PairwiseAccuracy, PerCategory
from vlc_harness.metrics.group import CHANCE_SINGLE, MATCHED_PAIRS, TextImageGroup
from vlc_harness.types import ImageSource, Instance, ReferenceRow
from vlc_harness_builtins.benchmarks.coco import val2017_archives, val2017_hint

HF_DATASET = "imirandam/BiVLC"
COMMIT = "84f0d1751e7212d97cdeaeb01353862c09908bcb"
UPSTREAM = f"https://raw.githubusercontent.com/IMirandaM/BiVLC/{COMMIT}"
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
    title = "BiVLC"
    image_pools = ("coco-val2017", "bivlc-generated")
    citation = (
        "Miranda, Salaberria, Agirre, Azkune. BiVLC: Extending Vision-Language Compositionality "
        "Evaluation with Text-to-Image Retrieval. arXiv:2406.09952, 2024."
    )
    homepage = "https://github.com/IMirandaM/BiVLC"
    license = "MIT (annotations and generated images); COCO captions CC BY 4.0; COCO images under Flickr terms"
    headline = "group_score"
    headline_source = "Miranda et al. (2024) Table 3: Group over the 2,933 test instances (mode i2t-only: I_pos2T)"
    index_metrics = ("i2t_score", "t2i_score")
    gap_metrics = ("i2t_score", "t2i_score")
    captions_redistributable = True
    reference_file = Path(__file__).with_name("bivlc_reference.json")
    Params = BiVLCParams

    def _dir(self, relative: str) -> Path:
        return Path(relative) if Path(relative).is_absolute() else self.data_root / relative

    def _file(self, name: str) -> Path:
        return self._dir(self.params.annotations_dir) / name

    @property
    def i2t_only(self) -> bool:
        """True in the I2T-only mode (no negative images)."""
        return self.params.mode == I2T_ONLY

    @property
    def data_version(self) -> str:
        """``test-2933`` or ``custom-<hash of the CSVs>``, suffixed ``-i2t-only`` in that mode."""
        if self.params.version == "custom":
            h = hashlib.sha256()
            for name in FILES:
                path = self._file(name)
                h.update(name.encode() + (path.read_bytes() if path.is_file() else b""))
            base = f"custom-{h.hexdigest()[:12]}"
        else:
            base = self.params.version
        return f"{base}-{I2T_ONLY}" if self.i2t_only else base

    def data_files(self) -> list[DataFile]:
        """The two pinned CSVs of the authors' repository (none for ``custom``)."""
        if self.params.version == "custom":
            return []
        rel = Path(self.params.annotations_dir)
        return [DataFile(str(rel / name), sha, f"{UPSTREAM}/{path}") for name, (path, sha) in FILES.items()]

    def check_data(self) -> None:
        """The CSVs (pinned by sha256 unless ``custom``); in full mode also every negative image."""
        if self.params.version == "custom":
            absent = [str(self._file(n)) for n in FILES if not self._file(n).is_file()]
            if absent:
                raise DataUnavailable(f"BiVLC (custom): missing {', '.join(absent)}")
        else:
            verify_files(self.data_root, self.data_files(), self.title)
        if not self.i2t_only:
            folder = self._dir(self.params.negative_images_dir)
            n_rows = len(self._rows())
            missing = sum(1 for k in range(n_rows) if not (folder / f"{k}.jpg").is_file())
            if missing:
                raise DataUnavailable(
                    f"BiVLC: {missing} of {n_rows} negative images are missing under {folder}: {NEGATIVE_HINT}"
                )

    def _rows(self) -> list[dict[str, str]]:
        return _read_csv(self._file(ROWS_FILE))

    def load_instances(self) -> list[Instance]:
        """Every test row in Hugging Face order; ids are ``<type>_<subtype>/<row>``."""
        rows = self._rows()
        filenames = coco_filenames(rows, _read_csv(self._file(SOURCES_FILE)))
        coco = self._dir(self.params.images_dir)
        negatives = self._dir(self.params.negative_images_dir)
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

    def image_archives(self) -> list[ImageArchive]:
        """COCO val2017 (about 780 MB), unzipped next to ``images_dir`` (the negatives come from HF)."""
        return val2017_archives(self.params.images_dir)

    def image_dir(self) -> Path:
        """COCO val2017 folder (the positive images)."""
        return self._dir(self.params.images_dir)

    def image_hint(self) -> str:
        """Where to get COCO val2017 and, in full mode, the negative images."""
        coco = val2017_hint("bivlc")
        return coco if self.i2t_only else f"{coco}; negative images: {NEGATIVE_HINT}"

    def headline_metric(self) -> str:
        """``group_score``; in I2T-only mode, its only metric."""
        return I2T_ONLY_METRIC if self.i2t_only else self.headline

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
        folder = self._dir(self.params.negative_images_dir)
        if all((folder / f"{k}.jpg").is_file() for k in range(len(rows))):
            return [f"present  {folder} ({len(rows)} negative images)"]
        split = _load_hf_test_split(progress)
        if len(split) != len(rows):
            raise FetchError(f"{HF_DATASET} test has {len(split)} rows, the pinned {ROWS_FILE} has {len(rows)}")
        folder.mkdir(parents=True, exist_ok=True)
        coco = self._dir(self.params.images_dir)
        filenames = coco_filenames(rows, _read_csv(self._file(SOURCES_FILE)))
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


def _read_csv(path: Path) -> list[dict[str, str]]:
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def _normalise(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", " ", text.lower()).strip()


def coco_filenames(rows: list[dict[str, str]], sources: list[dict[str, str]]) -> list[str]:
    """The COCO val2017 file name of each BiVLC row, from the SugarCrepe case it was built from.

    Rows and cases are matched on their normalised captions, type and subtype; among equal
    candidates the first one after the previous row's case is taken (the rows keep SugarCrepe's
    order). A row without a match raises ``ValueError``.
    """
    index: dict[tuple[str, str, str, str], list[int]] = defaultdict(list)
    for i, src in enumerate(sources):
        index[(_normalise(src["caption"]), _normalise(src["negative_caption"]), src["type"], src["subtype"])].append(i)
    out, previous = [], -1
    for k, row in enumerate(rows):
        key = (_normalise(row["caption"]), _normalise(row["negative_caption"]), row["type"], row["subtype"])
        after = [i for i in index.get(key, []) if i > previous]
        if not after:
            raise ValueError(f"BiVLC row {k} ({row['caption']!r}) has no SugarCrepe case in {SOURCES_FILE}")
        previous = after[0]
        out.append(sources[previous]["filename"])
    return out


def _load_hf_test_split(progress: bool) -> Any:
    """The ``test`` split of the HF dataset, images as undecoded bytes (``datasets`` imported here)."""
    try:
        import datasets
    except ImportError:
        raise FetchError(
            f"BiVLC's negative images come from the Hugging Face dataset {HF_DATASET}, which needs the "
            "`datasets` library: pip install 'vlc-harness[data]' (or use mode=i2t-only)"
        ) from None
    if not progress:
        datasets.disable_progress_bars()
    try:
        split = datasets.load_dataset(HF_DATASET, split="test")
    except Exception as exc:  # the hub raises many types (offline, not found, HTTP); all mean the same here
        raise FetchError(f"cannot load {HF_DATASET} from Hugging Face: {type(exc).__name__}: {exc}") from None
    for column in ("image", "negative_image"):
        split = split.cast_column(column, datasets.Image(decode=False))
    return split


@hookimpl
def register_benchmarks(register: Any) -> None:
    """Register the BiVLC benchmark."""
    register(BiVLC)
