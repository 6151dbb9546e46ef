"""Rebuilding stored cells' metrics from their stored per-instance outcomes, with no model.

A cell keeps each instance's score matrix (or its answers) in the store's ``outcomes`` table, so
its metrics, intervals and replicates can be computed again whenever the metric code changes.
A cell is *stale* (:func:`stale_cells`) when its metrics version is not the one its benchmark's
declaration gives now: cells written by v0.1 (no metrics version: 200 resamples, replicates of
the overall values only), or after a benchmark's ``metrics_version``, families or the engine
changed. Nothing rebuilds them on opening a store: ``vlc-harness store upgrade`` does
(:func:`rebuild_cells`), and ``run`` rebuilds the cells it touches. A benchmark's instances
supply the gold structure (which text is the positive, a label, tags); they are loaded from the
data root and must match the cell's instance manifest, or the cell is left as it is and reported.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from vlc_harness.errors import InputError, Unavailable
from vlc_harness.instance_manifest import limit_per_category, manifest_hash
from vlc_harness.metrics.cell import NO_METRICS, cell_metrics, metrics_version
from vlc_harness.metrics.outcomes import ChoiceOutcomes, Outcomes
from vlc_harness.status import Status
from vlc_harness.store.store import CellRecord, Outcome, Store

if TYPE_CHECKING:
    from vlc_harness.plugins import Plugins


@dataclass
class RebuildReport:
    """Which cells were rebuilt, and why the others could not be."""

    rebuilt: list[CellRecord] = field(default_factory=list)
    skipped: dict[int, str] = field(default_factory=dict)
    """Cell id -> why it was left as it is."""


def rebuild_cells(
    store: Store,
    plugins: Plugins,
    data_root: Path,
    cells: list[CellRecord],
    done: Callable[[CellRecord], object] | None = None,
) -> RebuildReport:
    """Recompute the metrics of ``cells`` from their stored outcomes (see the module docstring),
    in place; ``done(cell)`` is called after each (a progress bar)."""
    report = RebuildReport()
    loaded: dict[tuple[str, str], Any] = {}
    for cell in cells:
        _rebuild(store, plugins, data_root, cell, loaded, report)
        if done is not None:
            done(cell)
    return report


def _rebuild(
    store: Store,
    plugins: Plugins,
    data_root: Path,
    cell: CellRecord,
    loaded: dict[tuple[str, str], Any],
    report: RebuildReport,
) -> None:
    assert cell.id is not None
    if cell.status in (Status.UNAVAILABLE, Status.SKIPPED) or not cell.n_scored:
        store.update_metrics(cell.id, cell.metrics, {}, NO_METRICS)
        report.rebuilt.append(cell)
        return
    try:
        key = _benchmark_key(cell)
        if key not in loaded:
            benchmark = _benchmark(plugins, cell, data_root)
            benchmark.check_data()
            loaded[key] = (benchmark, benchmark.load_instances())
        benchmark, instances = loaded[key]
    except (Unavailable, InputError) as exc:  # data absent, or a malformed file: its one sentence
        report.skipped[cell.id] = f"{cell.benchmark_id}: {exc}"
        return
    except Exception as exc:  # an unknown type or bad params: say so, keep the cell
        report.skipped[cell.id] = f"{cell.benchmark_id}: {type(exc).__name__}: {exc}"
        return
    chosen = limit_per_category(instances, cell.instance_limit)
    if manifest_hash(benchmark.data_version, chosen) != cell.manifest_hash:
        report.skipped[cell.id] = f"{cell.benchmark_id}: the data under {data_root} is not the data of this cell"
        return
    rows = {o.instance_id: o for o in store.outcomes(cell.id)}
    outcomes, coverage = outcome_arrays(chosen, rows)
    computed = cell_metrics(benchmark, outcomes, coverage=coverage or _had_coverage(cell))
    version = metrics_version(benchmark, computed.samples)
    store.update_metrics(cell.id, computed.metrics, computed.replicates, version)
    report.rebuilt.append(cell)


def _benchmark_key(cell: CellRecord) -> tuple[str, str]:
    return cell.benchmark_type, repr(sorted(cell.provenance.get("benchmark_params", {}).items()))


def _benchmark(plugins: Plugins, cell: CellRecord, data_root: Path) -> Any:
    """The cell's benchmark with the params it ran with (nothing is read from the data root yet)."""
    from vlc_harness.params import build

    cls = plugins.benchmarks.get(cell.benchmark_type).cls
    return cls(build(cls.Params, cell.provenance.get("benchmark_params", {})), data_root)


