"""Read-only access to a store's results: cells, run provenance, per-instance outcomes and verdicts."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Protocol

from vlc_harness.records import CellRecord, Outcome
from vlc_harness.results.verdicts import InstanceVerdicts, instance_verdicts


class ReadableStore(Protocol):
    """What :class:`StoredResults` reads of a store (a :class:`~vlc_harness.store.Store` is one)."""

    def latest_cells(self, include_incomplete: bool = ..., with_replicates: bool = ...) -> list[CellRecord]: ...  # noqa: D102

    def run_provenance(self, run_id: int) -> dict[str, Any]: ...  # noqa: D102

    def outcomes(self, cell_id: int) -> Iterable[Outcome]: ...  # noqa: D102


class StoredResults:
    """What a store holds of results, read only: the one way a reader outside the engine (the
    board, ``show``, scripts) gets cells, outcomes and verdicts. Nothing here writes, migrates or
    rebuilds; opening and upgrading a store are the CLI's (``vlc-harness store upgrade``).

    ``store`` is an open :class:`~vlc_harness.store.Store` (or anything with its read methods).
    """

    def __init__(self, store: ReadableStore) -> None:
        self._store = store

    def cells(
        self,
        include_incomplete: bool = True,
        with_replicates: bool = False,
        models: Iterable[str] = (),
        benchmarks: Iterable[str] = (),
    ) -> list[CellRecord]:
        """The latest cell of each (model, benchmark), complete ones only unless
        ``include_incomplete``, with their replicates when ``with_replicates``; only those of
        ``models`` and ``benchmarks`` when given."""
        wanted_models, wanted_benchmarks = set(models), set(benchmarks)
        found = self._store.latest_cells(include_incomplete=include_incomplete, with_replicates=with_replicates)
        return [
            c
            for c in found
            if (not wanted_models or c.model_id in wanted_models)
            and (not wanted_benchmarks or c.benchmark_id in wanted_benchmarks)
        ]

    def run(self, run_id: int) -> dict[str, Any]:
        """The provenance of a run, with its start, end and status (empty for an unknown id)."""
        return self._store.run_provenance(run_id)

    def after_fork(self) -> None:
        """Call first in a process forked from the one that made this reader, before it reads: the store's
        :meth:`~vlc_harness.store.Store.after_fork` (a store without one holds no connection to share)."""
        hook = getattr(self._store, "after_fork", None)
        if hook is not None:
            hook()

    def instance_outcomes(self, cell: CellRecord) -> list[Outcome]:
        """The cell's stored per-instance outcomes (score matrices, answers or errors), in stored order
        (none for a cell that was never stored: it has no row id)."""
        if cell.id is None:
            return []
        return list(self._store.outcomes(cell.id))

    def verdicts(
        self, cell: CellRecord, benchmark: Any, instances: Sequence[Any], metric: str
    ) -> InstanceVerdicts | None:
        """The cell's per-instance verdicts on ``metric`` (:func:`vlc_harness.results.verdicts.instance_verdicts`),
        from its stored outcomes and the benchmark's ``instances`` (the gold structure)."""
        rows = {o.instance_id: o for o in self.instance_outcomes(cell)}
        return instance_verdicts(benchmark, instances, rows, metric)
