"""Compare a model's computed metrics with the paper-reported numbers for the same model.

A registry model entry names its paper rows with ``meta.paper_match`` (the ``matches`` field of
:class:`~vlc_harness.types.ReferenceRow`). A reference row is compared only with our metric of the
same id and category, on a cell of the same benchmark type and data version, of an entry loaded the
same way: in the row's precision (``ReferenceRow.precision``; none stated: fp32).

Where the paper's evaluation loaded the model otherwise than the entry does (``meta.paper_params``:
ARO and SugarCrepe loaded NegCLIP with GELU, the board keeps the QuickGELU it was trained with),
the rows are compared with :func:`paper_entry`, the entry with those params (its own fingerprint
and cells, under the id ``<id>@paper``), and :func:`board_paper_match` keeps them off the entry's
own values on the board.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from vlc_harness.params import build
from vlc_harness.types import ReferenceRow

if TYPE_CHECKING:
    from vlc_harness.records import CellRecord
    from vlc_harness.registry import ModelEntry

PAPER_SUFFIX = "@paper"
"""Appended to an entry's id for its paper loading (never a registry id: ``@`` is not allowed there)."""

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


def same_loading(row: ReferenceRow, precision: str) -> bool:
    """Whether a reference row was computed in the precision the entry runs in (a row without one: fp32)."""
    return (row.precision or "fp32") == precision


def compare_cell(
    cell: CellRecord, rows: list[ReferenceRow], paper_match: str, precision: str = "fp32"
) -> list[Comparison]:
    """Every reference row of ``paper_match`` that one of the cell's metrics can be compared with: the
    same data version, and computed in the entry's ``precision`` (ARO's OpenAI-CLIP rows ran in fp16)."""
    ours = {(m["metric"], m["category"]): float(m["value"]) for m in cell.metrics}
    out = []
    for row in rows:
        if row.matches != paper_match or (row.data_version and row.data_version != cell.data_version):
            continue
        if not same_loading(row, precision):
            continue
        value = ours.get((row.metric, row.category))
        if value is None:
            continue
        out.append(Comparison(cell.benchmark_id, row.metric, row.category, value, row.value, row.table, row.citation))
    return out


def paper_entry(entry: ModelEntry) -> ModelEntry:
    """The entry as its paper's evaluation loaded it: ``meta.paper_params`` over its params (checked
    as params are: an unknown key or a wrong type raises :class:`~vlc_harness.params.ParamError`),
    under the id ``<id>@paper``; the entry itself when it has no ``paper_params``."""
    overrides = entry.meta.get("paper_params")
    if not overrides:
        return entry
    current = {f.name: getattr(entry.params, f.name) for f in dataclasses.fields(entry.params)}
    params = build(type(entry.params), current | dict(overrides), f"{entry.id}.meta.paper_params")
    return dataclasses.replace(entry, id=entry.id + PAPER_SUFFIX, params=params)


def board_paper_match(meta: Mapping[str, Any]) -> str | None:
    """The paper rows the board may put next to an entry's own values: ``paper_match``, unless the
    paper loaded the model with other params (``paper_params``), whose rows belong to that loading."""
    match = meta.get("paper_match")
    return None if meta.get("paper_params") else match
