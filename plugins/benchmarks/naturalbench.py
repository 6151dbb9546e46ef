"""NaturalBench (Li et al., NeurIPS 2024 Datasets and Benchmarks): two questions, two natural images.

The reference (data layout, versions, metric definitions): its card, ``cards/naturalbench.md``."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from vlc_harness import hookimpl
from vlc_harness.benchmarks import Benchmark
from vlc_harness.cards import BenchmarkCard
from vlc_harness.choices import Question, vqa_question
from vlc_harness.metrics import Micro, PerCategory, Tags
from vlc_harness.metrics.answers import QuestionImageGroup, order
from vlc_harness.requires import Requires
from vlc_harness.sources import HfExport, HfSplit, ImageFolder
from vlc_harness.sources.fields import ID, NAME, SCALAR, TEXT, Malformed, found, value
from vlc_harness.types import ImageSource, Instance

HF_DATASET = "BaiqiL/NaturalBench"
HF_REVISION = "b6a84a18ba24544169681d4b15543dd103d4d3bb"
HF_SPLIT = HfSplit(HF_DATASET, "train", HF_REVISION, images=("Image_0", "Image_1"))
ROWS = "naturalbench.jsonl"
GROUPS = 1900
ANSWER_FIELDS = {(q, i): f"Image_{i}_Question_{q}" for q in (0, 1) for i in (0, 1)}
FIELDS = {
    "Index": ID,
    "Image_0": NAME,
    "Image_1": NAME,
    "Question_0": TEXT,
    "Question_1": TEXT,
    **dict.fromkeys(ANSWER_FIELDS.values(), SCALAR),
}
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
    requires = Requires(extras=("data",))
    card = BenchmarkCard.read(Path(__file__).with_name("cards") / "naturalbench.md")
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

    def data_source(self) -> HfExport:
        """The ``train`` split exported as ``naturalbench.jsonl`` and ``images/`` (unpinned: the data version
        names the rows' hash, ``hf-b6a84a1-<sha12>``), each row in the reference's answer layout; 1,900
        groups unless custom."""
        folder = Path(self.params.data_dir)
        return HfExport(
            self.data_root,
            self.title,
            folder / ROWS,
            self.params.version,
            HF_SPLIT,
            lambda row, k: f"{row['Index']}_{k}",
            images=folder / "images",
            hint=GET_HINT,
            fields=FIELDS,
            check=_checked,
            key="Index",
            count=GROUPS if self.params.version != "custom" else None,
            noun="groups",
            keep_all=True,
            version=self.params.version,
        )

    def load_instances(self) -> list[Instance]:
        """Every group in file order, id ``<question type>/<Index>``; texts are the two questions as asked."""
        source = self.data_source()
        return [
            Instance(
                id=f"{row['type']}/{row['Index']}",
                category=row["type"],
                images=(ImageSource(source.image(row, "Image_0")), ImageSource(source.image(row, "Image_1"))),
                texts=tuple(row[f"Question_{q}"] + SUFFIX[row["type"]] for q in (0, 1)),
                gold={"answers": row["answers"], "source": str(row.get("Source") or "")},
            )
            for row in source.rows()
        ]

    def questions(self, instance: Instance) -> list[Question]:
        """Question ``q`` about image ``i`` for the four (q, i), in the reference's order."""
        options = OPTIONS[instance.category]
        answers = instance.gold["answers"]
        return [vqa_question(i, q, options, answers[order(q, i)], order(q, i)) for q in (0, 1) for i in (0, 1)]

    def image_folder(self) -> ImageFolder:
        """The exported images."""
        return ImageFolder(self.path(self.params.data_dir) / "images", GET_HINT)


def _checked(row: dict[str, Any]) -> dict[str, Any]:
    """A row (with ``FIELDS``) and its normalized ``type`` and gold ``answers`` in answer-column
    order, after checking the reference's layout (q0: Yes/A on image 0, No/B on image 1; q1 the reverse)."""
    spelling = "Question_Type" if "Question_Type" in row or "Question Type" not in row else "Question Type"
    kind = value(row, spelling, TEXT)
    if kind.strip().lower() not in TYPES:
        raise Malformed(spelling, f"a known question type ({', '.join(TYPES)})", f"unknown question type {kind!r}")
    kind = TYPES[kind.strip().lower()]
    options = OPTIONS[kind]
    by_option = {o.lower(): o for o in options}
    answers: list[str | None] = [None] * 4
    for (q, i), field in ANSWER_FIELDS.items():
        answer = by_option.get(str(row[field]).strip().lower())
        if answer is None:
            raise Malformed(field, f"one of {', '.join(options)}", found(row[field]))
        answers[order(q, i)] = answer
    layout = [options[0], options[1], options[1], options[0]]
    if answers != layout:
        expected = f"the reference's layout of gold answers {layout}"
        raise Malformed(", ".join(ANSWER_FIELDS.values()), expected, f"{answers}, which depart from it")
    return row | {"type": kind, "answers": answers}


@hookimpl
def register_benchmarks(register: Any) -> None:
    """Register the NaturalBench benchmark."""
    register(NaturalBench)
