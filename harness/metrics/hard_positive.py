"""Hard positives (Kamath et al., ECCV 2024): augmented accuracy, brittleness and the drop.

An instance holds an image with its caption ``c``, a hard positive ``c_p`` (a meaning-preserving
edit) and a hard negative ``c_n``; the gold fields ``original``, ``positive`` and ``negative``
index them among the texts. With strict inequalities, as upstream ``run_eval.py``:

* ``aug``: ``s(c) > s(c_n)`` and ``s(c_p) > s(c_n)`` (Aug. Test Acc.); an abstention is wrong;
* ``brittle`` (lower is better): ``c_n`` strictly between ``c`` and ``c_p``, in either order;
  an abstained instance counts as brittle;
* ``drop`` (lower is better): ``orig - aug`` per instance (``orig``: ``s(c) > s(c_n)``), so over
  answered instances the drop is the original accuracy minus the augmented one. Over all asked
  instances an abstention counts as a full drop (1, the worst case): counting it wrong in both
  accuracies would give it a drop of 0, the best case, and declining hard instances would shrink
  the drop (12 of 16 declined, 1 drop among the 4 answered: 1/16 instead of 13/16).

Ties counted: ``s(c_n)`` equal to ``s(c)`` or ``s(c_p)``. :class:`MeanScore` reports the mean raw
score of one caption role (Table 2), over answered instances by definition.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from vlc_harness.metrics.aggregate import Aggregation
from vlc_harness.metrics.engine import Column
from vlc_harness.metrics.family import Family, Reported
from vlc_harness.metrics.outcomes import Outcomes
from vlc_harness.metrics.ties import Beats, expected_under_random_ties

ROLES = ("original", "positive", "negative")
DEFAULT_IDS = {"aug": "aug_accuracy", "brittle": "brittleness", "drop": "accuracy_drop"}
TEXTS = {
    "aug": ("s(c) > s(c_n) and s(c_p) > s(c_n) (Aug. Test Acc.)", True, 1 / 3),
    "brittle": (
        "s(c_n) strictly between s(c) and s(c_p), in either order (lower is better; a tie is never brittle; "
        "an abstention is)",
        False,
        1 / 3,
    ),
    "drop": (
        "orig_accuracy - aug_accuracy over the same instances (the paper's '(-drop)'; lower is better; "
        "an abstention is a full drop)",
        False,
        None,
    ),
}


def role_entries(outcomes: Outcomes) -> np.ndarray:
    """``[N, 3]``: each instance's scores of c, c_p and c_n (image 0)."""
    index = np.array([[inst.gold.get(r, j) for j, r in enumerate(ROLES)] for inst in outcomes.instances])
    if not len(index):
        return np.zeros((0, 3))
    rows = outcomes.scores[:, 0, :]
    return np.take_along_axis(rows, index.astype(np.int64), axis=1)


def _verdicts(b: Beats) -> list[np.ndarray]:
    c_above, p_above = b(0, 2), b(1, 2)
    aug = c_above & p_above
    brittle = (c_above & b(2, 1)) | (p_above & b(2, 0))
    drop = c_above.astype(np.float64) - aug
    return [aug, brittle, drop]


class HardPositive(Family):
    """Augmented accuracy, brittleness and accuracy drop; ``ids`` renames them, ``report`` picks
    which of ``aug``, ``brittle`` and ``drop`` are reported."""

    name = "hard_positive"
    version = "2"  # 2: an abstention counts as a full drop (was 0, which rewarded declining)

    def __init__(
        self,
        aggregate: Sequence[Aggregation | str] = ("per-category", "micro"),
        *,
        ids: Mapping[str, str] | None = None,
        report: Sequence[str] = ("aug", "brittle", "drop"),
        tie_rule: str | None = None,
        categories: Sequence[str] | None = None,
    ) -> None:
        super().__init__(aggregate, tie_rule, categories, self.name)
        unknown = sorted(set(report) - set(TEXTS))
        if unknown or not report:
            raise ValueError(f"{self.name}: report must name some of {', '.join(TEXTS)}, got {list(report)}")
        self.ids = {**DEFAULT_IDS, **(ids or {})}
        self.report = tuple(k for k in TEXTS if k in report)

    def reported(self) -> list[Reported]:
        return [
            Reported(self.ids[k], text, "i2t", chance, better)
            for k, (text, better, chance) in TEXTS.items()
            if k in self.report
        ]

    def columns(self, outcomes: Outcomes) -> list[Column]:
        entries = role_entries(outcomes)
        members = self.members(outcomes)
        if members is not None:
            entries = np.where(members[:, None], entries, np.nan)
        c, p, n = entries.T
        ties = (c == n) | (p == n)
        credits = _verdicts(lambda a, b: entries[:, a] > entries[:, b])
        halves = expected_under_random_ties(entries, _verdicts)
        rules = {"aug": "wrong", "brittle": "counts", "drop": "counts"}
        return [
            Column(
                self.ids[key],
                np.asarray(credit, dtype=np.float64),
                self.aggregations,
                members=members,
                ties=ties,
                tie_rule=self.tie_rule,
                abstention=rules[key],
                ties_half=half,
            )
            for key, credit, half in zip(TEXTS, credits, halves)
            if key in self.report
        ]


class MeanScore(Family):
    """The mean raw score of one caption role (``original``, ``positive``, ``negative``)."""

    name = "mean_score"
    tie_rules = ("n/a",)
    ties_half = False

    def __init__(
        self,
        role: str,
        aggregate: Sequence[Aggregation | str] = ("per-category", "micro"),
        *,
        id: str | None = None,
        categories: Sequence[str] | None = None,
    ) -> None:
        if role not in ROLES:
            raise ValueError(f"{self.name}: unknown role {role!r} (known: {', '.join(ROLES)})")
        super().__init__(aggregate, None, categories, f"{self.name} {role}")
        self.role, self.id = role, id or f"mean_score_{role}"

    def reported(self) -> list[Reported]:
        return [Reported(self.id, f"mean raw score of the {self.role} caption (Table 2)", "i2t")]

    def columns(self, outcomes: Outcomes) -> list[Column]:
        score = role_entries(outcomes)[:, ROLES.index(self.role)]
        members = self.members(outcomes)
        return [Column(self.id, score, self.aggregations, members=members, tie_rule="n/a", abstention="answered")]
