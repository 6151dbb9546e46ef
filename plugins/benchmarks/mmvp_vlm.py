"""MMVP-VLM (Tong et al., CVPR 2024): text-to-image choice between two CLIP-blind images, 9 patterns.

The reference (data layout, versions, metric definitions): its card, ``cards/mmvp_vlm.md``."""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from vlc_harness import hookimpl
from vlc_harness.benchmarks import Benchmark
from vlc_harness.cards import BenchmarkCard
from vlc_harness.datafetch import FetchError
from vlc_harness.errors import DataUnavailable, InputError
from vlc_harness.metrics import Macro, Micro, PerCategory
from vlc_harness.metrics.group import MATCHED_PAIRS, TextImageGroup
from vlc_harness.requires import Requires
from vlc_harness.sources import ImageFolder, UnpinnedFiles, read_text
from vlc_harness.sources.fields import DIGITS, NAME, Malformed, at
from vlc_harness.sources.hf import download_snapshot
from vlc_harness.types import ImageSource, Instance

HF_DATASET = "MMVP/MMVP_VLM"
HF_REVISION = "211372d5357398f914d806d07dc305aea1f257d2"
HF_PAGE = f"https://huggingface.co/datasets/{HF_DATASET}"
QUESTIONS = "Questions.csv"
IMAGES = "MLLM_VLM Images"
PATTERNS = (
    "Orientation and Direction",
    "Presence of Specific Features",
    "State and Condition",
    "Quantity and Count",
    "Positional and Relational Context",
    "Color and Appearance",
    "Structural Characteristics",
    "Texts",
    "Viewpoint and Perspective",
)
"""Upstream ``evaluate_vlm.py``'s pattern names, in the order of the 15-pair blocks."""
PAIRS_PER_PATTERN = 15
N_STATEMENTS = 270
PREFIX = "a photo of "
"""Upstream prepends this to every statement."""
GET_HINT = (
    f"run `vlc-harness data fetch -b mmvp_vlm` (needs `pip install 'vlc-harness[data]'`), or download "
    f"{HF_PAGE} at commit {HF_REVISION[:7]} (Questions.csv and the 'MLLM_VLM Images' folder) into the data folder"
)


@dataclass(frozen=True)
class MMVPVLMParams:
    """Data version, where the files are, and the prefix upstream puts before every statement."""

    version: Literal["hf-211372d", "custom"] = "hf-211372d"
    data_dir: str = "mmvp_vlm"
    text_prefix: str = PREFIX


