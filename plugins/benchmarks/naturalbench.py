"""NaturalBench (Li et al., NeurIPS 2024 Datasets and Benchmarks): two questions, two natural images.

Each of the 1,900 groups pairs two images with two questions whose answers differ between the
images, so a model that ignores the image cannot score: question 0 is answered Yes (or A) about
image 0 and No (or B) about image 1, question 1 the other way round. Questions are ``yes_no``
(answers Yes/No) or ``multiple_choice`` (the options are in the question, answers A/B).

Protocol (github.com/Baiqi-Li/NaturalBench @ 9967605, ``naturalbench_vqa.py``): the model is asked
each question about each image, the question followed directly (no space) by ``Please answer Yes
or No.`` or ``Please output the letter corresponding to the correct option.``; the reply's answer
is the option it mentions first as a whole word, case-insensitively, and a reply mentioning
neither is wrong (``extract_answer``; :func:`vlc_harness.choices.first_option_mentioned`).
Models that score by likelihood pick the likelier option (``vqa_likelihood``). It is a
question-answering benchmark only: models that score image-text pairs are skipped, as the
reference defines no contrastive form (its separate NaturalBench-Retrieval set is not this one).

Metrics (``get_scores``; :mod:`vlc_harness.metrics.answers`): ``acc`` (each answer), ``q_acc``
(a question right about both images), ``i_acc`` (an image with both questions right) and
``g_acc`` (all four; the headline). The reference compares the answers with the fixed layout
above rather than with the gold columns; ``check_data`` refuses data whose gold answers depart
from that layout, so both readings agree. Per question type as categories, per source as tags
where the export has a ``Source`` field. Chance (uniform answers): 1/2, 1/4, 1/4, 1/16.

Data: the Hugging Face dataset ``BaiqiL/NaturalBench`` (Apache-2.0), split ``train`` as the
reference loads it, pinned to hub commit ``b6a84a1``: the newest full commit id that could be read
here, whose ``data/`` parquet files come from upload ``dd38be1``. The dataset's files have been
re-uploaded since (``7dd10be`` replaced the parquet files); that commit's full id could not be
read, so it is not used. No checksum of the export could be verified (no network): the data
version names the sha256 of the exported rows (``hf-b6a84a1-<sha12>``).
``vlc-harness data fetch -b naturalbench`` exports it (``pip install 'vlc-harness[data]'``)::

    <data root>/naturalbench/naturalbench.jsonl        # one row per group, the HF fields, with
                                                        # Image_0/Image_1 as file names
    <data root>/naturalbench/images/<Index>_<k>.<ext>   # bytes as stored in the dataset

The dataset's question-type column is read as ``Question_Type`` or ``Question Type`` (copies of
both spellings circulate), with values ``yes_no``/``yes or no`` and ``multiple_choice``/``multiple choice``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from vlc_harness import hookimpl
from vlc_harness.benchmarks import Benchmark
from vlc_harness.choices import Question, vqa_question
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
from vlc_harness.metrics import Micro, PerCategory, Tags
from vlc_harness.metrics.answers import QuestionImageGroup, order
from vlc_harness.types import ImageSource, Instance

HF_DATASET = "BaiqiL/NaturalBench"
HF_REVISION = "b6a84a18ba24544169681d4b15543dd103d4d3bb"
REPO = "https://github.com/Baiqi-Li/NaturalBench"
ROWS = "naturalbench.jsonl"
GROUPS = 1900
ANSWER_FIELDS = {(q, i): f"Image_{i}_Question_{q}" for q in (0, 1) for i in (0, 1)}
FIELDS = ("Index", "Image_0", "Image_1", "Question_0", "Question_1", *ANSWER_FIELDS.values())
TYPES = {"yes_no": "yes_no", "yes or no": "yes_no", "multiple_choice": "multiple_choice"}
TYPES["multiple choice"] = "multiple_choice"
OPTIONS = {"yes_no": ("Yes", "No"), "multiple_choice": ("A", "B")}
SUFFIX = {
    "yes_no": "Please answer Yes or No.",
    "multiple_choice": "Please output the letter corresponding to the correct option.",
}
GET_HINT = (
    f"run `vlc-harness data fetch -b naturalbench` (needs `pip install 'vlc-harness[data]'`), which exports "
    f"https://huggingface.co/datasets/{HF_DATASET} into naturalbench/{ROWS} and naturalbench/images/"
)


@dataclass(frozen=True)
class NaturalBenchParams:
    """Data version and where the export is (relative to the data root)."""

    version: Literal["hf-b6a84a1", "custom"] = "hf-b6a84a1"
    data_dir: str = "naturalbench"


class NaturalBench(Benchmark):
    """NaturalBench: each of two questions asked about each of two images (answers, not scores)."""

    type_name = "naturalbench"
    title = "NaturalBench"
    citation = (
        "Li, Lin, Peng, Nyandwi, Jiang, Ma, Khanuja, Krishna, Neubig, Ramanan. NaturalBench: Evaluating "
        "Vision-Language Models on Natural Adversarial Samples. NeurIPS 2024 Datasets and Benchmarks "
        "(arXiv:2410.14669)."
    )
    homepage = REPO
    license = "Apache-2.0 (Hugging Face dataset BaiqiL/NaturalBench)"
    headline = "g_acc"
    headline_source = (
        "Li et al. (NeurIPS 2024 D&B): G-Acc over the 1,900 groups, as get_scores in naturalbench_vqa.py "
        "(Baiqi-Li/NaturalBench @ 9967605) computes it; the paper's results table number could not be read here"
    )
    index_metrics = ("q_acc", "i_acc", "acc")
    captions_redistributable = True
    answers_only = True
    Params = NaturalBenchParams
    metrics = (
        QuestionImageGroup(
            {"acc": "acc", "question": "q_acc", "image": "i_acc", "group": "g_acc"},
            (
                PerCategory(unit="question type"),
                Tags(lambda inst: [f"source: {inst.gold['source']}"] if inst.gold.get("source") else []),
                Micro(),
            ),
        ),
    )

    def _file(self) -> Path:
        return self.path(self.params.data_dir) / ROWS

    @property
    def data_version(self) -> str:
        """``hf-b6a84a1-<sha12>`` or ``custom-<sha12>`` of the exported rows."""
        path = self._file()
        digest = short_sha256(path)
        return f"{self.params.version}-{digest}"

    def check_data(self) -> None:
        """The rows present, each in the reference's answer layout; 1,900 groups unless custom."""
        path = self._file()
        if not path.is_file():
            raise DataUnavailable(f"NaturalBench data is not ready: missing {path}; {GET_HINT}")
        rows = self._rows()
        if self.params.version != "custom" and len(rows) != GROUPS:
            raise DataUnavailable(f"NaturalBench: {path} has {len(rows)} groups, expected {GROUPS}; {GET_HINT}")

    def _rows(self) -> list[dict[str, Any]]:
        return read_jsonl(self._file(), "NaturalBench", FIELDS, _checked, key="Index")

    def load_instances(self) -> list[Instance]:
        """Every group in file order, id ``<question type>/<Index>``; texts are the two questions as asked."""
        images = self.image_dir()
        return [
            Instance(
                id=f"{row['type']}/{row['Index']}",
                category=row["type"],
                images=(ImageSource(images / row["Image_0"]), ImageSource(images / row["Image_1"])),
                texts=tuple(row[f"Question_{q}"] + SUFFIX[row["type"]] for q in (0, 1)),
                gold={"answers": row["answers"], "source": str(row.get("Source") or "")},
            )
            for row in self._rows()
        ]

    def questions(self, instance: Instance) -> list[Question]:
        """Question ``q`` about image ``i`` for the four (q, i), in the reference's order."""
        options = OPTIONS[instance.category]
        answers = instance.gold["answers"]
        return [vqa_question(i, q, options, answers[order(q, i)], order(q, i)) for q in (0, 1) for i in (0, 1)]

    def image_dir(self) -> Path:
        """The exported images."""
        return self.path(self.params.data_dir) / "images"

    def image_hint(self) -> str:
        """How to get the images."""
        return GET_HINT

    def fetch(self, images: bool = False, progress: bool = True) -> list[str]:
        """Export the dataset's ``train`` split (rows and image bytes as stored)."""
        if self.params.version == "custom":
            return []
        path = self._file()
        if path.is_file():
            done = present(path, self.image_dir(), [r[k] for r in self._rows() for k in ("Image_0", "Image_1")])
            if done:
                return [done]
        return export_split(_load_split(progress), path, self.image_dir(), progress)


