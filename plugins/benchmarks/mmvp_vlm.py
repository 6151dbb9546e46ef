"""MMVP-VLM (Tong et al., CVPR 2024): text-to-image choice between two CLIP-blind images, 9 patterns.

Each instance is one pair of images that CLIP embeds alike although they differ visibly, with one
statement per image ("The butterfly's wings are closed" / "... open"). A pair counts correct when
both statements pick their own image (text-to-image only: MMVP-VLM has no image-to-text score).
There are 9 visual patterns x 15 pairs = 135 pairs, 270 images and statements.

Data: the Hugging Face dataset ``MMVP/MMVP_VLM`` (MIT), pinned to hub commit ``211372d``, laid
out as upstream publishes it (overridable with the ``data_dir`` param)::

    <data root>/mmvp_vlm/Questions.csv                           # header, then one row per statement:
                                                                 # Question ID, Type, Statement
    <data root>/mmvp_vlm/MLLM_VLM Images/<Type>/<Question ID>.jpg

``vlc-harness data fetch -b mmvp-vlm`` downloads that snapshot with ``huggingface_hub``
(``pip install 'vlc-harness[data]'``). No checksum of ``Questions.csv`` could be verified when
this was written (no network), so the file is pinned by the hub commit only and the data version
names the sha256 of the file read (``hf-211372d-<sha12>``): scores of two different files never
mix. ``custom`` reads any ``Questions.csv`` of the same schema under ``custom-<sha12>``.

Reading, as upstream ``scripts/evaluate_vlm.py`` (github.com/tsb0601/MMVP @ 7635005) does: the
rows are read by position after the header; consecutive rows form a pair; both images are read
from the first row's ``Type`` folder; each statement is prefixed with ``"a photo of "`` (param
``text_prefix``); the pattern of pair ``k`` is ``PATTERNS[k // 15]`` (by position, not by
``Type``; every 15-pair block must share one ``Type``, or the data is refused). Instances are
``<pattern>/<qid1>-<qid2>``.

Metric (tie rule ``first-index``, recorded): upstream computes, per statement, the softmax over
the two images of ``logits_per_text`` and predicts image 1 when its probability is ``> 0.5``,
else image 2; the gold is image 1 for the odd ``Question ID`` and image 2 for the even one. So
image 1 is picked only when its score is strictly greater, and an exact tie picks image 2. Each
instance therefore lists the pair's **second** image and statement first (image 0, text 0) and
the first ones second; under ``first-index`` (the candidate listed first wins a tie) this gives
exactly upstream's verdicts: on a tie the second statement is right and the first is wrong.
(Upstream compares a float32 softmax with 0.5; two logits closer than float32 can resolve round
to a tie there but not here.)

``pair_accuracy`` is the image score of :class:`~vlc_harness.metrics.group.TextImageGroup` (both
statements pick their own image) per pattern (each over 15 pairs); ``pair_accuracy_macro``, the
headline, is the unweighted mean of the patterns (the paper's "MMVP Average", Table 1 / the
repository's ``vlm_results.png``); ``pair_accuracy`` over ``all`` pools the pairs (equal to the
macro on the full data). Chance is 1/4.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from vlc_harness import hookimpl
from vlc_harness.benchmarks import Benchmark
from vlc_harness.cards import BenchmarkCard
from vlc_harness.datafetch import FetchError
from vlc_harness.errors import DataUnavailable
from vlc_harness.metrics import Macro, Micro, PerCategory
from vlc_harness.metrics.group import MATCHED_PAIRS, TextImageGroup
from vlc_harness.sources import ImageFolder, UnpinnedFiles
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
    card = BenchmarkCard(
        title="MMVP-VLM",
        citation=(
            "Tong, Liu, Zhai, Ma, LeCun, Xie. Eyes Wide Shut? Exploring the Visual Shortcomings of Multimodal "
            "LLMs. CVPR 2024 (arXiv:2401.06209)."
        ),
        homepage=HF_PAGE,
        license="MIT (Hugging Face dataset MMVP/MMVP_VLM)",
        headline="pair_accuracy_macro",
        headline_source=(
            "Tong et al. (CVPR 2024) Table 1, MMVP-VLM 'Average' over the 9 patterns (also the repository's "
            "imgs/vlm_results.png @ 7635005; scripts/evaluate_vlm.py prints each pattern)"
        ),
        captions_redistributable=True,
        reference_file=Path(__file__).with_name("mmvp_vlm_reference.json"),
    )
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

    def _dir(self) -> Path:
        return self.path(self.params.data_dir)

    def data_source(self) -> UnpinnedFiles:
        """Questions.csv, pinned by the hub commit only: the data version names its hash, ``hf-211372d-<sha12>``."""
        questions = {QUESTIONS: Path(self.params.data_dir) / QUESTIONS}
        return UnpinnedFiles(self.data_root, self.title, questions, self.params.version, hint=GET_HINT)

    def check_data(self) -> None:
        """Questions.csv present, pairs of consecutive rows, one Type per 15-pair block (270 rows unless custom)."""
        super().check_data()
        self._pairs()

    def _rows(self) -> list[list[str]]:
        with open(self._dir() / QUESTIONS, newline="", encoding="utf-8-sig") as f:
            rows = [row for row in csv.reader(f) if row]
        return rows[1:]  # upstream skips the header row

    def _pairs(self) -> list[tuple[str, tuple[str, str, str], tuple[str, str, str]]]:
        """``(pattern, first row, second row)`` per pair; malformed data is DataUnavailable."""
        path = self._dir() / QUESTIONS
        rows = self._rows()
        if any(len(row) != 3 for row in rows):
            raise DataUnavailable(
                f"MMVP-VLM: {path} has a row without exactly 3 columns (Question ID, Type, Statement)"
            )
        if self.params.version != "custom" and len(rows) != N_STATEMENTS:
            raise DataUnavailable(f"MMVP-VLM: {path} has {len(rows)} statements, expected {N_STATEMENTS}; {GET_HINT}")
        if len(rows) % 2:
            raise DataUnavailable(f"MMVP-VLM: {path} has an odd number of statements ({len(rows)})")
        pairs = []
        for k in range(0, len(rows), 2):
            first, second = (tuple(r) for r in rows[k : k + 2])
            if not (first[0].isdigit() and second[0].isdigit()):
                raise DataUnavailable(f"MMVP-VLM: {path} row {k + 2} has a Question ID that is not a number")
            qid1, qid2 = int(first[0]), int(second[0])
            if qid1 % 2 != 1 or qid2 != qid1 + 1:
                raise DataUnavailable(
                    f"MMVP-VLM: {path} pairs question {qid1} with {qid2}; upstream's gold (odd ID: image 1) needs "
                    "an odd ID followed by the next even one"
                )
            block = (k // 2) // PAIRS_PER_PATTERN
            if block >= len(PATTERNS):
                raise DataUnavailable(f"MMVP-VLM: {path} has more than {len(PATTERNS) * PAIRS_PER_PATTERN} pairs")
            pairs.append((PATTERNS[block], first, second))  # type: ignore[arg-type]
        for block in range(0, len(pairs), PAIRS_PER_PATTERN):
            types = {p[1][1] for p in pairs[block : block + PAIRS_PER_PATTERN]}
            if len(types) != 1:
                raise DataUnavailable(
                    f"MMVP-VLM: {path} mixes the Types {sorted(types)} in the 15-pair block of pattern "
                    f"{pairs[block][0]!r}; upstream names patterns by position"
                )
        return pairs

    def load_instances(self) -> list[Instance]:
        """One instance per pair in file order; the second image and statement are listed first."""
        images = self._dir() / IMAGES
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
        return ImageFolder(self._dir() / IMAGES, GET_HINT)

    def fetch(self, images: bool = False, progress: bool = True) -> list[str]:
        """The pinned hub snapshot (Questions.csv and every image) with ``huggingface_hub``."""
        if self.params.version == "custom":
            return []
        folder = self._dir()
        if (folder / QUESTIONS).is_file() and (folder / IMAGES).is_dir():
            return [f"present  {folder}"]
        download_snapshot(HF_DATASET, HF_REVISION, folder, self.title)
        if not (folder / QUESTIONS).is_file():
            raise FetchError(f"{HF_DATASET}@{HF_REVISION[:7]} did not provide {QUESTIONS}: its layout has changed")
        return [f"fetched  {folder} (from {HF_DATASET}@{HF_REVISION[:7]})"]


@hookimpl
def register_benchmarks(register: Any) -> None:
    """Register the MMVP-VLM benchmark."""
    register(MMVPVLM)
