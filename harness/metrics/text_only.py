"""SugarCrepe++'s text-only task (TOT): a caption triplet judged by text-text similarity alone.

An instance holds two positive captions ``P1`` and ``P2`` and a negative ``N``; the gold fields
``original``, ``positive`` and ``negative`` index them among the texts (as for
:mod:`.hard_positive`). TOT asks whether the text encoder places the positives closer to each
other than either is to the negative: ``s(P1, P2) > s(P1, N)`` and ``s(P1, P2) > s(P2, N)``,
strict (a tie is wrong), where ``s`` is the model's text-text similarity (by default the cosine of
its text embeddings: :meth:`~vlc_harness.models.EmbeddingModel.text_pair_scores`).

Upstream (github.com/Sri-Harsha/scpp @ c083bbf): ``VLMs/test_Variants_CLIP.py`` lines 76-78 take
the three cosines (``nn.CosineSimilarity(dim=1, eps=1e-6)`` of open_clip text features encoded with
``normalize=True``), line 88 the verdict with two strict ``>``, line 98 the mean per subset file;
``evaluate_ulms.py`` lines 164-169 apply the same verdict to dot products of unit vectors for
text-only models. The family reads only the outcomes' text-text scores
(:attr:`~vlc_harness.metrics.outcomes.Outcomes.text_scores`): cells of models that give none
(pair scorers, image-blind and answering models) leave its metrics out.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from vlc_harness.metrics.aggregate import Aggregation
from vlc_harness.metrics.engine import Column
from vlc_harness.metrics.family import Family, Reported
from vlc_harness.metrics.outcomes import Outcomes
from vlc_harness.metrics.ties import Beats, expected_under_random_ties
from vlc_harness.types import Instance

ROLES = ("original", "positive", "negative")
DESCRIPTION = (
    "text-only task (TOT): s(P1, P2) > s(P1, N) and s(P1, P2) > s(P2, N), s the text-text similarity "
    "(cosine of the text embeddings); the image is not read"
)


def _verdicts(b: Beats) -> list[np.ndarray]:
    return [b(0, 1) & b(0, 2)]


class TextOnlyTriplet(Family):
    """TOT accuracy over ``(P1, P2, N)`` triplets of text-text scores; ``id`` names the metric.

    :meth:`text_pairs` says which text pairs of an instance it reads, so the engine computes
    them; a family with that method is left out of cells without text-text scores.
    """

    name = "text_only_triplet"

    def __init__(
        self,
        aggregate: Sequence[Aggregation | str] = ("per-category", "micro"),
        *,
        id: str = "tot_accuracy",
        description: str = DESCRIPTION,
        tie_rule: str | None = None,
        categories: Sequence[str] | None = None,
    ) -> None:
        super().__init__(aggregate, tie_rule, categories, f"{self.name} {id!r}")
        self.id, self.description = id, description

    def reported(self) -> list[Reported]:
        return [Reported(self.id, self.description, "t2t", 1 / 3)]

    def text_pairs(self, instance: Instance) -> tuple[tuple[int, int], ...]:
        """The (text index, text index) pairs read: ``(P1, P2)``, ``(P1, N)`` and ``(P2, N)``."""
        p1, p2, n = (int(instance.gold.get(role, j)) for j, role in enumerate(ROLES))
        return ((p1, p2), (p1, n), (p2, n))

    def columns(self, outcomes: Outcomes) -> list[Column]:
        entries = triplet_entries(outcomes, self)
        members = self.members(outcomes)
        if members is not None:
            entries = np.where(members[:, None], entries, np.nan)
        same, first, second = entries.T
        (credit,) = _verdicts(lambda a, b: entries[:, a] > entries[:, b])
        (half,) = expected_under_random_ties(entries, _verdicts)
        return [
            Column(
                self.id,
                np.asarray(credit, dtype=np.float64),
                self.aggregations,
                members=members,
                ties=(same == first) | (same == second),
                tie_rule=self.tie_rule,
                abstention="wrong",
                ties_half=half,
            )
        ]


def triplet_entries(outcomes: Outcomes, family: TextOnlyTriplet) -> np.ndarray:
    """``[N, 3]``: each instance's ``s(P1, P2)``, ``s(P1, N)`` and ``s(P2, N)``."""
    if outcomes.text_scores is None:
        raise ValueError(f"{family.owner}: the outcomes hold no text-text scores")
    index = np.array([family.text_pairs(inst) for inst in outcomes.instances], dtype=np.int64).reshape(-1, 3, 2)
    rows = np.arange(len(index))[:, None]
    return outcomes.text_scores[rows, index[:, :, 0], index[:, :, 1]]


def text_pair_readers(families: Sequence[Family]) -> list[Family]:
    """The families that read text-text scores (those with a ``text_pairs`` method)."""
    return [f for f in families if hasattr(f, "text_pairs")]


def instance_text_pairs(readers: Sequence[Family], instance: Instance) -> tuple[tuple[int, int], ...]:
    """Every (text index, text index) pair of ``instance`` the ``readers`` read, each once, in order."""
    out: dict[tuple[int, int], None] = {}
    for family in readers:
        for pair in family.text_pairs(instance):  # type: ignore[attr-defined]
            out.setdefault(pair, None)
    return tuple(out)
