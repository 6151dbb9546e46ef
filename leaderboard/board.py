"""The leaderboard as data: what every page shows, built from the store's cells and the registry.

Pure: no Jinja, no files. Only complete cells are published; a cell that is unavailable or
failed shows its reason; partial cells (``--limit``, interrupted) are never shown as numbers.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from vlc_harness.benchmarks import Benchmark
from vlc_harness.overlap import OverlapMark, entry_overlap
from vlc_harness.metrics import bootstrap as intervals
from vlc_harness.registry import Registry
from vlc_harness.store import CellRecord
from vlc_harness.types import MetricSpec, ReferenceRow
from vlc_leaderboard.tables import benchmark_of

KINDS = ("model", "blind", "baseline")
"""Row kinds of registry models: vision-language models, image-blind text-only ones, baselines."""


@dataclass(frozen=True)
class Value:
    """One published number with its interval, rank and counts."""

    value: float
    ci95: tuple[float, float] | None = None
    n: int = 0
    ties: int = 0
    tie_rule: str = ""
    averaging: str = ""
    rank: int | None = None
    expected_ties_half: float | None = None
    """The stored ``<metric>_ties_half``: the expected value when ties are broken at random."""

    @property
    def ties_half(self) -> float:
        """The value with ties broken at random: the stored ``<metric>_ties_half`` where the cell
        has one, else ties counted half (exact for pooled two-way accuracies only)."""
        if self.expected_ties_half is not None:
            return self.expected_ties_half
        if self.tie_rule != "wrong" or not self.n:
            return self.value
        return self.value + 0.5 * self.ties / self.n


@dataclass
class CellView:
    """What a (model, benchmark) cell shows: numbers when complete, else its status and reason."""

    status: str
    reason: str = ""
    values: dict[str, Value] = field(default_factory=dict)
    coverage: float | None = None
    cell: CellRecord | None = None
    overlap: OverlapMark | None = None
    """Whether the model's training image pools (``meta.trained_on``) overlap the benchmark's
    (``image_pools``); ``None`` when either side declares none (see :mod:`vlc_harness.overlap`)."""

    @property
    def published(self) -> bool:
        """Only complete cells show numbers."""
        return self.status == "ok" and bool(self.values)

    def gap(self, metrics: tuple[str, str] | None) -> float | None:
        """I2T minus T2I, when both are published."""
        if metrics is None or not self.published or not all(m in self.values for m in metrics):
            return None
        return self.values[metrics[0]].value - self.values[metrics[1]].value


@dataclass
class MetricColumn:
    """One metric of a benchmark shown on the index."""

    metric: str
    label: str
    higher_is_better: bool
    chance: float | None
    human: float | None


@dataclass
class BenchmarkColumn:
    """A benchmark on the index: its headline (and extra) metrics and its directional gap."""

    id: str
    type: str
    title: str
    data_version: str
    metrics: list[MetricColumn]
    gap: tuple[str, str] | None
    human_gap: float | None
    note: str
    hackable: bool = False
    benchmark: Benchmark | None = None
    specs: dict[str, MetricSpec] = field(default_factory=dict)
    references: list[ReferenceRow] = field(default_factory=list)


@dataclass
class Row:
    """One model of the registry (or a store-only model) with its cells."""

    id: str
    name: str
    kind: str
    meta: dict[str, Any]
    cells: dict[str, CellView] = field(default_factory=dict)


@dataclass
class Board:
    """Everything the site renders."""

    benchmarks: list[BenchmarkColumn]
    rows: list[Row]


def build_board(cells: list[CellRecord], registry: Registry, plugins: Any, references: bool = True) -> Board:
    """Assemble the board from the latest cell of every (model, benchmark)."""
    by_pair = {(c.model_id, c.benchmark_id): c for c in cells}
    published = {c.benchmark_id for c in cells if c.status == "ok" and c.complete}
    bench_ids = list(registry.benchmarks) + sorted(published - set(registry.benchmarks))
    model_ids = list(registry.models) + sorted({c.model_id for c in cells} - set(registry.models))
    columns = [_column(b, [c for c in cells if c.benchmark_id == b], registry, plugins, references) for b in bench_ids]
    rows = [_row(m, registry, plugins) for m in model_ids]
    for row in rows:
        for col in columns:
            cell = by_pair.get((row.id, col.id))
            row.cells[col.id] = _cell_view(cell, col) if cell else CellView("not run", "no cell in the store yet")
            row.cells[col.id].overlap = _overlap(row, col)
    for col in columns:
        _rank(col, rows)
        col.hackable = _hackable(col, rows)
    # Registry models show every cell they have (an unavailable one says why); a model known only
    # to the store appears once it has a published cell.
    rows = [
        r
        for r in rows
        if any(cv.published if r.id not in registry.models else cv.status != "not run" for cv in r.cells.values())
    ]
    return Board(columns, rows)


def _row(model_id: str, registry: Registry, plugins: Any) -> Row:
    entry = registry.models.get(model_id)
    meta = dict(entry.meta) if entry else {}
    kind = "model"
    if entry is not None:
        registered = plugins.models.entries.get(entry.type)
        if meta.get("family") == "baseline" or entry.type == "random":
            kind = "baseline"
        elif registered is not None and registered.cls.image_blind:
            kind = "blind"
    return Row(model_id, str(meta.get("display_name") or model_id), kind, meta)


def _column(
    bench_id: str, cells: list[CellRecord], registry: Registry, plugins: Any, references: bool
) -> BenchmarkColumn:
    entry = registry.benchmarks.get(bench_id)
    sample = next((c for c in cells if c.status == "ok"), cells[0] if cells else None)
    bench = benchmark_of(sample, plugins.benchmarks) if sample is not None else None
    if bench is None and entry is not None and entry.type in plugins.benchmarks.entries:
        bench = plugins.benchmarks.get(entry.type).cls(entry.params, Path("."))  # metadata only: no data is read
    if bench is None:
        return BenchmarkColumn(bench_id, "", bench_id, "", [], None, None, "unknown benchmark type")
    specs = {s.id: s for s in bench.metric_specs()}
    data_version = sample.data_version if sample is not None else ""
    refs = [
        r
        for r in (bench.reference_rows() if references else [])
        if not r.data_version or not data_version or r.data_version == data_version
    ]
    humans = {(r.metric, r.category): r.value for r in refs if r.matches == "human"}
    shown = [bench.headline_metric(), *[m for m in bench.index_metrics if m in specs]]
    metrics = [
        MetricColumn(
            m,
            _label(m),
            specs[m].higher_is_better if m in specs else True,
            specs[m].chance if m in specs else None,
            humans.get((m, "all")),
        )
        for m in shown
    ]
    gap = bench.gap_metrics
    human_gap = None
    if gap and all((m, "all") in humans for m in gap):
        human_gap = humans[(gap[0], "all")] - humans[(gap[1], "all")]
    note = str((entry.meta if entry else {}).get("note", ""))
    return BenchmarkColumn(
        bench_id,
        bench.type_name,
        bench.title or bench_id,
        data_version,
        metrics,
        gap,
        human_gap,
        note,
        benchmark=bench,
        specs=specs,
        references=refs,
    )


def _label(metric: str) -> str:
    return metric.replace("_", " ")


def _overlap(row: Row, col: BenchmarkColumn) -> OverlapMark | None:
    """The overlap mark of a (model, benchmark) cell from the entry's ``meta.trained_on``."""
    pools = col.benchmark.image_pools if col.benchmark is not None else ()
    try:
        return entry_overlap(row.meta, pools)
    except ValueError as exc:
        raise ValueError(f"model {row.id}, benchmark {col.id}: {exc}") from None


