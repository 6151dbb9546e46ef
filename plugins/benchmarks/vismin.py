"""VisMin (Awal et al., NeurIPS 2024): 2x2 minimal changes of object, attribute, count or spatial relation.

Each sample holds an image and a minimally edited copy (one object, attribute, count or spatial
relation changed) with their two captions; image ``k`` matches caption ``k``. The benchmark has
2,084 samples: object 579, attribute 294, counting 589, relation 622 (the categories of upstream
``vismin-bench/solutions/vqa_solution.csv``).

Data: the Hugging Face dataset ``mair-lab/vismin-bench`` (CC BY 4.0), a ``save_to_disk`` dataset
(``data/test``) pinned to hub commit ``2f379d5``. ``vlc-harness data fetch -b vismin`` downloads
that snapshot with ``huggingface_hub``, opens it with ``datasets.load_from_disk`` as upstream
``vismin-bench/eval.py`` does (``pip install 'vlc-harness[data]'``) and exports it (overridable
with the ``data_dir`` param)::

    <data root>/vismin/test.jsonl             # one row per sample: the HF row's id, text_0, text_1,
                                              # category, with image_0/image_1 as file names
    <data root>/vismin/images/<id>_<k>.<ext>  # image_k, bytes as stored in the dataset

No checksum of the export could be verified here (no network), so the data version names the
sha256 of the ``test.jsonl`` read (``hf-2f379d5-<sha12>``); ``custom`` reads any file of that schema.

Metrics (strict ``>``: a tie is wrong, as upstream ``vismin-bench/metric.py``
``compute_contrastive_accuracy`` and ``evals/metrics/itm.py`` do): ``text_score``
(``T0_I0 > T1_I0`` and ``T1_I1 > T0_I1``: both images pick their caption), ``image_score``
(``T0_I0 > T0_I1`` and ``T1_I1 > T1_I0``: both captions pick their image) and ``group_score``
(both), per category (object, attribute, counting, relation) as upstream and the paper's table
report them. ``avg_score`` (headline, category ``all``) is the paper's AVG: the unweighted mean of
the 12 per-category text, image and group scores (upstream ``index.html`` @29ce2c0, the table whose
caption says "AVG denotes average across columns"); per category it is the mean of that category's
three scores. ``<metric>_macro`` is the unweighted mean of one score's four categories and
``<metric>_pooled`` pools every sample (ours: the paper reports neither). Chance is 1/4, 1/4, 1/6
and 2/9 for AVG.

The table's AVG is the mean of its 12 columns for 8 of its 11 model rows and the human row (to its
printed rounding); not for LLaVA 1.6, Gemini 1.0 Pro and GPT-4o, whose printed AVG is not the mean
of their columns (for the last two it is the mean of their four group scores). Their printed AVG is
kept under category ``table-avg``, never compared with ours.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np

from vlc_harness import hookimpl
from vlc_harness.benchmarks import Benchmark
from vlc_harness.datafetch import FetchError
from vlc_harness.errors import DataUnavailable
from vlc_harness.kit.exports import (
    present,
    read_jsonl,
    require_fields,
    save_stored_image,
    short_sha256,
    split_rows,
    write_atomically,
)
from vlc_harness.metrics import Macro, Micro, PerCategory
from vlc_harness.metrics.engine import Column
from vlc_harness.metrics.group import CHANCE_GROUP, CHANCE_IMAGE, CHANCE_TEXT, MATCHED_PAIRS, TextImageGroup
from vlc_harness.types import ImageSource, Instance, MetricSpec

HF_DATASET = "mair-lab/vismin-bench"
HF_REVISION = "2f379d5b9a3af7f10d3266f6389b7b351e54c493"
HF_PAGE = f"https://huggingface.co/datasets/{HF_DATASET}"
ROWS = "test.jsonl"
FIELDS = ("id", "text_0", "text_1", "image_0", "image_1", "category")
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
    image_pools = ("coco-val2017", "vismin-generated")  # COCO 2017 val photos and their edits (upstream README)
    title = "VisMin"
    citation = (
        "Awal, Ahmadi, Zhang, Agrawal. VisMin: Visual Minimal-Change Understanding. NeurIPS 2024 (arXiv:2407.16772)."
    )
    homepage = "https://github.com/rabiulcste/vismin"
    license = "CC BY 4.0 (Hugging Face dataset mair-lab/vismin-bench)"
    headline = AVG
    headline_source = "VisMin index.html @29ce2c0, AVG column (table caption: 'AVG denotes average across columns')"
    index_metrics = ("text_score_macro", "image_score_macro")
    gap_metrics = ("text_score_macro", "image_score_macro")
    captions_redistributable = True
    reference_file = Path(__file__).with_name("vismin_reference.json")
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

    def _dir(self) -> Path:
        return self.path(self.params.data_dir)

    def _file(self) -> Path:
        return self._dir() / ROWS

    @property
    def data_version(self) -> str:
        """``hf-2f379d5-<sha12>`` or ``custom-<sha12>`` of the exported rows."""
        path = self._file()
        digest = short_sha256(path)
        return f"{self.params.version}-{digest}"

    def check_data(self) -> None:
        """The rows present with the upstream fields and unique ids (the published counts unless custom)."""
        path = self._file()
        if not path.is_file():
            raise DataUnavailable(f"VisMin data is not ready: missing {path}; {GET_HINT}")
        rows = self._rows()
        if self.params.version != "custom":
            counts = {c: sum(1 for r in rows if r["category"] == c) for c in COUNTS}
            if counts != COUNTS or len(rows) != sum(COUNTS.values()):
                raise DataUnavailable(f"VisMin: {path} has {len(rows)} samples {counts}, expected {COUNTS}; {GET_HINT}")

    def _rows(self) -> list[dict[str, Any]]:
        return read_jsonl(self._file(), "VisMin", FIELDS, key="id")

    def load_instances(self) -> list[Instance]:
        """Every sample in dataset order: ``<category>/<id>``."""
        images = self.image_dir()
        return [
            Instance(
                id=f"{row['category']}/{row['id']}",
                category=str(row["category"]),
                images=(ImageSource(images / row["image_0"]), ImageSource(images / row["image_1"])),
                texts=(row["text_0"], row["text_1"]),
                gold={"matches": MATCHED_PAIRS},
            )
            for row in self._rows()
        ]

    def image_dir(self) -> Path:
        """The exported images."""
        return self._dir() / "images"

    def image_hint(self) -> str:
        """How to get the images."""
        return GET_HINT

    def fetch(self, images: bool = False, progress: bool = True) -> list[str]:
        """Download the pinned snapshot, open it with ``load_from_disk`` and export rows and images."""
        if self.params.version == "custom":
            return []
        path = self._file()
        if path.is_file():
            done = present(path, self.image_dir(), [r[k] for r in self._rows() for k in ("image_0", "image_1")])
            if done:
                return [done]
        return export_split(
            _load_snapshot(self.data_root / "downloads" / "vismin-bench", progress), path, self.image_dir(), progress
        )


def _load_snapshot(folder: Path, progress: bool) -> Any:
    """The ``test`` split of the pinned snapshot, images undecoded (``datasets`` imported here only)."""
    try:
        import datasets
        from huggingface_hub import snapshot_download
    except ImportError:
        raise FetchError(
            f"VisMin comes from the Hugging Face dataset {HF_DATASET}, which needs `datasets`: "
            "pip install 'vlc-harness[data]'"
        ) from None
    if not progress:
        datasets.disable_progress_bars()
    try:
        local = snapshot_download(HF_DATASET, repo_type="dataset", revision=HF_REVISION, local_dir=str(folder))
        split = datasets.load_from_disk(str(Path(local) / "data"))["test"]
    except Exception as exc:  # the hub and datasets raise many types (offline, not found, layout)
        raise FetchError(f"cannot load {HF_DATASET}@{HF_REVISION[:7]}: {type(exc).__name__}: {exc}") from None
    for column in ("image_0", "image_1"):
        split = split.cast_column(column, datasets.Image(decode=False))
    return split


def export_split(split: Any, path: Path, images: Path, progress: bool = True) -> list[str]:
    """Write the rows (images as file names) and the image bytes as stored."""
    images.mkdir(parents=True, exist_ok=True)
    lines = []
    for k, row in split_rows(split, HF_DATASET, progress):
        require_fields(HF_DATASET, row, k, FIELDS)
        out = {f: row[f] for f in FIELDS}  # the images are replaced by their file names below
        for i in (0, 1):
            where = f"{HF_DATASET} row {k} image_{i}"
            out[f"image_{i}"] = save_stored_image(row[f"image_{i}"], images, f"{row['id']}_{i}", where)
        lines.append(json.dumps(out, ensure_ascii=False))
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(path, ("\n".join(lines) + "\n").encode("utf-8"))
    return [f"fetched  {path} ({len(lines)} samples) and {2 * len(lines)} images from {HF_DATASET}@{HF_REVISION[:7]}"]


@hookimpl
def register_benchmarks(register: Any) -> None:
    """Register the VisMin benchmark."""
    register(VisMin)
