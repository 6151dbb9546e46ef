"""Frozen copy of v0.1's ``MetricValue`` (``vlc_harness.types``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class MetricValue:
    """One computed number: a metric over one category (``"all"`` for the whole benchmark)."""

    metric: str
    category: str
    value: float
    n: int
    ties: int
    tie_rule: str
    averaging: str

    def as_dict(self) -> dict[str, Any]:
        return {
            "metric": self.metric,
            "category": self.category,
            "value": self.value,
            "n": self.n,
            "ties": self.ties,
            "tie_rule": self.tie_rule,
            "averaging": self.averaging,
        }