def _cell_view(cell: CellRecord, col: BenchmarkColumn) -> CellView:
    if cell.status != "ok" or not cell.complete:
        reason = (cell.error or "").splitlines()[0] if cell.error else ""
        if cell.status == "partial":
            reason = reason or "partial (limited or interrupted): not published"
        return CellView(cell.status, reason, cell=cell)
    values = {}
    coverage = None
    overall = {m["metric"]: m for m in cell.metrics if m["category"] == "all"}
    for m in overall.values():
        if m["metric"] == "coverage":
            coverage = float(m["value"])
        ci = tuple(m["ci95"]) if m.get("ci95") else None
        half = overall.get(m["metric"] + "_ties_half")
        values[m["metric"]] = Value(
            float(m["value"]),
            ci,
            int(m.get("n") or 0),
            int(m.get("ties") or 0),
            m["tie_rule"],
            m["averaging"],
            expected_ties_half=float(half["value"]) if half else None,
        )
    return CellView("ok", "", values, coverage, cell)


def _rank(col: BenchmarkColumn, rows: list[Row]) -> None:
    """Per index metric: 1 + the number of models significantly better on the same resamples
    (paired bootstrap; only cells over the same instances with the same resamples are compared)."""
    for mc in col.metrics:
        groups: dict[tuple[str, int], dict[str, Any]] = {}
        for row in rows:
            cv = row.cells.get(col.id)
            if cv is None or not cv.published or cv.cell is None or row.kind == "baseline":
                continue
            reps = (cv.cell.replicates or {}).get((mc.metric, "all"))
            if reps is not None and len(reps) and cv.cell.metrics_version:
                groups.setdefault((cv.cell.manifest_hash, len(reps)), {})[row.id] = reps
        by_id = {r.id: r for r in rows}
        for group in groups.values():
            for model_id, rank in intervals.ranks(group, mc.higher_is_better).items():
                cv = by_id[model_id].cells[col.id]
                if mc.metric in cv.values:
                    cv.values[mc.metric] = replace(cv.values[mc.metric], rank=rank)


def _hackable(col: BenchmarkColumn, rows: list[Row]) -> bool:
    """A blind model (ties counted half) beats the median vision-language model on the headline."""
    if not col.metrics:
        return False
    headline = col.metrics[0]
    vlm = [r.cells[col.id].values[headline.metric].value for r in rows if _has(r, col, headline.metric, "model")]
    blind = [r.cells[col.id].values[headline.metric].ties_half for r in rows if _has(r, col, headline.metric, "blind")]
    if not vlm or not blind:
        return False
    median = statistics.median(vlm)
    return any((b > median) if headline.higher_is_better else (b < median) for b in blind)


def _has(row: Row, col: BenchmarkColumn, metric: str, kind: str) -> bool:
    cv = row.cells.get(col.id)
    return row.kind == kind and cv is not None and cv.published and metric in cv.values