def _checked(row: dict[str, Any]) -> dict[str, Any]:
    """A row (with ``FIELDS``) and its normalized ``type`` and gold ``answers`` in answer-column
    order, after checking the reference's layout (q0: Yes/A on image 0, No/B on image 1; q1 the reverse)."""
    kind = row.get("Question_Type", row.get("Question Type"))
    if kind is None:
        raise ValueError("lacks Question_Type")
    if str(kind).strip().lower() not in TYPES:
        raise ValueError(f"unknown question type {kind!r} (known: {', '.join(TYPES)})")
    kind = TYPES[str(kind).strip().lower()]
    options = OPTIONS[kind]
    by_option = {o.lower(): o for o in options}
    answers = [None] * 4
    for (q, i), field in ANSWER_FIELDS.items():
        answer = by_option.get(str(row[field]).strip().lower())
        if answer is None:
            raise ValueError(f"{field} is {row[field]!r}, not one of {', '.join(options)}")
        answers[order(q, i)] = answer
    layout = [options[0], options[1], options[1], options[0]]
    if answers != layout:
        raise ValueError(f"gold answers {answers} depart from the reference's layout {layout}")
    return row | {"type": kind, "answers": answers}


def _load_split(progress: bool) -> Any:
    """The ``train`` split at the pinned commit, images undecoded (``datasets`` imported here only)."""
    try:
        import datasets
    except ImportError:
        raise FetchError(
            f"NaturalBench comes from the Hugging Face dataset {HF_DATASET}, which needs `datasets`: "
            "pip install 'vlc-harness[data]'"
        ) from None
    if not progress:
        datasets.disable_progress_bars()
    try:
        split = datasets.load_dataset(HF_DATASET, split="train", revision=HF_REVISION)
    except Exception as exc:  # the hub and datasets raise many types (offline, not found, layout)
        raise FetchError(f"cannot load {HF_DATASET}@{HF_REVISION[:7]}: {type(exc).__name__}: {exc}") from None
    for column in ("Image_0", "Image_1"):
        split = split.cast_column(column, datasets.Image(decode=False))
    return split


def export_split(split: Any, path: Path, images: Path, progress: bool = True) -> list[str]:
    """Write the rows (images as file names) and the image bytes as stored."""
    images.mkdir(parents=True, exist_ok=True)
    lines = []
    for k, row in split_rows(split, HF_DATASET, progress):
        require_fields(HF_DATASET, row, k, FIELDS)
        out = dict(row)  # the images are replaced by their file names below
        for i in (0, 1):
            where = f"{HF_DATASET} row {k} Image_{i}"
            out[f"Image_{i}"] = save_stored_image(row[f"Image_{i}"], images, f"{row['Index']}_{i}", where)
        lines.append(json.dumps(out, ensure_ascii=False))
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(path, ("\n".join(lines) + "\n").encode("utf-8"))
    return [f"fetched  {path} ({len(lines)} groups) and {2 * len(lines)} images from {HF_DATASET}@{HF_REVISION[:7]}"]


@hookimpl
def register_benchmarks(register: Any) -> None:
    """Register the NaturalBench benchmark."""
    register(NaturalBench)
