"""Pairwise accuracy: for an image, the gold text beats every competitor text.

SugarCrepe, VL-CheckList and ARO VG-Relation/Attribution (the caption against its hard
negative), hard positives' original accuracy (``c`` against ``c_n`` only). An instance counts
1 when ``s(image, gold) > s(image, competitor)`` for every competitor (the declared tie rule
decides equal scores), and counts as a tie when the gold score equals the best competitor's.

The same declaration scores multiple-choice answers (SugarCrepe's GPT-4V protocol): the value is
then the mean over presentation orders of each order's accuracy, with ``<id>_order<k>`` per order,
``<id>_answered`` over answered questions and ``coverage`` beside it.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from vlc_harness.metrics.aggregate import Aggregation, Micro, PerCategory, WordOrder
from vlc_harness.metrics.engine import Column
from vlc_harness.metrics.family import Family, Reported
from vlc_harness.metrics.outcomes import ChoiceOutcomes, Outcomes
from vlc_harness.metrics.word_order import pairwise_tag

CHOICE_TIE_RULE = "none: answers (an abstention is wrong)"
"""Tie rule recorded with values computed from multiple-choice answers (no scores, no ties)."""


class PairwiseAccuracy(Family):
    """Gold text against competitor texts for image 0; declare the metric id and aggregations.

    ``gold`` names the instance gold field holding the gold text's index; ``against`` names the
    field holding the one competitor (``None``: every other text of the instance). ``word_order``
    adds the word-order audit: each value also over the instances whose gold and competitor
    captions hold the same words in another string (``same-words``), are the same string
    (``identical-text``) or neither (``different-words``).
    """

    name = "pairwise_accuracy"
    version = "2"  # 2: the word-order audit reports identical-text apart from same-words
    tie_rules = ("wrong", "right", "first-index")

    def __init__(
        self,
        id: str,
        description: str,
        aggregate: Sequence[Aggregation | str] = ("per-category", "micro"),
        *,
        tie_rule: str | None = None,
        direction: str | None = "i2t",
        chance: float | None = 0.5,
        gold: str = "positive",
        against: str | None = None,
        categories: Sequence[str] | None = None,
        word_order: bool = True,
    ) -> None:
        if word_order:  # the word-order audit (see vlc_harness.metrics.word_order)
            aggregate = (*aggregate, WordOrder(lambda inst: pairwise_tag(inst, gold, against)))
        super().__init__(aggregate, tie_rule, categories, f"{self.name} {id!r}")
        self.id, self.description = id, description
        self.direction, self.chance = direction, chance
        self.gold, self.against = gold, against

    def reported(self) -> list[Reported]:
        return [Reported(self.id, self.description, self.direction, self.chance)]

    def columns(self, outcomes: Outcomes | ChoiceOutcomes) -> list[Column]:
        if isinstance(outcomes, ChoiceOutcomes):
            return self.choice_columns(outcomes)
        n = len(outcomes)
        gold = np.asarray(outcomes.gold(self.gold, 0), dtype=np.int64)
        width = outcomes.scores.shape[2]
        texts = np.fromiter((len(inst.texts) for inst in outcomes.instances), dtype=np.int64, count=n)
        row = outcomes.scores[:, 0, :]
        cols = np.arange(width)[None, :]
        if self.against is None:
            competitor = (cols < texts[:, None]) & (cols != gold[:, None])
        else:
            against = np.asarray(outcomes.gold(self.against, 1), dtype=np.int64)
            competitor = cols == against[:, None]
        gold_score = row[np.arange(n), gold]
        won = np.ones(n, dtype=bool)
        equal = np.zeros(n, dtype=np.int64)
        best = np.full(n, -np.inf)
        for j in range(width):
            other, on = row[:, j], competitor[:, j]
            if self.tie_rule == "wrong":
                win = gold_score > other
            elif self.tie_rule == "right":
                win = gold_score >= other
            else:  # first-index: the gold wins a tie against a candidate listed after it
                win = (gold_score > other) | ((gold_score == other) & (gold < j))
            won &= ~on | win
            equal += on & (other == gold_score)
            best = np.where(on, np.fmax(best, other), best)
        tied = gold_score == best
        strict = gold_score > best
        half = np.where(strict, 1.0, np.where(tied, 1.0 / (1 + equal), 0.0))
        column = Column(
            self.id,
            won.astype(np.float64),
            self.aggregations,
            members=self.members(outcomes),
            ties=tied,
            tie_rule=self.tie_rule,
            ties_half=half,
        )
        return [column]

    def choice_columns(self, outcomes: ChoiceOutcomes) -> list[Column]:
        """Order-averaged accuracy, each order's, answered-only accuracy and coverage."""
        correct = np.asarray(outcomes.correct, dtype=np.float64)
        answered = np.asarray(outcomes.answered, dtype=np.float64)
        members = self.members(outcomes)
        orders = correct.shape[1]
        out = [
            Column(
                self.id, correct.mean(axis=1), self.aggregations, members, tie_rule=CHOICE_TIE_RULE, abstention="keep"
            )
        ]
        per = (PerCategory(),)
        out += [
            Column(f"{self.id}_order{k}", correct[:, k], per, members, tie_rule=CHOICE_TIE_RULE, abstention="keep")
            for k in range(orders)
        ]
        out.append(
            Column(
                f"{self.id}_answered",
                (correct * answered).sum(axis=1),
                per,
                members,
                tie_rule=CHOICE_TIE_RULE,
                abstention="keep",
                den=answered.sum(axis=1),
            )
        )
        out.append(
            Column(
                "coverage",
                answered.mean(axis=1),
                (PerCategory(), Micro()),
                members,
                tie_rule=CHOICE_TIE_RULE,
                abstention="keep",
            )
        )
        return out
