"""Winoground (Thrush et al., CVPR 2022): 400 pairs of images and captions that share their words.

Each instance has two images and two captions made of the same words in a different order;
image ``k`` matches caption ``k``.

Data: the gated Hugging Face dataset ``facebook/winoground`` (``data/examples.jsonl`` and
``data/images.zip``) and the fine-grained tags of "Why is Winoground Hard?" (Diwan et al., EMNLP
2022; github.com/ajd12342/why-winoground-hard, MIT). Data root layout (overridable with the
``data_dir`` and ``images_dir`` params)::

    <data root>/winoground/examples.jsonl              # one JSON object per line: id, image_0, image_1,
                                                       # caption_0, caption_1, tag, secondary_tag,
                                                       # num_main_preds, collapsed_tag
    <data root>/winoground/images/ex_<id>_img_<k>.png  # images.zip, extracted
    <data root>/winoground/new_tag_assignments.json    # why-winoground-hard: {"<id>": [tag, ...]}

``vlc-harness data fetch -b winoground`` downloads the tags file (pinned by sha256) and exports
the test split from Hugging Face with the ``datasets`` library into that layout (the dataset is
gated: accept its terms on the Hub, then ``huggingface-cli login`` or set ``HF_TOKEN``). A manual
download of ``examples.jsonl`` plus ``images.zip`` unzipped into the same folder works too.

Versions: ``hf-400`` (default) is the 400-example test split; its ``examples.jsonl`` is checked
for the 400 ids and the fields above but not pinned by sha256 (no checksum of the gated file
could be verified when this was written). ``custom`` reads any ``examples.jsonl`` (fixtures,
subsets) under a data version named by its hash.

Metrics (strict ``>``: a tie is wrong, as in the paper's definitions): ``text_score`` (both
images pick their caption), ``image_score`` (both captions pick their image) and
``group_score`` (both; the headline), micro-averaged over instances overall (``all``), per
upstream ``collapsed_tag`` (the instance category: Object, Relation, Both), per number of main
predicates (``1 Main Pred``, ``2 Main Preds``), per non-empty ``secondary_tag`` value and per
why-winoground-hard tag (``Complex Reasoning`` ... and ``No Tag`` for untagged examples). Chance
is 1/4, 1/4 and 1/6.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from vlc_harness import hookimpl
from vlc_harness.benchmarks import Benchmark, DataFile, verify_files
from vlc_harness.datafetch import FetchError
from vlc_harness.errors import DataUnavailable
from vlc_harness.kit.exports import (
    present,
    read_jsonl,
    require_fields,
    split_rows,
    stored_image_bytes,
    write_atomically,
)
from vlc_harness.metrics import Micro, PerCategory, Tags
from vlc_harness.metrics.group import MATCHED_PAIRS, TextImageGroup
from vlc_harness.types import ImageSource, Instance

HF_DATASET = "facebook/winoground"
HF_PAGE = f"https://huggingface.co/datasets/{HF_DATASET}"
EXAMPLES = "examples.jsonl"
TAGS = "new_tag_assignments.json"
TAGS_URL = (
    "https://raw.githubusercontent.com/ajd12342/why-winoground-hard/7069ff68709b493c7b32cdd7e3f5d65178cd9273/"
    "new_tag_assignments.json"
)
TAGS_SHA256 = "8a635dac806bb63484dbe9b0763ee3df6525a2ffbbab6b9c0a77a0fc3c41fc86"
FIELDS = (
    "id",
    "image_0",
    "image_1",
    "caption_0",
    "caption_1",
    "tag",
    "secondary_tag",
    "num_main_preds",
    "collapsed_tag",
)
N_EXAMPLES = 400
NO_TAG = "No Tag"
GATED_HINT = (
    f"{HF_DATASET} is gated: accept its terms at {HF_PAGE} while logged in, then run `huggingface-cli login` "
    "(or set HF_TOKEN to an access token from https://huggingface.co/settings/tokens) and retry"
)
GET_HINT = (
    "run `vlc-harness data fetch -b winoground` (needs `pip install 'vlc-harness[data]'`; "
    f"{GATED_HINT}), or download data/examples.jsonl and data/images.zip from {HF_PAGE} into the data folder "
    "and unzip images.zip there"
)


@dataclass(frozen=True)
class WinogroundParams:
    """Data version and where the files are (relative to the data root)."""

    version: Literal["hf-400", "custom"] = "hf-400"
    data_dir: str = "winoground"
    images_dir: str = "winoground/images"


class Winoground(Benchmark):
    """Winoground: match two images with two captions that use the same words in a different order."""

    type_name = "winoground"
    title = "Winoground"
    image_pools = ("winoground",)
    citation = (
        "Thrush, Jiang, Bartolo, Singh, Williams, Kiela, Ross. Winoground: Probing Vision and Language Models "
        "for Visio-Linguistic Compositionality. CVPR 2022. Tags: Diwan, Berry, Choi, Harwath, Mahowald. "
        "Why is Winoground Hard? Investigating Failures in Visuolinguistic Compositionality. EMNLP 2022."
    )
    homepage = HF_PAGE
    license = "Winoground: gated research-only license (images from Getty Images); why-winoground-hard tags: MIT"
    headline = "group_score"
    headline_source = (
        "Thrush et al. (CVPR 2022): the group score over the 400 examples, the paper's main metric in its "
        "results table (the table number could not be read here)"
    )
    index_metrics = ("text_score", "image_score")
    gap_metrics = ("text_score", "image_score")
    captions_redistributable = False
    reference_file = Path(__file__).with_name("winoground_reference.json")
    Params = WinogroundParams
    metrics = (
        TextImageGroup(
            {"text": "text_score", "image": "image_score", "group": "group_score"},
            (PerCategory(), Tags(lambda inst: instance_tags(inst.gold)), Micro()),
        ),
    )

    def _dir(self, relative: str) -> Path:
        return Path(relative) if Path(relative).is_absolute() else self.data_root / relative

    def _file(self, name: str) -> Path:
        return self._dir(self.params.data_dir) / name

    @property
    def data_version(self) -> str:
        """``hf-400``, or ``custom-<hash of examples.jsonl and the tags>``."""
        if self.params.version != "custom":
            return self.params.version
        h = hashlib.sha256()
        for name in (EXAMPLES, TAGS):
            path = self._file(name)
            h.update(name.encode() + (path.read_bytes() if path.is_file() else b""))
        return f"custom-{h.hexdigest()[:12]}"

    def data_files(self) -> list[DataFile]:
        """The pinned why-winoground-hard tags (examples.jsonl is gated and checked by content)."""
        if self.params.version == "custom":
            return []
        return [DataFile(str(Path(self.params.data_dir) / TAGS), TAGS_SHA256, TAGS_URL)]

    def check_data(self) -> None:
        """The tags file (pinned) and examples.jsonl (400 ids with their fields, unless custom)."""
        if self.params.version == "custom":
            if not self._file(TAGS).is_file():
                raise DataUnavailable(f"Winoground (custom): missing {self._file(TAGS)}")
        else:
            verify_files(self.data_root, self.data_files(), self.title)
        path = self._file(EXAMPLES)
        if not path.is_file():
            raise DataUnavailable(f"Winoground data is not ready: missing {path}; {GET_HINT}")
        records = self._records()
        problem = _examples_problem(records, self.params.version != "custom")
        if problem:
            raise DataUnavailable(f"Winoground: {path} {problem}; {GET_HINT}")

    def _records(self) -> list[dict[str, Any]]:
        return read_jsonl(self._file(EXAMPLES), "Winoground")

    def load_instances(self) -> list[Instance]:
        """The examples in id order; ids are ``<collapsed_tag>/<id>``, tags kept in ``gold``."""
        tags: dict[str, list[str]] = json.loads(self._file(TAGS).read_text(encoding="utf-8"))
        images = self._dir(self.params.images_dir)
        out = []
        for rec in sorted(self._records(), key=lambda r: int(r["id"])):
            key = str(rec["id"])
            category = rec["collapsed_tag"]
            out.append(
                Instance(
                    id=f"{category}/{key}",
                    category=category,
                    images=(
                        ImageSource(images / _image_file(rec["image_0"])),
                        ImageSource(images / _image_file(rec["image_1"])),
                    ),
                    texts=(rec["caption_0"], rec["caption_1"]),
                    gold={
                        "matches": MATCHED_PAIRS,
                        "num_main_preds": int(rec["num_main_preds"]),
                        "secondary_tags": _split_tags(rec.get("secondary_tag", "")),
                        "why_hard_tags": list(tags.get(key, [])) or [NO_TAG],
                    },
                )
            )
        return out

    def image_dir(self) -> Path:
        """The extracted images.zip folder."""
        return self._dir(self.params.images_dir)

    def image_hint(self) -> str:
        """Where to get the (gated) images."""
        return GET_HINT

    def fetch(self, images: bool = False, progress: bool = True) -> list[str]:
        """The pinned tags; then examples.jsonl and the images exported from the gated HF dataset."""
        lines = super().fetch(images=images, progress=progress)
        if self.params.version == "custom":
            return lines
        examples, folder = self._file(EXAMPLES), self.image_dir()
        records = self._records() if examples.is_file() else []
        if records and not _examples_problem(records, True):
            done = present(examples, folder, [_image_file(r[f"image_{k}"]) for r in records for k in (0, 1)])
            if done:
                return [*lines, done]
        return [*lines, *export_hf_split(_load_hf_test_split(progress), examples, folder, progress)]


def instance_tags(gold: dict[str, Any]) -> list[str]:
    """Tags that cut across the categories: the number of main predicates ("1 Main Pred", "2 Main
    Preds"), the secondary tags and the "Why is Winoground hard" tags."""
    n = int(gold["num_main_preds"])
    return [f"{n} Main Pred" + ("s" if n != 1 else ""), *gold["secondary_tags"], *gold["why_hard_tags"]]


def _image_file(name: str) -> str:
    """Upstream ``image_0`` values are file stems (``ex_0_img_0``); the files are PNG."""
    return name if Path(name).suffix else f"{name}.png"


def _split_tags(value: Any) -> list[str]:
    if not value:
        return []
    return [t.strip() for t in str(value).split(",") if t.strip()]


def _examples_problem(records: list[dict[str, Any]], full: bool) -> str:
    """What is wrong with the examples ('' when nothing): fields, unique ids, and 400 ids 0..399."""
    if not records:
        return "has no examples"
    for rec in records:
        absent = [f for f in FIELDS if f not in rec]
        if absent:
            return f"has an example without {', '.join(absent)}"
    ids = [int(r["id"]) for r in records]
    if len(set(ids)) != len(ids):
        return "repeats an id"
    if full and sorted(ids) != list(range(N_EXAMPLES)):
        return f"has {len(ids)} examples, expected ids 0..{N_EXAMPLES - 1}"
    return ""


def _load_hf_test_split(progress: bool) -> Any:
    """The gated ``test`` split, images as undecoded bytes (``datasets`` imported here only)."""
    try:
        import datasets
    except ImportError:
        raise FetchError(
            f"Winoground comes from the gated Hugging Face dataset {HF_DATASET}, which needs the `datasets` "
            "library: pip install 'vlc-harness[data]'"
        ) from None
    if not progress:
        datasets.disable_progress_bars()
    try:
        split = datasets.load_dataset(HF_DATASET, split="test")
    except Exception as exc:  # gated, offline, not found: the hub raises many types
        raise FetchError(f"cannot load {HF_DATASET}: {type(exc).__name__}: {exc}. {GATED_HINT}") from None
    for column in ("image_0", "image_1"):
        split = split.cast_column(column, datasets.Image(decode=False))
    return split


def export_hf_split(split: Any, examples: Path, images: Path, progress: bool = True) -> list[str]:
    """Write the HF test split as upstream's layout: examples.jsonl and ``ex_<id>_img_<k>.png``.

    Images are written with their stored bytes (never re-encoded).
    """
    images.mkdir(parents=True, exist_ok=True)
    lines = []
    for k, rec in split_rows(split, HF_DATASET, progress):
        require_fields(HF_DATASET, rec, k, FIELDS)
        out = {"id": int(rec["id"])}
        for i in (0, 1):
            stem = f"ex_{out['id']}_img_{i}"
            value = rec[f"image_{i}"]
            data = stored_image_bytes(value)
            write_atomically(images / f"{stem}.png", data)
            out[f"image_{i}"] = stem
        for field in FIELDS[3:]:
            out[field] = rec[field]
        lines.append(json.dumps(out, ensure_ascii=False))
    examples.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(examples, ("\n".join(lines) + "\n").encode("utf-8"))
    return [f"fetched  {examples} ({len(lines)} examples) and {2 * len(lines)} images into {images} from {HF_DATASET}"]


@hookimpl
def register_benchmarks(register: Any) -> None:
    """Register the Winoground benchmark."""
    register(Winoground)
