"""The base of metric families: one declaration gives both the specs the site shows and the values.

A benchmark declares its metrics as family instances (``metrics = (PairwiseAccuracy(...),)``).
A family knows how to read per-instance credits off outcome arrays (its :meth:`Family.columns`)
and which options it accepts; the declaration fixes the metric ids, descriptions, direction,
chance, tie rule and aggregations. Options are checked when the family is declared, and again
when the plugin registers, so a bad declaration fails at plugin load, naming the option.

A family type becomes known by name through the ``register_metric_families`` hook (the core's own
in :mod:`.families`); the shared conformance checks then run it on its :class:`FamilyExample`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from vlc_harness.metrics.aggregate import Aggregation, resolve
from vlc_harness.metrics.engine import TIES_HALF_RULE, Column
from vlc_harness.types import MetricSpec

if TYPE_CHECKING:
    from pathlib import Path

    from vlc_harness.types import Instance


@dataclass(frozen=True)
class Reported:
    """One metric a family reports: its id, text, direction, chance and whether higher is better."""

    id: str
    description: str
    direction: str | None = None
    chance: float | None = None
    higher_is_better: bool = True


@dataclass(frozen=True)
class FamilyExample:
    """A tiny outcome set for a family's conformance checks: declarations and how to make instances.

    The checks draw outcome sets of a few instances (``make_instance(k, rng)`` is the ``k``-th;
    random scores from {0, 1, 2}, so ties are frequent; some instances declined) and check every
    declaration on them: valid specs, the same columns twice, and that abstaining never beats
    answering.
    """

    families: tuple[Family, ...]
    """Declarations of the family to check (e.g. one per tie rule)."""
    make_instance: Callable[[int, Any], Instance]
    """The ``k``-th instance of an outcome set, given ``k`` and a seeded ``numpy.random.Generator``
    (its category, texts or gold may be drawn from it)."""
    orders: int = 0
    """0: the family reads scores; ``n``: it reads multiple-choice answers asked in ``n`` orders."""
    text_scores: bool = False
    """Whether the outcomes carry text-text scores (a family that reads ``text_pairs``)."""


class Family:
    """Base of metric families (see the module docstring)."""

    name: ClassVar[str]
    """The family's name, as error messages and the metrics version spell it."""
    version: ClassVar[str] = "1"
    """Bump when the family's metric code changes results: stored cells are then rebuilt."""
    tie_rules: ClassVar[tuple[str, ...]] = ("wrong",)
    """Tie rules this family supports; the first is the default."""
    ties_half: ClassVar[bool] = True
    """Whether the family reports ``<metric>_ties_half`` values."""

    def __init__(
        self,
        aggregate: Sequence[Aggregation | str],
        tie_rule: str | None,
        categories: Sequence[str] | None,
        owner: str,
    ) -> None:
        self.owner = owner
        rule = self.tie_rules[0] if tie_rule is None else tie_rule
        if rule not in self.tie_rules:
            raise ValueError(
                f"{owner}: tie rule {rule!r} is not supported by {self.name} (supported: {', '.join(self.tie_rules)})"
            )
        self.tie_rule = rule
        self.aggregations = resolve(aggregate, owner)
        if not self.aggregations:
            raise ValueError(f"{owner}: no aggregation declared")
        self.categories = tuple(categories) if categories is not None else None

    # -- what a family says about itself ----------------------------------------------------------
    def reported(self) -> list[Reported]:
        """The metrics this family computes per instance (before aggregation)."""
        raise NotImplementedError

    def spec_tie_rule(self) -> str:
        """The tie rule recorded in the specs."""
        return self.tie_rule

    def specs(self) -> list[MetricSpec]:
        """One spec per metric id this declaration reports (aggregates and variants included)."""
        out: dict[str, MetricSpec] = {}
        for r in self.reported():
            for agg in self.aggregations:
                mid = agg.metric_id(r.id)
                if mid in out:
                    continue
                text = agg.description or r.description
                averaging = self._averaging(r.id) if mid == r.id else agg.averaging()
                out[mid] = MetricSpec(
                    mid, text, averaging, self.spec_tie_rule(), r.higher_is_better, r.direction, r.chance
                )
        for spec in self.extra_specs():
            out.setdefault(spec.id, spec)
        for spec in list(out.values()):
            if self.ties_half and spec.tie_rule not in ("n/a", "half"):
                out[spec.id + "_ties_half"] = MetricSpec(
                    spec.id + "_ties_half",
                    f"{spec.description}; the expected value when ties are broken at random",
                    spec.averaging,
                    TIES_HALF_RULE,
                    spec.higher_is_better,
                    spec.direction,
                    spec.chance,
                )
            out[spec.id + "_answered"] = MetricSpec(
                spec.id + "_answered",
                f"{spec.description}; over the answered instances only (models that may abstain)",
                spec.averaging,
                spec.tie_rule,
                spec.higher_is_better,
                spec.direction,
                spec.chance,
            )
        return list(out.values())

    def extra_specs(self) -> list[MetricSpec]:
        """Specs of metrics a family reports besides :meth:`reported` (none by default)."""
        return []

    def _averaging(self, metric: str) -> str:
        parts = [a.averaging() for a in self.aggregations if a.metric_id(metric) == metric]
        return "; ".join(parts)

    # -- values -----------------------------------------------------------------------------------
    def columns(self, outcomes: Any) -> list[Column]:
        """Per-instance columns of this family over a cell's outcome arrays."""
        raise NotImplementedError

    def members(self, outcomes: Any) -> np.ndarray | None:
        """The instances this family covers (its declared categories), or ``None`` for all."""
        return None if self.categories is None else outcomes.in_categories(self.categories)

    def identity(self) -> str:
        """What the metrics version records of this declaration."""
        return f"{self.name}@{self.version}"

    @classmethod
    def conformance_example(cls, tmp_path: Path) -> FamilyExample | Sequence[FamilyExample] | None:
        """The outcome sets the shared conformance checks run this family on (``None``: none; a
        registered family without one fails them). A testing plugin's ``conformance_example`` hook
        answers first, so the example may live outside the family's module."""
        return None