def outcome_arrays(instances: list[Any], rows: dict[str, Outcome]) -> tuple[Outcomes | ChoiceOutcomes, bool]:
    """Outcome arrays from stored outcome rows (failed instances left out), and whether any
    instance abstained. Text-text scores are read when every kept row holds them (cells of
    ``embed`` models on a benchmark with text-text metrics)."""
    kept = [inst for inst in instances if inst.id in rows and rows[inst.id].error is None]
    if kept and rows[kept[0].id].scores is None:  # a multiple-choice cell: answers per order
        orders = max(len(rows[i.id].answers or []) for i in kept)
        correct = np.zeros((len(kept), orders), dtype=bool)
        answered_orders = np.zeros((len(kept), orders), dtype=bool)
        for k, inst in enumerate(kept):
            for a in rows[inst.id].answers or []:
                correct[k, a["order"]] = a["choice"] is not None and a["choice"] == a["correct"]
                answered_orders[k, a["order"]] = a["choice"] is not None
        return ChoiceOutcomes(kept, correct, answered_orders), False
    shape = (max((len(i.images) for i in kept), default=1), max((len(i.texts) for i in kept), default=1))
    tensor = np.full((len(kept), *shape), np.nan)
    answered = np.ones(len(kept), dtype=bool)
    with_texts = bool(kept) and all(rows[i.id].text_scores is not None for i in kept)
    texts = np.full((len(kept), shape[1], shape[1]), np.nan) if with_texts else None
    kept_rows = [rows[i.id] for i in kept]
    stacked = _stacked([row.scores for row in kept_rows], tensor.shape)
    for k, row in enumerate(kept_rows):
        if stacked is None:
            _fill(tensor[k], row.scores)
        if texts is not None:
            _fill(texts[k], row.text_scores)
        if row.answers:
            answered[k] = not any(d.get("abstained") for d in row.answers)
    return Outcomes(kept, tensor if stacked is None else stacked, answered, texts), bool((~answered).any())


def _stacked(matrices: list[Any], shape: tuple[int, ...]) -> np.ndarray | None:
    """The stored matrices as one array of ``shape`` (``None`` read as NaN) where every one has that shape: one
    copy instead of one per instance; ``None`` where they differ (:func:`_fill` copies them one by one)."""
    try:
        values = np.array(matrices, dtype=np.float64)
    except (ValueError, TypeError):  # matrices of several shapes, or an instance with none
        return None
    return values if values.shape == shape else None


def _fill(target: np.ndarray, stored: list[list[float | None]] | None) -> None:
    """Write a stored matrix (``None`` where there is no score) into the top-left of ``target``."""
    matrix = np.array(stored or [], dtype=np.float64)  # None reads as NaN
    if matrix.size:
        target[: matrix.shape[0], : matrix.shape[1]] = matrix


def _had_coverage(cell: CellRecord) -> bool:
    return any(m.get("metric") == "coverage" for m in cell.metrics)


def stale_cells(store: Store, plugins: Plugins, data_root: Path) -> list[CellRecord]:
    """The latest cells (one per model and benchmark, as ``show`` and the board read them) whose
    metrics were computed under another metrics version than their benchmark's declaration gives
    now, at the cell's own resample count: v0.1 cells (none recorded) and cells from before a
    change to the engine, the benchmark's families or its ``metrics_version``. A cell without
    metrics (``unavailable``, ``skipped``) is stale only when v0.1 wrote it; a cell whose benchmark
    type is not loaded here cannot be judged and is left out. Nothing is read from the data root."""
    out = []
    benchmarks: dict[tuple[str, str], Any] = {}
    for cell in store.latest_cells():
        if cell.metrics_version == NO_METRICS:
            continue
        if cell.metrics_version is None:
            out.append(cell)
            continue
        key = _benchmark_key(cell)
        if key not in benchmarks:
            try:
                benchmarks[key] = _benchmark(plugins, cell, data_root)
            except Exception:  # not loaded here (a third party's type), or params it no longer takes
                benchmarks[key] = None
        samples = resamples_of(cell.metrics_version)
        if benchmarks[key] is not None and samples is not None:
            if metrics_version(benchmarks[key], samples) != cell.metrics_version:
                out.append(cell)
    return out


def resamples_of(version: str) -> int | None:
    """The resample count a metrics version was computed with (``e2.b1000.<digest>``, see
    :func:`vlc_harness.metrics.cell.metrics_version`), or ``None`` for another form."""
    parts = version.split(".")
    if len(parts) == 3 and parts[1].startswith("b") and parts[1][1:].isdigit():
        return int(parts[1][1:])
    return None
