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
(``T0_I0 > T0_I1`` and ``T1_I1 > T1_I0``: both captions pick their image), ``group_score`` (both;
the headline). Upstream reports them per category (object, attribute, counting, relation), which
are the categories here; ``all`` pools every sample and ``<metric>_macro`` is the unweighted mean
of the four categories. Chance is 1/4, 1/4 and 1/6.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

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
from vlc_harness.metrics.group import MATCHED_PAIRS, TextImageGroup
from vlc_harness.types import ImageSource, Instance

HF_DATASET = "mair-lab/vismin-bench"
HF_REVISION = "2f379d5b9a3af7f10d3266f6389b7b351e54c493"
HF_PAGE = f"https://huggingface.co/datasets/{HF_DATASET}"
ROWS = "test.jsonl"
FIELDS = ("id", "text_0", "text_1", "image_0", "image_1", "category")
COUNTS = {"object": 579, "attribute": 294, "counting": 589, "relation": 622}
"""Samples per category, from upstream vismin-bench/solutions/vqa_solution.csv (2,084 in all)."""
GET_HINT = (
    "run `vlc-harness data fetch -b vismin` (needs `pip install 'vlc-harness[data]'`), which downloads "
    f"{HF_PAGE} at commit {HF_REVISION[:7]} and exports vismin/test.jsonl and vismin/images/"
)


@dataclass(frozen=True)
class VisMinParams:
    """Data version and where the files are (relative to the data root)."""

    version: Literal["hf-2f379d5", "custom"] = "hf-2f379d5"
    data_dir: str = "vismin"


class VisMin(Benchmark):
    """VisMin: an image and its minimal edit (object, attribute, count, spatial relation) with two captions."""

    type_name = "vismin"
    title = "VisMin"
    citation = (
        "Awal, Ahmadi, Zhang, Agrawal. VisMin: Visual Minimal-Change Understanding. NeurIPS 2024 (arXiv:2407.16772)."
    )
    homepage = "https://github.com/rabiulcste/vismin"
    license = "CC BY 4.0 (Hugging Face dataset mair-lab/vismin-bench)"
    headline = "group_score"
    index_metrics = ("text_score", "image_score")
    gap_metrics = ("text_score", "image_score")
    captions_redistributable = True
    reference_file = Path(__file__).with_name("vismin_reference.json")
    Params = VisMinParams
    metrics = (
        TextImageGroup(
            {"text": "text_score", "image": "image_score", "group": "group_score"},
            (
                PerCategory(unit="category"),
                Micro(),
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
    image_pools = ("coco-val2017", "vismin-generated")  # COCO 2017 val photos and their edits (upstream README)
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

    @classmethod
    def conformance_example(cls, tmp_path: Path) -> tuple[dict[str, Any], Path]:
        """Two generated samples per category (invented captions) with stand-in images."""
        root = tmp_path / "vismin_example"
        write_example(root, per_category=2)
        return {"version": "custom"}, root


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


def write_example(root: Path, per_category: int = 2) -> list[dict[str, Any]]:
    """Write a generated VisMin folder in the exported schema (invented captions, stand-in images)."""
    from vlc_harness.testing import write_standin_images

    folder = root / "vismin"
    changes = {
        "object": ("a dog sits on the sofa", "a cat sits on the sofa"),
        "attribute": ("a red car parked by the road", "a blue car parked by the road"),
        "counting": ("two apples on a plate", "three apples on a plate"),
        "relation": ("a lamp to the left of a chair", "a lamp to the right of a chair"),
    }
    rows = []
    for category, (a, b) in changes.items():
        for k in range(per_category):
            key = f"{category[:3]}{k}"
            rows.append(
                {
                    "id": key,
                    "text_0": f"{a}, scene {k}",
                    "text_1": f"{b}, scene {k}",
                    "image_0": f"{key}_0.png",
                    "image_1": f"{key}_1.png",
                    "category": category,
                }
            )
    folder.mkdir(parents=True, exist_ok=True)
    (folder / ROWS).write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    write_standin_images([r[k] for r in rows for k in ("image_0", "image_1")], folder / "images", (32, 32))
    return rows


@hookimpl
def register_benchmarks(register: Any) -> None:
    """Register the VisMin benchmark."""
    register(VisMin)
