"""Winoground (Thrush et al., CVPR 2022): 400 pairs of images and captions that share their words.

The reference (data layout, versions, metric definitions): its card, ``cards/winoground.md``."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from vlc_harness import hookimpl
from vlc_harness.benchmarks import Benchmark, DataFile
from vlc_harness.cards import BenchmarkCard
from vlc_harness.metrics import Micro, PerCategory, Tags
from vlc_harness.metrics.group import MATCHED_PAIRS, TextImageGroup
from vlc_harness.requires import Requires
from vlc_harness.sources import HfExport, HfSplit, ImageFolder, PinnedFiles, Sources, load_json
from vlc_harness.sources.fields import ANY, DIGITS, NAME, OBJECT, SCALAR, TEXT, at, list_of
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
FIELDS = {
    "id": DIGITS,
    "image_0": NAME,
    "image_1": NAME,
    "caption_0": TEXT,
    "caption_1": TEXT,
    "tag": ANY,
    "secondary_tag": SCALAR,
    "num_main_preds": DIGITS,
    "collapsed_tag": TEXT,
}
TAG_LIST = list_of(TEXT)
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
    requires = Requires(extras=("data",))
    card = BenchmarkCard.read(Path(__file__).with_name("cards") / "winoground.md")
    Params = WinogroundParams
    metrics = (
        TextImageGroup(
            {"text": "text_score", "image": "image_score", "group": "group_score"},
            (PerCategory(), Tags(lambda inst: instance_tags(inst.gold)), Micro()),
        ),
    )

    def _examples(self) -> HfExport:
        """examples.jsonl and the images, exported from the gated dataset (checked by content, not pinned)."""
        full = self.params.version != "custom"
        return HfExport(
            self.data_root,
            self.title,
            Path(self.params.data_dir) / EXAMPLES,
            "",
            HfSplit(HF_DATASET, "test", images=("image_0", "image_1"), gated=GATED_HINT),
            lambda row, k: f"ex_{int(row['id'])}_img_{k}",
            images=self.params.images_dir,
            hint=GET_HINT,
            fields=FIELDS,
            key="id",
            expect=lambda rows: _examples_problem(rows, full),
            refer="stem",
            suffix=".png",
            noun="examples",
            version=self.params.version,
        )

    def data_source(self) -> Sources:
        """The pinned why-winoground-hard tags (naming the version ``hf-400``), then the exported examples;
        ``custom``: named by the hash of both."""
        folder, custom = Path(self.params.data_dir), self.params.version == "custom"
        files = {TAGS: DataFile(str(folder / TAGS), TAGS_SHA256, TAGS_URL)}
        if custom:
            files = {name: DataFile(str(folder / name), "", "") for name in (EXAMPLES, TAGS)}
        tags = PinnedFiles(self.data_root, self.title, files, self.params.version, custom_needs="all")
        return Sources(tags, self._examples())

    def load_instances(self) -> list[Instance]:
        """The examples in id order; ids are ``<collapsed_tag>/<id>``, tags kept in ``gold``."""
        tags = read_tags(self.path(Path(self.params.data_dir) / TAGS))
        examples, out = self._examples(), []
        for rec in sorted(examples.rows(), key=lambda r: int(r["id"])):
            key = str(rec["id"])
            category = rec["collapsed_tag"]
            out.append(
                Instance(
                    id=f"{category}/{key}",
                    category=category,
                    images=(ImageSource(examples.image(rec, "image_0")), ImageSource(examples.image(rec, "image_1"))),
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

    def image_folder(self) -> ImageFolder:
        """The extracted images.zip folder (gated)."""
        return ImageFolder(self.path(self.params.images_dir), GET_HINT)


def instance_tags(gold: dict[str, Any]) -> list[str]:
    """Tags that cut across the categories: the number of main predicates ("1 Main Pred", "2 Main
    Preds"), the secondary tags and the "Why is Winoground hard" tags."""
    n = int(gold["num_main_preds"])
    return [f"{n} Main Pred" + ("s" if n != 1 else ""), *gold["secondary_tags"], *gold["why_hard_tags"]]


def read_tags(path: Path) -> dict[str, list[str]]:
    """why-winoground-hard's tags: an object of lists of tags keyed by example id (an
    :class:`~vlc_harness.errors.InputError` otherwise)."""
    tags = load_json(path)
    with at(path):
        OBJECT.check("the file", tags)
    for key, names in tags.items():
        with at(path, f"example {key!r}"):
            TAG_LIST.check("tags", names)
    return tags


def _split_tags(value: Any) -> list[str]:
    if not value:
        return []
    return [t.strip() for t in str(value).split(",") if t.strip()]


def _examples_problem(records: list[dict[str, Any]], full: bool) -> str:
    """What is wrong with the examples as a whole ('' when nothing): none, ids that are one number (``1`` and
    ``"01"``), and unless custom 400 ids 0..399 (each row's fields are checked as it is read)."""
    if not records:
        return "has no examples"
    ids = [int(r["id"]) for r in records]
    if len(set(ids)) != len(ids):
        return "repeats an id"
    if full and sorted(ids) != list(range(N_EXAMPLES)):
        return f"has {len(ids)} examples, expected ids 0..{N_EXAMPLES - 1}"
    return ""


@hookimpl
def register_benchmarks(register: Any) -> None:
    """Register the Winoground benchmark."""
    register(Winoground)
