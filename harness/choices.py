"""Multiple-choice questions built from instances, for models that answer instead of scoring.

A benchmark that offers a multiple-choice form returns :class:`Question` objects from
:meth:`~vlc_harness.benchmarks.Benchmark.questions`: which of the instance's images and texts are
shown, in which order, and which candidate is correct. Each question is asked in every
presentation order the benchmark asks for (SugarCrepe's GPT-4V protocol: both caption orders),
so position bias shows and is averaged out.

A ``vqa`` question asks something about one image and offers fixed answers (NaturalBench: Yes/No,
or the letters A/B): the instance text at ``prompt`` is the question, ``options`` the answers.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from vlc_harness.types import Instance, canonical_json


@dataclass(frozen=True)
class Question:
    """One presentation of a choice: candidates in order and the correct one's position.

    ``kind`` ``"i2t"``: one image (``images[0]``), candidates are ``texts``. ``kind`` ``"t2i"``:
    one text (``texts[0]``), candidates are ``images``. ``kind`` ``"vqa"``: one image, the question
    is instance text ``prompt`` and the candidates are the literal ``options``. Indices refer to the
    instance's images and texts; ``order`` numbers the presentation orders of the same choice
    (0: gold first), or, for ``vqa``, the instance's questions (see the benchmark's family).
    """

    kind: Literal["i2t", "t2i", "vqa"]
    images: tuple[int, ...]
    texts: tuple[int, ...]
    correct: int
    order: int
    prompt: int | None = None
    options: tuple[str, ...] = ()

    def candidates(self, instance: Instance) -> list[str]:
        """The texts shown: the candidate captions (``i2t``), the caption (``t2i``) or the options (``vqa``)."""
        return list(self.options) if self.kind == "vqa" else [instance.texts[j] for j in self.texts]

    def asked(self, instance: Instance) -> str:
        """The question put to the model (``vqa``); empty for caption choices."""
        return instance.texts[self.prompt] if self.prompt is not None else ""

    def key(self, instance: Instance, image_keys: Sequence[str]) -> str:
        """Store key of this question of ``instance`` (``image_keys``: the instance's image keys)."""
        shown = [image_keys[i] for i in self.images]
        return question_key(self.kind, shown, self.candidates(instance), self.asked(instance))


def rotations(gold: int, others: Sequence[int]) -> list[tuple[tuple[int, ...], int]]:
    """Every cyclic order of ``gold`` plus ``others``: (candidates, position of gold), gold first first."""
    base = (gold, *others)
    out = []
    for shift in range(len(base)):
        order = base[-shift:] + base[:-shift] if shift else base
        out.append((order, order.index(gold)))
    return out


def i2t_questions(instance: Instance, image: int, gold_text: int) -> list[Question]:
    """Pick the caption for ``image`` among all the instance's texts, in every cyclic order."""
    others = [j for j in range(len(instance.texts)) if j != gold_text]
    return [
        Question("i2t", (image,), candidates, correct, order)
        for order, (candidates, correct) in enumerate(rotations(gold_text, others))
    ]


def vqa_question(image: int, prompt: int, options: Sequence[str], answer: str, order: int) -> Question:
    """Ask instance text ``prompt`` about instance image ``image``; ``answer`` is the correct option."""
    return Question("vqa", (image,), (), tuple(options).index(answer), order, prompt, tuple(options))


def question_key(kind: str, image_keys: Sequence[str], texts: Sequence[str], question: str = "") -> str:
    """Store key of a question: what is shown, in the order shown (and what is asked, for ``vqa``)."""
    content: dict[str, object] = {"kind": kind, "images": list(image_keys), "texts": list(texts)}
    if question:
        content["question"] = question
    return hashlib.sha256(canonical_json(content).encode()).hexdigest()


def first_option_mentioned(reply: str, options: Sequence[str]) -> int | None:
    """The option a free-text reply gives: the one whose first whole-word, case-insensitive
    mention comes earliest; ``None`` when none is mentioned (an unparseable reply is wrong).

    This is NaturalBench's ``extract_answer`` (github.com/Baiqi-Li/NaturalBench,
    ``naturalbench_vqa.py``) for any number of options: "yes"/"no" or "A"/"B" there.
    """
    positions = []
    for k, option in enumerate(options):
        found = re.search(r"\b" + re.escape(option) + r"\b", reply, re.IGNORECASE)
        if found:
            positions.append((found.start(), k))
    return min(positions)[1] if positions else None


@dataclass(frozen=True)
class AnsweredQuestion:
    """A question and the model's choice (``None``: abstained or the request failed)."""

    question: Question
    choice: int | None
    error: str | None = None

    @property
    def correct(self) -> bool:
        """True when the chosen candidate is the correct one (an abstention is wrong)."""
        return self.choice == self.question.correct


@dataclass(frozen=True)
class InstanceAnswers:
    """An instance with the answers to all its questions."""

    instance: Instance
    answers: list[AnsweredQuestion]
