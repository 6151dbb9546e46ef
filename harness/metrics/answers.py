"""NaturalBench's scores from answers: two questions, each asked about two images.

Each of an instance's four questions is one answered presentation (a ``vqa`` question, see
:mod:`vlc_harness.choices`); question ``q`` about image ``i`` is column ``order(q, i) = 2q + i``
of the answers, which is the reference's order ``q0_i0, q0_i1, q1_i0, q1_i1``
(github.com/Baiqi-Li/NaturalBench, ``naturalbench_vqa.py``, ``get_scores``). Per instance:

* ``acc``: the share of the four answers that are right (Acc: right answers / 4N);
* ``question``: the share of the two questions answered right about both images (Q-Acc / 2N);
* ``image``: the share of the two images whose two questions are both answered right (I-Acc);
* ``group``: 1 when all four are right (G-Acc).

An answer is right when the model chose the gold option; an unparseable reply or a refusal is
wrong, as in the reference (its ``extract_answer`` returns -1, which matches neither answer).
Answers have no ties. Chance assumes independent uniform answers between two options.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from vlc_harness.metrics.aggregate import Aggregation, Micro, PerCategory
from vlc_harness.metrics.engine import Column
from vlc_harness.metrics.family import Family, Reported
from vlc_harness.metrics.outcomes import ChoiceOutcomes
from vlc_harness.metrics.pairwise import CHOICE_TIE_RULE


def order(question: int, image: int) -> int:
    """The answer column of ``question`` asked about ``image``."""
    return 2 * question + image


REPORTS = {
    "acc": ("each answer right (of the four per group)", 0.5),
    "question": ("a question answered right about both of its images", 0.25),
    "image": ("an image with both questions about it answered right", 0.25),
    "group": ("all four answers of the group right", 1 / 16),
}


class QuestionImageGroup(Family):
    """Acc, Q-Acc, I-Acc and G-Acc over 2 questions x 2 images of answers (see the module docstring).

    ``ids`` maps the scores to report (``acc``, ``question``, ``image``, ``group``) to metric ids.
    Only answering models have these metrics: a cell of scores raises.
    """

    name = "question_image_group"
    tie_rules = (CHOICE_TIE_RULE,)
    ties_half = False

    def __init__(
        self, ids: Mapping[str, str], aggregate: Sequence[Aggregation | str] = ("per-category", "micro")
    ) -> None:
        owner = f"{self.name} {', '.join(ids.values())}"
        unknown = sorted(set(ids) - set(REPORTS))
        if unknown:
            raise ValueError(f"{owner}: unknown score(s) {', '.join(unknown)} (known: {', '.join(REPORTS)})")
        super().__init__(aggregate, None, None, owner)
        self.ids = dict(ids)

    def reported(self) -> list[Reported]:
        return [Reported(metric, REPORTS[score][0], None, REPORTS[score][1]) for score, metric in self.ids.items()]

    def columns(self, outcomes: object) -> list[Column]:
        if not isinstance(outcomes, ChoiceOutcomes):
            raise TypeError(f"{self.owner}: these metrics are computed from answers, not from scores")
        return self.choice_columns(outcomes)

    def choice_columns(self, outcomes: ChoiceOutcomes) -> list[Column]:
        """The four scores per instance, and the share of answers that could be read (coverage)."""
        if outcomes.correct.shape[1] != 4:
            raise ValueError(f"{self.owner}: expected 4 answers per instance, got {outcomes.correct.shape[1]}")
        right = np.asarray(outcomes.correct, dtype=bool)
        r = {(q, i): right[:, order(q, i)] for q in (0, 1) for i in (0, 1)}
        credits = {
            "acc": right.mean(axis=1),
            "question": ((r[0, 0] & r[0, 1]).astype(np.float64) + (r[1, 0] & r[1, 1])) / 2,
            "image": ((r[0, 0] & r[1, 0]).astype(np.float64) + (r[0, 1] & r[1, 1])) / 2,
            "group": right.all(axis=1).astype(np.float64),
        }
        out = [
            Column(metric, credits[score], self.aggregations, tie_rule=CHOICE_TIE_RULE, abstention="keep")
            for score, metric in self.ids.items()
        ]
        answered = np.asarray(outcomes.answered, dtype=np.float64).mean(axis=1)
        out.append(Column("coverage", answered, (PerCategory(), Micro()), tie_rule=CHOICE_TIE_RULE, abstention="keep"))
        return out
