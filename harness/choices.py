"""Multiple-choice questions built from instances, for models that answer instead of scoring.

A benchmark that offers a multiple-choice form returns :class:`Question` objects from
:meth:`~vlc_harness.benchmarks.Benchmark.questions`: which of the instance's images and texts are
shown, in which order, and which candidate is correct. Each question is asked in every
presentation order the benchmark asks for (SugarCrepe's GPT-4V protocol: both caption orders),
so position bias shows and is averaged out.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from vlc_harness.types import Instance, canonical_json


@dataclass(frozen=True)
class Question:
    """One presentation of a choice: candidates in order and the correct one's position.

    ``kind`` ``"i2t"``: one image (``images[0]``), candidates are ``texts``. ``kind`` ``"t2i"``:
    one text (``texts[0]``), candidates are ``images``. Indices refer to the instance's images
    and texts; ``order`` numbers the presentation orders of the same choice (0: gold first).
    """

    kind: Literal["i2t", "t2i"]
    images: tuple[int, ...]
    texts: tuple[int, ...]
    correct: int
    order: int


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


def question_key(kind: str, image_keys: Sequence[str], texts: Sequence[str]) -> str:
    """Store key of a question: what is shown, in the order shown."""
    content = {"kind": kind, "images": list(image_keys), "texts": list(texts)}
    return hashlib.sha256(canonical_json(content).encode()).hexdigest()


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
