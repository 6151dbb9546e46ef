"""The leaderboard as data: what every page shows, built from the store's cells and the registry.

Pure: no Jinja, no files. Only complete cells are published; a cell that is unavailable or
failed shows its reason; partial cells (``--limit``, interrupted) are never shown as numbers.

Order and fairness:

* every ranked value's rank is 1 + the number of models significantly better on the same
  resamples (paired bootstrap, :mod:`vlc_leaderboard.stats`);
* a value whose outcomes are at least half ties (an image-blind model choosing between images)
  is ranked by its ``<metric>_ties_half`` replicates, the expected credit under random
  tie-breaking, and never holds the best-rank badge;
* rows are ordered by the overall column: the mean headline rank over the benchmarks that rank
  anyone, for the models complete on all of them; the others follow as "k of N benchmarks";
* human values the papers give only per category are derived where the declaration makes the
  value an unweighted mean of them (:mod:`vlc_leaderboard.declared`);
* paper-reported values of a model (``meta.paper_match``) sit next to ours, flagged when they fall
  outside our 95% interval, and compared only when the data versions match;
* a value computed with installed versions other than the pins is marked, and a row whose values
  were computed under different scoring stacks says which versions differ (:mod:`vlc_leaderboard.stacks`).

The parts: :mod:`vlc_leaderboard.columns` (a benchmark's column), :mod:`vlc_leaderboard.rows` (a
model's row and its cells), :mod:`vlc_leaderboard.reported` (the papers' values next to ours) and
:mod:`vlc_leaderboard.ranking` (ranks, order, the hackable mark); this module assembles them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from vlc_harness.results import CellRecord
from vlc_harness.status import Status
from vlc_leaderboard.columns import BenchmarkColumn, MetricColumn, benchmark_column
from vlc_leaderboard.ranking import hackable, order_rows, rank_column
from vlc_leaderboard.reported import reported_values
from vlc_leaderboard.rows import (
    KINDS,
    TIE_HEAVY,
    CellView,
    Overall,
    PaperValue,
    Row,
    Value,
    cell_overlap,
    cell_view,
    model_row,
)
from vlc_leaderboard.stacks import mixed_stacks_note, off_pin_text

if TYPE_CHECKING:
    from vlc_harness.plugins import Plugins
    from vlc_harness.registry import Registry

__all__ = [
    "KINDS",
    "TIE_HEAVY",
    "BenchmarkColumn",
    "Board",
    "BoardFacts",
    "CellView",
    "MetricColumn",
    "Overall",
    "PaperValue",
    "Row",
    "Value",
    "assemble_board",
    "board_facts",
    "build_board",
]


@dataclass
class Board:
    """Everything the site renders."""

    benchmarks: list[BenchmarkColumn]
    rows: list[Row]

    @property
    def counted(self) -> list[BenchmarkColumn]:
        """The benchmarks the overall column counts (N)."""
        return [c for c in self.benchmarks if c.ranked]


@dataclass
class BoardFacts:
    """What the board is assembled from: the cells, and what the registry and the plugins say of their
    models and benchmarks, as data. :func:`board_facts` gathers it with the plugins loaded; a board
    bundle (:mod:`vlc_leaderboard.bundle`) carries it to :func:`assemble_board` without them."""

    cells: list[CellRecord]
    """The latest cell of every (model, benchmark) the board lists, replicates loaded."""
    registry_models: list[str]
    """The registry's model ids, in its order."""
    registry_benchmarks: list[str]
    columns: list[BenchmarkColumn]
    """Every benchmark column, not ranked yet, in the board's order."""
    rows: list[Row]
    """Every model's row, without its cells, in the board's order before ranking."""


def build_board(
    cells: list[CellRecord], registry: Registry, plugins: Plugins, references: bool = True, include_adhoc: bool = True
) -> Board:
    """Assemble the board from the latest cell of every (model, benchmark).

    ``include_adhoc=False`` (what ``render`` publishes) keeps only the registry's models and
    benchmarks: a one-off run (``-m TYPE:params``, ``-b TYPE:params``) stays in the store and off
    the site.
    """
    return assemble_board(board_facts(cells, registry, plugins, references, include_adhoc))


def board_facts(
    cells: list[CellRecord], registry: Registry, plugins: Plugins, references: bool = True, include_adhoc: bool = True
) -> BoardFacts:
    """What the registry and the plugins say of the cells' models and benchmarks (see :func:`build_board`)."""
    if not include_adhoc:
        cells = [c for c in cells if c.model_id in registry.models and c.benchmark_id in registry.benchmarks]
    published = {c.benchmark_id for c in cells if c.status == Status.OK and c.complete}
    bench_ids = list(registry.benchmarks) + sorted(published - set(registry.benchmarks))
    model_ids = list(registry.models) + sorted({c.model_id for c in cells} - set(registry.models))
    columns = [
        benchmark_column(b, [c for c in cells if c.benchmark_id == b], registry, plugins, references) for b in bench_ids
    ]
    rows = [model_row(m, registry, plugins, [c for c in cells if c.model_id == m]) for m in model_ids]
    return BoardFacts(cells, list(registry.models), list(registry.benchmarks), columns, rows)


def assemble_board(facts: BoardFacts) -> Board:
    """The board from its facts: each cell's view, ranks, the hackable mark and the order. Pure data: no
    plugin, registry or store is read. The facts' columns and rows are filled in place."""
    by_pair = {(c.model_id, c.benchmark_id): c for c in facts.cells}
    columns, rows, registered = facts.columns, facts.rows, set(facts.registry_models)
    for row in rows:
        for col in columns:
            cell = by_pair.get((row.id, col.id))
            row.cells[col.id] = cell_view(cell, col) if cell else CellView(Status.NOT_RUN, "no cell in the store yet")
            row.cells[col.id].overlap = cell_overlap(row, col)
            row.cells[col.id].submitted = bool(row.meta.get("submitted"))
            row.cells[col.id].reported = reported_values(row, col, row.cells[col.id])
            row.cells[col.id].off_pin = off_pin_text(cell) if row.cells[col.id].published else ""
        shown = [(col.title, cv.cell) for col in columns if (cv := row.cells[col.id]).published and cv.cell]
        row.stack_note = mixed_stacks_note(shown)
    for col in columns:
        rank_column(col, rows)
        col.hackable = hackable(col, rows)
        col.ranked = bool(col.metrics) and any(
            r.cells[col.id].published and r.cells[col.id].values.get(col.metrics[0].metric, Value(0)).rank for r in rows
        )
    # Registry models show every cell they have (an unavailable one says why); a model known only
    # to the store appears once it has a published cell.
    rows = [
        r
        for r in rows
        if any(cv.published if r.id not in registered else cv.status != Status.NOT_RUN for cv in r.cells.values())
    ]
    return Board(columns, order_rows(rows, columns))