class MMVPVLM(Benchmark):
    """MMVP-VLM: pick which of two CLIP-blind images a statement describes (text-to-image)."""

    type_name = "mmvp_vlm"
    requires = Requires(extras=("data",))
    card = BenchmarkCard.read(Path(__file__).with_name("cards") / "mmvp_vlm.md")
    Params = MMVPVLMParams
    metrics = (
        TextImageGroup(
            {"image": "pair_accuracy"},
            (
                PerCategory(unit="pattern"),
                Micro(),
                Macro(
                    "pair_accuracy_macro",
                    "unweighted mean of the per-pattern pair accuracies (the paper's MMVP Average)",
                    what="patterns",
                ),
            ),
            descriptions={
                "image": "pair accuracy: both statements pick their own image (text-to-image; a tie picks the "
                "pair's second image, as upstream's 'probability > 0.5' does)"
            },
            tie_rule="first-index",
        ),
    )

    def data_source(self) -> UnpinnedFiles:
        """Questions.csv, pinned by the hub commit only: the data version names its hash, ``hf-211372d-<sha12>``."""
        questions = {QUESTIONS: Path(self.params.data_dir) / QUESTIONS}
        return UnpinnedFiles(self.data_root, self.title, questions, self.params.version, hint=GET_HINT)

    def check_data(self) -> None:
        """Questions.csv present, pairs of consecutive rows, one Type per 15-pair block (270 rows unless custom)."""
        super().check_data()
        self._pairs()

    def _pairs(self) -> list[tuple[str, tuple[str, ...], tuple[str, ...]]]:
        """``(pattern, first row, second row)`` per pair, rows read by position; a malformed row is an
        :class:`~vlc_harness.errors.InputError`, pairs and patterns not as upstream's DataUnavailable."""
        path = self.path(self.params.data_dir) / QUESTIONS
        rows = _rows(path, read_text(path, "utf-8-sig"))
        if self.params.version != "custom" and len(rows) != N_STATEMENTS:
            raise DataUnavailable(f"MMVP-VLM: {path} has {len(rows)} statements, expected {N_STATEMENTS}; {GET_HINT}")
        if len(rows) % 2:
            raise DataUnavailable(f"MMVP-VLM: {path} has an odd number of statements ({len(rows)})")
        if len(rows) > 2 * PAIRS_PER_PATTERN * len(PATTERNS):
            raise DataUnavailable(f"MMVP-VLM: {path} has more than {len(PATTERNS) * PAIRS_PER_PATTERN} pairs")
        pairs = []
        for k in range(0, len(rows), 2):
            first, second = rows[k], rows[k + 1]
            qid1, qid2 = int(first[0]), int(second[0])
            if qid1 % 2 != 1 or qid2 != qid1 + 1:
                raise DataUnavailable(
                    f"MMVP-VLM: {path} pairs question {qid1} with {qid2}; upstream's gold (odd ID: image 1) needs "
                    "an odd ID followed by the next even one"
                )
            block = (k // 2) // PAIRS_PER_PATTERN
            block_type = rows[2 * PAIRS_PER_PATTERN * block][1]  # every pair's first row shares the block's Type
            if first[1] != block_type:
                raise DataUnavailable(
                    f"MMVP-VLM: {path} mixes the Types {sorted({block_type, first[1]})} in the 15-pair block of "
                    f"pattern {PATTERNS[block]!r}; upstream names patterns by position"
                )
            pairs.append((PATTERNS[block], first, second))
        return pairs

    def load_instances(self) -> list[Instance]:
        """One instance per pair in file order; the second image and statement are listed first."""
        images = self.path(self.params.data_dir) / IMAGES
        prefix = self.params.text_prefix
        out = []
        for pattern, first, second in self._pairs():
            folder = images / first[1]  # upstream reads both images from the first row's Type
            out.append(
                Instance(
                    id=f"{pattern}/{first[0]}-{second[0]}",
                    category=pattern,
                    images=(ImageSource(folder / f"{second[0]}.jpg"), ImageSource(folder / f"{first[0]}.jpg")),
                    texts=(prefix + second[2], prefix + first[2]),
                    gold={"matches": MATCHED_PAIRS, "question_ids": [int(second[0]), int(first[0])]},
                )
            )
        return out

    def image_folder(self) -> ImageFolder:
        """The ``MLLM_VLM Images`` folder."""
        return ImageFolder(self.path(self.params.data_dir) / IMAGES, GET_HINT)

    def fetch(self, images: bool = False, progress: bool = True) -> list[str]:
        """The pinned hub snapshot (Questions.csv and every image) with ``huggingface_hub``."""
        if self.params.version == "custom":
            return []
        folder = self.path(self.params.data_dir)
        if (folder / QUESTIONS).is_file() and (folder / IMAGES).is_dir():
            return [f"present  {folder}"]
        download_snapshot(HF_DATASET, HF_REVISION, folder, self.title)
        if not (folder / QUESTIONS).is_file():
            raise FetchError(f"{HF_DATASET}@{HF_REVISION[:7]} did not provide {QUESTIONS}: its layout has changed")
        return [f"fetched  {folder} (from {HF_DATASET}@{HF_REVISION[:7]})"]


def _rows(path: Path, text: str) -> list[tuple[str, ...]]:
    """Questions.csv's rows after its header (blank lines skipped), each ``(Question ID, Type, Statement)``:
    an ID of digits and a Type (a folder name), else an :class:`~vlc_harness.errors.InputError` at its line."""
    rows, header = [], True
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        for row in reader:
            if not row or header:  # upstream skips the header row (the first that is not blank)
                header = header and not row
                continue
            with at(path, f"line {reader.line_num}"):
                if len(row) != 3:
                    raise Malformed("the record", "3 columns (Question ID, Type, Statement)", f"{len(row)} columns")
                DIGITS.check("Question ID", row[0])
                NAME.check("Type", row[1])
            rows.append(tuple(row))
    except csv.Error as exc:  # a field over csv's size limit
        raise InputError(path, f"line {reader.line_num}", "the record", "a CSV row", str(exc)) from None
    return rows


@hookimpl
def register_benchmarks(register: Any) -> None:
    """Register the MMVP-VLM benchmark."""
    register(MMVPVLM)
