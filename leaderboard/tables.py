"""Metric tables from the store (read through :mod:`vlc_harness.results`): one row per (cell,
metric, category), plus chance rows."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from vlc_harness.benchmarks import Benchmark
from vlc_harness.catalog import Registrar
from vlc_harness.params import ParamError, build
from vlc_harness.results import CellRecord, StoredResults

COLUMNS = ("model", "benchmark", "metric", "category", "value", "n", "ties", "tie_rule", "averaging", "status")


def select_cells(
    results: StoredResults,
    include_partial: bool = False,
    models: Iterable[str] = (),
    benchmarks: Iterable[str] = (),
) -> list[CellRecord]:
    """The latest cell of each (model, benchmark): complete ones only unless ``include_partial``."""
    return results.cells(include_incomplete=include_partial, models=models, benchmarks=benchmarks)


def metric_rows(cells: list[CellRecord]) -> list[dict[str, Any]]:
    """Every metric of every cell, overall and per category, with n, ties and status."""
    rows = []
    for cell in cells:
        if not cell.metrics:
            rows.append(
                {
                    "model": cell.model_id,
                    "benchmark": cell.benchmark_id,
                    "metric": "",
                    "category": "",
                    "value": None,
                    "n": cell.n_scored,
                    "ties": None,
                    "tie_rule": "",
                    "averaging": "",
                    "status": cell.status,
                    "error": (cell.error or "").splitlines()[0] if cell.error else "",
                }
            )
        for m in cell.metrics:
            rows.append({"model": cell.model_id, "benchmark": cell.benchmark_id, **m, "status": cell.status})
    return rows


def benchmark_of(cell: CellRecord, benchmarks: Registrar[Benchmark]) -> Benchmark | None:
    """The benchmark object a cell was computed with (its params are in the cell's provenance)."""
    registered = benchmarks.entries.get(cell.benchmark_type)
    if registered is None:
        return None
    try:
        params = build(registered.cls.Params, cell.provenance.get("benchmark_params", {}))
    except ParamError:
        return None
    return registered.cls(params, Path("."))


def chance_rows(cells: list[CellRecord], benchmarks: Registrar[Benchmark]) -> list[dict[str, Any]]:
    """The analytic chance level of every metric shown, per benchmark and category."""
    rows = []
    seen = set()
    for cell in cells:
        bench = benchmark_of(cell, benchmarks)
        if bench is None:
            continue
        specs = {spec.id: spec for spec in bench.metric_specs()}
        for m in cell.metrics:
            spec = specs.get(m["metric"])
            key = (cell.benchmark_id, m["metric"], m["category"])
            if spec is None or spec.chance is None or key in seen:
                continue
            seen.add(key)
            rows.append(
                {
                    "model": "(chance)",
                    "benchmark": cell.benchmark_id,
                    "metric": m["metric"],
                    "category": m["category"],
                    "value": spec.chance,
                    "n": None,
                    "ties": None,
                    "tie_rule": m["tie_rule"],
                    "averaging": "analytic",
                    "status": "reference",
                }
            )
    return rows


def reference_rows(
    cells: list[CellRecord], benchmarks: Registrar[Benchmark], selection: dict[str, str | tuple[str, ...]]
) -> list[dict[str, Any]]:
    """Paper-reported and human numbers for the benchmarks shown, as ``selection`` chooses them.

    ``selection`` maps a benchmark id to the registry entry's ``references`` ('all', 'none' or
    row sources); benchmarks absent from it show all their rows.
    """
    rows = []
    for benchmark_id, cell in {c.benchmark_id: c for c in cells}.items():
        bench = benchmark_of(cell, benchmarks)
        if bench is None:
            continue
        chosen = selection.get(benchmark_id, "all")
        for ref in bench.reference_rows():
            if chosen == "none" or (chosen != "all" and ref.source not in chosen):
                continue
            if ref.data_version and cell.data_version and ref.data_version != cell.data_version:
                continue
            rows.append(
                {
                    "model": f"[{ref.table}] {ref.source}",
                    "benchmark": benchmark_id,
                    "metric": ref.metric,
                    "category": ref.category,
                    "value": ref.value,
                    "n": None,
                    "ties": None,
                    "tie_rule": "",
                    "averaging": ref.protocol,
                    "status": "reference",
                    "citation": ref.citation,
                }
            )
    return rows
