"""SugarCrepe (Hsieh et al., NeurIPS 2023): image-to-text choice against one hard-negative caption.

The reference (data layout, versions, metric definitions): its card, ``cards/sugarcrepe.md``."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from vlc_harness import hookimpl
from vlc_harness.benchmarks import Benchmark, DataFile
from vlc_harness.cards import BenchmarkCard
from vlc_harness.choices import Question, i2t_questions
from vlc_harness.metrics import Macro, Micro, PairwiseAccuracy, PerCategory
from vlc_harness.sources import ImageFolder, PinnedFiles, read_json_object
from vlc_harness.sources.fields import NAME, TEXT
from vlc_harness.types import ImageSource, Instance
from vlc_harness_builtins.benchmarks.coco import val2017

SUBSETS = ("replace_obj", "replace_att", "replace_rel", "swap_obj", "swap_att", "add_obj", "add_att")
TYPES = {"REPLACE": SUBSETS[:3], "SWAP": SUBSETS[3:5], "ADD": SUBSETS[5:]}
"""The paper's coarse groups (Table 5): each subset's prefix in upper case."""
UPSTREAM = "https://raw.githubusercontent.com/RAIVNLab/sugar-crepe/0047054b243992f0fad63d6f64f7544862daf846/data"
# The pre-fix swap_obj (246 cases): upstream at 6e45274, the last commit before 546eb51 removed case "108"
# (a byte-identical copy is in linzhiqiu/t2v_metrics@8ab4546, datasets/sugar_crepe/swap_obj.json).
PREFIX_SWAP_OBJ = (
    "https://raw.githubusercontent.com/RAIVNLab/sugar-crepe/6e45274de98440ad8ff4207bddba0afcc1a4526f/data/swap_obj.json"
)
SHA256 = {
    "add_att": "012d88d729693d193760e6f3393b06a1cf874380a9db0062e937201199fe044d",
    "add_obj": "1b9d76b93139a937b8dc1ada92a4f05ecc821bb3c291d752428bafadd4bb0682",
    "replace_att": "9fe55fd4c0a9ad1f85d486d9f6d0215b41f867eb025026e7f7b5ce44352545ee",
    "replace_obj": "9d299600639947e9d15281a9ded1382b376cf4ea088a8d08a1314bfe76e81898",
    "replace_rel": "356bcc2fc4c6aed3f4d9fd50acc58489bb1fe70c28791f9368d4cbf9ea39cdc9",
    "swap_att": "7a7ce04e5c4c80412b48c6f0c1347fb1a2f5d54c0be6aa429b64d390e442f8d0",
    "swap_obj": "073cdb8e253d053614e80710834d9773b09dbc1dd0a412f6f9492262caa1dcad",
}
FIELDS = {"filename": NAME, "caption": TEXT, "negative_caption": TEXT}
"""What each case holds (upstream's schema: an object of cases keyed by their number)."""
PREFIX_SWAP_OBJ_SHA256 = "15624c2460f5c10e8720fca0f1c27ddd61998b3b8b10998ff007cd84ea8fd31a"


@dataclass(frozen=True)
class SugarCrepeParams:
    """Which data version to read and where its files are (relative to the data root)."""

    version: Literal["paper-7512", "upstream-7511", "custom"] = "paper-7512"
    annotations_dir: str = "sugarcrepe"
    images_dir: str = "coco/val2017"


class SugarCrepe(Benchmark):
    """SugarCrepe: 7 subsets of hard-negative captions (REPLACE, SWAP, ADD) on COCO val2017."""

    type_name = "sugarcrepe"
    card = BenchmarkCard.read(Path(__file__).with_name("cards") / "sugarcrepe.md")
    Params = SugarCrepeParams
    metrics = (
        PairwiseAccuracy(
            "i2t_accuracy",
            "image-to-text accuracy per subset: s(image, caption) > s(image, negative caption)",
            (
                PerCategory(unit="subset"),
                Macro("i2t_accuracy_macro", "unweighted mean of the 7 subsets (Table 6 Average)", what="subsets"),
                Micro("i2t_accuracy_micro", "image-to-text accuracy pooled over all instances"),
                Micro("i2t_accuracy_type", "per type, pooled over its subsets (Table 5)", groups=TYPES),
                Macro(
                    "i2t_accuracy_type_macro", "per type, unweighted mean of its subsets", groups=TYPES, what="subsets"
                ),
            ),
        ),
    )

    def data_source(self) -> PinnedFiles:
        """The 7 subset files of the selected version, pinned (``custom``: any present, named by their hash)."""
        folder = Path(self.params.annotations_dir)
        files = {s: DataFile(str(folder / f"{s}.json"), SHA256[s], f"{UPSTREAM}/{s}.json") for s in SUBSETS}
        if self.params.version == "paper-7512":
            relpath = str(folder / "prev_6e45274" / "swap_obj.json")
            files["swap_obj"] = DataFile(relpath, PREFIX_SWAP_OBJ_SHA256, PREFIX_SWAP_OBJ)
        return PinnedFiles(self.data_root, self.title, files, self.params.version, noun="subset JSON")

    def image_folder(self) -> ImageFolder:
        """COCO val2017."""
        return val2017(self.data_root, self.params.images_dir, self.type_name)

    def load_instances(self) -> list[Instance]:
        """Every case of every subset, subsets in paper order, keys in numeric order."""
        source, images, out = self.data_source(), self.path(self.params.images_dir), []
        for subset in source.files:
            path = source.file(subset)
            records = read_json_object(path, self.title, FIELDS, item="case") if path.is_file() else {}
            for key in sorted(records, key=_numeric_key):  # a missing file: only version custom
                rec = records[key]
                image, texts = ImageSource(images / rec["filename"]), (rec["caption"], rec["negative_caption"])
                out.append(Instance(f"{subset}/{key}", subset, (image,), texts, gold={"positive": 0}))
        return out

    def questions(self, instance: Instance) -> list[Question]:
        """The GPT-4V protocol's form: pick the caption, asked with the positive first and second."""
        return i2t_questions(instance, 0, int(instance.gold["positive"]))


def _numeric_key(key: str) -> tuple[int, str]:
    return (int(key), "") if key.isdigit() else (1 << 62, key)


@hookimpl
def register_benchmarks(register: Any) -> None:
    """Register the SugarCrepe benchmark."""
    register(SugarCrepe)
