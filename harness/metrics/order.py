"""ARO Order accuracy: pick the original caption among it and its word-order perturbations.

Text 0 of every instance is the original; texts 1.. are the perturbations, named by
``perturbations``. Categories are seeds (one category per perturbation seed). Reported:

* ``<id>`` per seed, their unweighted mean over seeds (``all``, ARO Table 5) and
  ``<id>_seed_std``, the sample standard deviation over seeds (the paper's +/-);
* ``<pairwise_id>`` per perturbation: the original against that perturbation alone, pooled over
  all cases of all seeds;
* ``<identical_id>`` per perturbation and ``any``: the share of cases whose perturbed caption
  equals the original (data, not the model: those ties count as the tie rule says).

The default tie rule is ``right``: ARO's first-index argmax picks the original (listed first) on a
tie; ``first-index`` gives the same verdicts here.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from vlc_harness.metrics.aggregate import Macro, Micro, PerCategory, Std
from vlc_harness.metrics.engine import Column
from vlc_harness.metrics.family import Family, Reported
from vlc_harness.metrics.outcomes import Outcomes
from vlc_harness.types import MetricSpec


class OrderAccuracy(Family):
    """The original caption against its perturbations; per seed, over seeds, per perturbation."""

    name = "order_accuracy"
    tie_rules = ("right", "wrong", "first-index")

    def __init__(
        self,
        id: str,
        perturbations: Sequence[str],
        *,
        pairwise_id: str,
        identical_id: str,
        chance: float,
        description: str = "",
        tie_rule: str | None = None,
    ) -> None:
        aggregate = (
            PerCategory(unit="seed"),
            Macro(what="seeds"),
            Std(f"{id}_seed_std", "sample standard deviation (ddof=1) of the per-seed accuracies", what="seeds"),
        )
        super().__init__(aggregate, tie_rule, None, f"{self.name} {id!r}")
        self.id, self.perturbations = id, tuple(perturbations)
        self.pairwise_id, self.identical_id = pairwise_id, identical_id
        self.chance, self.description = chance, description

    def reported(self) -> list[Reported]:
        return [Reported(self.id, self.description, "i2t", self.chance)]

    def extra_specs(self) -> list[MetricSpec]:
        pairwise = "original vs one perturbation (category: the perturbation), pooled over seeds"
        identical = "share of cases whose perturbed caption equals the original (category: the perturbation, or 'any')"
        pooled = "mean over all cases of all seeds"
        return [
            MetricSpec(self.pairwise_id, pairwise, pooled, self.tie_rule, True, "i2t", 0.5),
            MetricSpec(self.identical_id, identical, pooled, "n/a", False),
        ]

    def columns(self, outcomes: Outcomes) -> list[Column]:
        row = outcomes.scores[:, 0, : 1 + len(self.perturbations)]
        gold, others = row[:, 0], row[:, 1:]
        if self.tie_rule == "wrong":
            wins = gold[:, None] > others
        else:  # right, first-index: the original is listed first
            wins = gold[:, None] >= others
        best = others.max(axis=1)
        equal = (others == gold[:, None]).sum(axis=1)
        tied = gold == best
        half = np.where(gold > best, 1.0, np.where(tied, 1.0 / (1 + equal), 0.0))
        out = [
            Column(
                self.id,
                np.asarray(wins.all(axis=1), dtype=np.float64),
                self.aggregations,
                ties=tied,
                tie_rule=self.tie_rule,
                ties_half=half,
            )
        ]
        for j, name in enumerate(self.perturbations):
            one_tied = gold == others[:, j]
            out.append(
                Column(
                    self.pairwise_id,
                    wins[:, j].astype(np.float64),
                    (Micro(category=name),),
                    ties=one_tied,
                    tie_rule=self.tie_rule,
                    ties_half=np.where(gold > others[:, j], 1.0, np.where(one_tied, 0.5, 0.0)),
                )
            )
        flags = np.array([list(inst.gold["identical"]) for inst in outcomes.instances], dtype=bool).reshape(
            len(outcomes), -1
        )
        for j, name in enumerate([*self.perturbations, "any"]):
            flag = flags[:, j] if name != "any" else flags.any(axis=1)
            out.append(
                Column(
                    self.identical_id,
                    np.asarray(flag, dtype=np.float64),
                    (Micro(category=name),),
                    tie_rule="n/a",
                    abstention="keep",
                )
            )
        return out
