"""Everything ``render`` reads, as one object: the board's facts, the run provenance it shows, which cells
are stale, the instance browser's data, each published cell's outcome records and the thumbnails.

:func:`board_data` builds it from a board bundle's document (:mod:`vlc_leaderboard.bundle`) and readers of
its parts. ``render --bundle`` reads them from the bundle's file; ``render`` from the store makes the same
document and records in memory (:mod:`vlc_leaderboard.export`) and reads them through the same function
(each record as the dict its line reads back to, not written and parsed as JSON), so that a site rendered
either way is the same, byte for byte.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from vlc_harness.errors import UserError
from vlc_harness.results import CellRecord
from vlc_leaderboard.board import BoardFacts
from vlc_leaderboard.bundle_codec import decode_cell, decode_facts, decode_instances
from vlc_leaderboard.instances import BenchmarkInstances

Replicates = dict[tuple[str, str], np.ndarray]


class BundleError(UserError):
    """A board bundle that cannot be read, or that lacks what render asks of it (one line, exit 2)."""


@dataclass(frozen=True)
class CellOutcomes:
    """A published cell's outcome records (:mod:`vlc_leaderboard.outcome_records`), in stored order, and each
    one's JSON line: what its scores download holds, as a bundle holds it."""

    records: list[dict[str, Any]]
    lines: list[str]


@dataclass
class BoardData:
    """Everything render reads (see the module docstring)."""

    facts: BoardFacts
    provenance: dict[str, str]
    """What the pages say made the board: ``harness_version``, ``git_sha`` and ``registry_digest``."""
    runs: dict[int, dict[str, Any]]
    """Each cell's run as the model pages show it: harness version, commit and package versions."""
    stale: set[int]
    """The ids of the cells whose metrics older metric code computed (render refuses to publish them)."""
    instances: dict[str, BenchmarkInstances]
    """The instance browser's data per benchmark, each model's scores not filled in yet."""
    outcomes: Callable[[CellRecord], CellOutcomes]
    """A published cell's outcome records and their lines."""
    thumbnails: Mapping[str, bytes]
    """The thumbnails the instance browser's images name, by file name."""
    after_fork: Callable[[], None] | None = None
    """What a process forked from this one runs before it reads :attr:`outcomes` or :attr:`thumbnails`: the
    store's connections dropped (:meth:`vlc_harness.results.StoredResults.after_fork`), the bundle reopened."""


def board_data(
    doc: Mapping[str, Any],
    replicates: Callable[[int], Replicates],
    records: Callable[[int], CellOutcomes],
    thumbnails: Mapping[str, bytes],
    after_fork: Callable[[], None] | None = None,
) -> BoardData:
    """The board data of a bundle's document, reading cell ``k``'s replicates and outcome records with
    ``replicates(k)`` and ``records(k)`` (from the bundle, its lines, each parsed and checked; from the store,
    the records those lines read back to, and their lines). ``after_fork``: :attr:`BoardData.after_fork`."""
    cells, index = [], {}
    for k, cell_doc in enumerate(doc["cells"]):
        reader = (lambda k=k: replicates(k)) if cell_doc["replicates"] is not None else None
        cell = decode_cell(cell_doc, reader)
        cells.append(cell)
        index[id(cell)] = k
    with_records = {k for k, cell_doc in enumerate(doc["cells"]) if cell_doc["outcomes"]}

    def outcomes(cell: CellRecord) -> CellOutcomes:
        k = index.get(id(cell))
        if k is None or k not in with_records:
            raise BundleError(f"the bundle holds no outcome records for {cell.model_id} x {cell.benchmark_id}")
        return records(k)

    return BoardData(
        decode_facts(doc, cells),
        dict(doc["provenance"]),
        {int(k): dict(v) for k, v in doc["runs"].items()},
        {cell.id for cell, d in zip(cells, doc["cells"]) if d["stale"] and cell.id is not None},
        decode_instances(doc["instances"]),
        outcomes,
        thumbnails,
        after_fork,
    )
