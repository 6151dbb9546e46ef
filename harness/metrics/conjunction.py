"""A group of instances counts when every one of its instances is correct (What'sUp's pair and set accuracy).

:class:`AllCorrect` stacks on a per-instance family (``of``, e.g. a :class:`PairwiseAccuracy`):
the instances of one category with the same group key (``key(instance)``; ``None``: in no group)
form a group, and the group's credit is 1 when every member's credit under ``of`` is 1, the
member's tie rule deciding its ties exactly as in its own value. Per group:

* a tie: one of its members is a tie (the group is then not won strictly, as the 2x2 group
  score counts a tie);
* ``<metric>_ties_half``: the product of its members' expected credits under random
  tie-breaking (the ties of different instances are broken independently);
* an abstained member is wrong, as in its own accuracy; the group is answered (for
  ``<metric>_answered``) only when all of its members are;
* with ``size`` declared, a group with another number of members in the cell (a member failed,
  or ``--limit`` cut the group) counts as wrong and stays in the denominator: What'sUp's rule
  (amitakamath/whatsup_vlms ``dataset_zoo/aro_datasets.py:395-398``, commit 7c1f255, starts every
  member of every object pair at 0, so a member never scored is wrong; lines 499-500 divide by
  ``len(dataset)/2`` and ``len(dataset)/4``, the number of complete groups). The denominator is the
  number of groups with at least one member in the cell: upstream's whenever no group loses every
  member (a group whose members all failed has no member here to carry it). Without ``size``, a
  group is judged on the members present.

Bootstrap: a group's credit is carried by one member, its representative (the member whose id
sorts first); the other members weigh 0. The engine's stratified bootstrap draws instances
within each category, so a resample holds a group as often as it drew its representative:
given the number ``m`` of representatives drawn, that is ``m`` groups drawn uniformly with
replacement, a cluster bootstrap over groups. The members' shared verdict is never counted as
independent evidence (resampling members would narrow the interval by up to the group size's
square root), and the replicates stay paired with the cell's other values and with other
models' cells over the same instances. ``m`` is binomial with mean ``g``, the number of groups,
which widens the interval by a factor below ``sqrt(1 + 1/g)`` (under 0.3% for What'sUp's ~200
groups). A resample that draws no representative of a category (probability below ``e**-g``:
tiny data only) has no value there, and the value then has no interval, as an AUC whose
resample holds one class.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from vlc_harness.metrics.aggregate import Aggregation
from vlc_harness.metrics.engine import Column
from vlc_harness.metrics.family import Family, Reported
from vlc_harness.metrics.outcomes import Outcomes
from vlc_harness.metrics.ties import TIE_RULES

GroupKey = Callable[[Any], str | None]
"""``key(instance)``: the instance's group within its category, or ``None`` for no group."""


class AllCorrect(Family):
    """Groups of instances sharing a key, each correct when all of its instances are (see the module docstring).

    ``of`` is the per-instance family whose column is conjoined (``column`` names it when ``of``
    reports several); the tie rule, categories and direction are its. ``size`` is the number of
    members a complete group has (an incomplete one is wrong; ``None``: whatever is present).
    ``chance`` is the group's.
    """

    name = "all_correct"
    version = "2"  # 2: an incomplete group counts as wrong (1 left it out)
    tie_rules = TIE_RULES

    def __init__(
        self,
        id: str,
        description: str,
        of: Family,
        key: GroupKey,
        aggregate: Sequence[Aggregation | str] = ("per-category", "micro"),
        *,
        size: int | None = None,
        chance: float | None = None,
        column: str | None = None,
    ) -> None:
        owner = f"{self.name} {id!r}"
        base = [r for r in of.reported() if column is None or r.id == column]
        if len(base) != 1:
            raise ValueError(f"{owner}: name one of {of.name}'s metrics as column= (it reports {len(base)})")
        if size is not None and size < 2:
            raise ValueError(f"{owner}: a group has at least 2 members (size={size})")
        super().__init__(aggregate, of.tie_rule, of.categories, owner)
        self.id, self.description, self.of, self.key = id, description, of, key
        self.base, self.size, self.chance = base[0], size, chance

    def reported(self) -> list[Reported]:
        b = self.base
        return [Reported(self.id, self.description, b.direction, self.chance, b.higher_is_better)]

    def identity(self) -> str:
        return f"{self.name}@{self.version}[{self.of.identity()}]"

    def columns(self, outcomes: Outcomes) -> list[Column]:
        base = next(c for c in self.of.columns(outcomes) if c.metric == self.base.id)
        if base.abstention != "wrong" or base.den is not None or base.labels is not None:
            raise ValueError(f"{self.owner}: {base.metric} is not a per-instance 0/1 accuracy")
        n = len(outcomes)
        answered = np.asarray(outcomes.answered, dtype=bool)
        inside = np.ones(n, dtype=bool) if base.members is None else np.asarray(base.members, dtype=bool)
        codes: dict[tuple[int, str], int] = {}
        group = np.full(n, -1, dtype=np.int64)
        for k, inst in enumerate(outcomes.instances):
            key = self.key(inst) if inside[k] else None
            if key is not None:
                group[k] = codes.setdefault((int(outcomes.category[k]), str(key)), len(codes))
        grouped = np.flatnonzero(group >= 0)
        ids = np.asarray([inst.id for inst in outcomes.instances], dtype=str)
        order = grouped[np.lexsort((ids[grouped], group[grouped]))]  # by group, then by id
        starts = np.flatnonzero(np.r_[True, group[order][1:] != group[order][:-1]]) if len(order) else order
        rep = order[starts]  # each group's member whose id sorts first

        def per_group(ufunc: np.ufunc, values: np.ndarray) -> np.ndarray:
            return ufunc.reduceat(values[order], starts) if len(order) else values[:0]

        credit = np.where(answered, np.asarray(base.credit, dtype=np.float64), 0.0)
        members = np.zeros(n, dtype=bool)
        members[rep] = True
        # a group of another size than declared is wrong: a missing member counts as a wrong answer
        complete = np.diff(np.r_[starts, len(order)]) == self.size if self.size else np.ones(len(rep), dtype=bool)
        out_credit, out_ties, out_answered = np.zeros(n), np.zeros(n, dtype=bool), np.ones(n, dtype=bool)
        out_credit[rep] = np.where(complete, per_group(np.multiply, credit), 0.0)
        if base.ties is not None:
            out_ties[rep] = complete & per_group(np.logical_or, np.asarray(base.ties, dtype=bool))
        out_answered[rep] = per_group(np.logical_and, answered)
        half = None
        if base.ties_half is not None:
            half = np.zeros(n)
            ties_half = per_group(np.multiply, np.where(answered, np.asarray(base.ties_half, dtype=np.float64), 0.0))
            half[rep] = np.where(complete, ties_half, 0.0)
        column = Column(
            self.id,
            out_credit,
            self.aggregations,
            members=members,
            ties=out_ties,
            tie_rule=self.tie_rule,
            ties_half=half,
            answered=out_answered,
        )
        return [column]
