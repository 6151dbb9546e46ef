"""Compare a model's computed metrics with the paper-reported numbers for the same model.

A registry model entry names its paper rows with ``meta.paper_match`` (the ``matches`` field of
:class:`~vlc_harness.types.ReferenceRow`). A reference row is compared only with our metric of the
same id and category, on a cell of the same benchmark type and data version.
"""

from __future__ import annotations

from dataclasses import dataclass

from vlc_harness.store import CellRecord
from vlc_harness.types import ReferenceRow

DEFAULT_TOLERANCE = 0.005
"""Half a percentage point: papers print two decimals of a percentage, runs differ by hardware."""


@dataclass(frozen=True)
class Comparison:
    """One of our numbers next to the paper's."""

    benchmark_id: str
    metric: str
    category: str
    ours: float
    paper: float
    table: str
    citation: str

    @property
    def difference(self) -> float:
        """Ours minus the paper's (fractions)."""
        return self.ours - self.paper

    def within(self, tolerance: float) -> bool:
        """True when the absolute difference is at most ``tolerance``."""
        return abs(self.difference) <= tolerance + 1e-12


def compare_cell(cell: CellRecord, rows: list[ReferenceRow], paper_match: str) -> list[Comparison]:
    """Every reference row of ``paper_match`` that one of the cell's metrics can be compared with."""
    ours = {(m["metric"], m["category"]): float(m["value"]) for m in cell.metrics}
    out = []
    for row in rows:
        if row.matches != paper_match or (row.data_version and row.data_version != cell.data_version):
            continue
        value = ours.get((row.metric, row.category))
        if value is None:
            continue
        out.append(Comparison(cell.benchmark_id, row.metric, row.category, value, row.value, row.table, row.citation))
    return out
