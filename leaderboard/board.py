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
  outside our 95% interval, and compared only when the data versions match.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from vlc_harness.benchmarks import Benchmark
from vlc_harness.overlap import OverlapMark, entry_overlap
from vlc_harness.registry import Registry
from vlc_harness.store import CellRecord
from vlc_harness.types import MetricSpec, ReferenceRow
from vlc_harness.verify import board_paper_match
from vlc_leaderboard.declared import Drill, derive_humans, drilldown
from vlc_leaderboard.public import page_slug, public_id, public_reason
from vlc_leaderboard.stats import ranks_from, significance
from vlc_leaderboard.tables import benchmark_of

KINDS = ("model", "blind", "baseline")
"""Row kinds of registry models: vision-language models, image-blind text-only ones, baselines."""
TIE_HEAVY = 0.5
"""A value whose outcomes are at least this share of ties is ranked by its ties-half credit."""


@dataclass(frozen=True)
class Reported:
    """A paper's number for one of our values (the model's ``meta.paper_match`` rows)."""

    value: float
    source: str
    table: str
    citation: str
    data_version: str | None
    compared: bool
    """The paper states the data version and it is the cell's: the interval check means something."""
    outside: bool
    """Compared, and outside our 95% interval."""
    diff: float | None
    """Ours minus the paper's."""


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
    ranked_on_ties_half: bool = False
    """Ranked by the ties-half replicates (a tie-heavy value)."""
    ranked_among: int = 0
    """How many models this value was ranked against (itself included)."""

    @property
    def ties_half(self) -> float:
        """The value with ties broken at random: the stored ``<metric>_ties_half`` where the cell
        has one, else ties counted half (exact for pooled two-way accuracies only)."""
        if self.expected_ties_half is not None:
            return self.expected_ties_half
        if self.tie_rule != "wrong" or not self.n:
            return self.value
        return self.value + 0.5 * self.ties / self.n

    @property
    def tie_share(self) -> float:
        """The share of the value's outcomes that are ties."""
        return self.ties / self.n if self.n else 0.0

    @property
    def tie_heavy(self) -> bool:
        """At least half of the outcomes are ties."""
        return self.n > 0 and self.tie_share >= TIE_HEAVY

    @property
    def sort_value(self) -> float:
        """What the index sorts by: the value it is ranked by."""
        return self.ties_half if self.ranked_on_ties_half else self.value

    @property
    def best(self) -> bool:
        """Holds the best-rank badge: rank 1, earned without ties."""
        return self.rank == 1 and not self.ranked_on_ties_half and not self.tie_heavy


@dataclass
class CellView:
    """What a (model, benchmark) cell shows: numbers when complete, else its status and reason."""

    status: str
    reason: str = ""
    """The stored reason's first line, as it is (the CLI and the JSON download show it)."""
    values: dict[str, Value] = field(default_factory=dict)
    coverage: float | None = None
    cell: CellRecord | None = None
    overlap: OverlapMark | None = None
    """Whether the model's training image pools (``meta.trained_on``) overlap the benchmark's
    (``image_pools``); ``None`` when either side declares none (see :mod:`vlc_harness.overlap`)."""
    reported: dict[str, Reported] = field(default_factory=dict)
    """Paper-reported values of this model, by metric (category ``all``)."""
    drill: dict[str, Value] = field(default_factory=dict)
    """The drilldown metric's values, by category."""
    tie_heavy: bool = False
    """The headline's outcomes are at least half ties: every value is ranked on its ties-half credit."""

    @property
    def published(self) -> bool:
        """Only complete cells show numbers."""
        return self.status == "ok" and bool(self.values)

    @property
    def public_reason(self) -> str:
        """Why there is no number, phrased for readers (no local path, no environment variable)."""
        return public_reason(self.status, self.reason)

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
    human_derived: bool = False
    """The human value is a mean of the papers' per-category human values (as the metric is)."""


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
    humans: dict[tuple[str, str], float] = field(default_factory=dict)
    """Human values by (metric, category): the papers' and the derived ones."""
    derived: set[tuple[str, str]] = field(default_factory=set)
    """Which of :attr:`humans` are derived."""
    drill: Drill | None = None
    ranked: bool = False
    """Some model has a rank on the headline: the benchmark counts in the overall column."""


@dataclass
class Overall:
    """A model's overall standing: its headline ranks and their mean."""

    ranks: dict[str, int]
    """Benchmark id -> headline rank, over the benchmarks that count."""
    of: int
    """How many benchmarks count (rank anyone)."""
    position: int | None = None
    """1-based place among the complete models, by mean rank."""

    @property
    def k(self) -> int:
        """Benchmarks with a headline rank."""
        return len(self.ranks)

    @property
    def complete(self) -> bool:
        """Ranked on every benchmark that counts."""
        return self.of > 0 and self.k == self.of

    @property
    def mean_rank(self) -> float | None:
        """Mean headline rank over the benchmarks it has."""
        return sum(self.ranks.values()) / len(self.ranks) if self.ranks else None


@dataclass
class Row:
    """One model of the registry (or a store-only model) with its cells."""

    id: str
    name: str
    kind: str
    meta: dict[str, Any]
    cells: dict[str, CellView] = field(default_factory=dict)
    overall: Overall | None = None
    """``None`` for baselines: they are references, never ranked."""

    @property
    def slug(self) -> str:
        """The file name of the model's page (a local path in an inline spec never shows)."""
        return page_slug(self.id)

    @property
    def public_id(self) -> str:
        """The id as published (an inline spec's local path redacted)."""
        return public_id(self.id)


@dataclass
class Board:
    """Everything the site renders."""

    benchmarks: list[BenchmarkColumn]
    rows: list[Row]

    @property
    def counted(self) -> list[BenchmarkColumn]:
        """The benchmarks the overall column counts (N)."""
        return [c for c in self.benchmarks if c.ranked]


def build_board(
    cells: list[CellRecord], registry: Registry, plugins: Any, references: bool = True, include_adhoc: bool = True
) -> Board:
    """Assemble the board from the latest cell of every (model, benchmark).

    ``include_adhoc=False`` (what ``render`` publishes) keeps only the registry's models and
    benchmarks: a one-off run (``-m TYPE:params``, ``-b TYPE:params``) stays in the store and off
    the site.
    """
    if not include_adhoc:
        cells = [c for c in cells if c.model_id in registry.models and c.benchmark_id in registry.benchmarks]
    by_pair = {(c.model_id, c.benchmark_id): c for c in cells}
    published = {c.benchmark_id for c in cells if c.status == "ok" and c.complete}
    bench_ids = list(registry.benchmarks) + sorted(published - set(registry.benchmarks))
    model_ids = list(registry.models) + sorted({c.model_id for c in cells} - set(registry.models))
    columns = [_column(b, [c for c in cells if c.benchmark_id == b], registry, plugins, references) for b in bench_ids]
    rows = [_row(m, registry, plugins, [c for c in cells if c.model_id == m]) for m in model_ids]
    for row in rows:
        for col in columns:
            cell = by_pair.get((row.id, col.id))
            row.cells[col.id] = _cell_view(cell, col) if cell else CellView("not run", "no cell in the store yet")
            row.cells[col.id].overlap = _overlap(row, col)
            _reported(row, col, row.cells[col.id])
    for col in columns:
        _rank(col, rows)
        col.hackable = _hackable(col, rows)
        col.ranked = bool(col.metrics) and any(
            r.cells[col.id].published and r.cells[col.id].values.get(col.metrics[0].metric, Value(0)).rank for r in rows
        )
    # Registry models show every cell they have (an unavailable one says why); a model known only
    # to the store appears once it has a published cell.
    rows = [
        r
        for r in rows
        if any(cv.published if r.id not in registry.models else cv.status != "not run" for cv in r.cells.values())
    ]
    return Board(columns, _order(rows, columns))


def _row(model_id: str, registry: Registry, plugins: Any, cells: list[CellRecord]) -> Row:
    entry = registry.models.get(model_id)
    meta = dict(entry.meta) if entry else {}
    if entry is not None:
        model_type, blind = entry.type, None
    else:  # known only to the store (an inline spec): its cells say what it was
        model = next((c.provenance.get("model") or {} for c in cells if c.provenance.get("model")), {})
        model_type = str(model.get("type", ""))
        flags = [c.provenance["image_blind"] for c in cells if "image_blind" in c.provenance]
        blind = any(flags) if flags else None
    if blind is None:  # the registered class says (cells from before image_blind was recorded)
        registered = plugins.models.entries.get(model_type)
        blind = registered is not None and registered.cls.image_blind
    kind = "model"
    if meta.get("family") == "baseline" or model_type == "random":
        kind = "baseline"
    elif blind:
        kind = "blind"
    return Row(model_id, str(meta.get("display_name") or public_id(model_id)), kind, meta)


def _column(
    bench_id: str, cells: list[CellRecord], registry: Registry, plugins: Any, references: bool
) -> BenchmarkColumn:
    entry = registry.benchmarks.get(bench_id)
    sample = next((c for c in cells if c.status == "ok" and c.complete), None)
    sample = sample or next((c for c in cells if c.status == "ok"), cells[0] if cells else None)
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
    rows = sample.metrics if sample is not None and sample.status == "ok" else []
    derived = derive_humans(bench, humans, rows) if humans and rows else {}
    humans |= derived
    headline = bench.headline_metric()
    shown = [headline, *[m for m in bench.index_metrics if m in specs]]
    metrics = [
        MetricColumn(
            m,
            _label(m),
            specs[m].higher_is_better if m in specs else True,
            specs[m].chance if m in specs else None,
            humans.get((m, "all")),
            (m, "all") in derived,
        )
        for m in shown
    ]
    gap = bench.gap_metrics
    human_gap = None
    if gap and all((m, "all") in humans for m in gap):
        human_gap = humans[(gap[0], "all")] - humans[(gap[1], "all")]
    note = str((entry.meta if entry else {}).get("note", "") or "")
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
        humans=humans,
        derived=set(derived),
        drill=drilldown(bench, headline, rows) if rows else None,
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


def _value(m: dict[str, Any], half: dict[str, Any] | None) -> Value:
    return Value(
        float(m["value"]),
        tuple(m["ci95"]) if m.get("ci95") else None,
        int(m.get("n") or 0),
        int(m.get("ties") or 0),
        m.get("tie_rule", ""),
        m.get("averaging", ""),
        expected_ties_half=float(half["value"]) if half else None,
    )


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
        values[m["metric"]] = _value(m, overall.get(m["metric"] + "_ties_half"))
    drill = {}
    if col.drill is not None:
        by_key = {(m["metric"], m["category"]): m for m in cell.metrics}
        for category in col.drill.categories:
            m = by_key.get((col.drill.metric, category))
            if m is not None:
                drill[category] = _value(m, by_key.get((col.drill.metric + "_ties_half", category)))
    headline = values.get(col.metrics[0].metric) if col.metrics else None
    return CellView("ok", "", values, coverage, cell, drill=drill, tie_heavy=bool(headline and headline.tie_heavy))


def _reported(row: Row, col: BenchmarkColumn, cv: CellView) -> None:
    """The paper's values for this model's index metrics, next to ours (none where the paper loaded
    the model otherwise: ``meta.paper_params``)."""
    match = board_paper_match(row.meta)
    if not match or not cv.published or cv.cell is None:
        return
    version = cv.cell.data_version
    for mc in col.metrics:
        refs = [
            r
            for r in col.references
            if r.matches == match
            and r.metric == mc.metric
            and r.category == "all"
            and (not r.data_version or r.data_version == version)
        ]
        if not refs:
            continue
        ref = next((r for r in refs if r.data_version == version), refs[0])
        ours = cv.values.get(mc.metric)
        compared = bool(ref.data_version) and ref.data_version == version
        ci = ours.ci95 if ours is not None else None
        outside = compared and ci is not None and not (ci[0] <= ref.value <= ci[1])
        diff = None if ours is None else ours.value - ref.value
        cv.reported[mc.metric] = Reported(
            ref.value, ref.source, ref.table, ref.citation, ref.data_version, compared, outside, diff
        )


def _replicates(cv: CellView, metric: str, category: str = "all") -> tuple[np.ndarray | None, bool]:
    """The replicates a value is ranked on, and whether they are the ties-half ones."""
    reps = (cv.cell.replicates or {}) if cv.cell is not None else {}
    value = cv.values.get(metric) if category == "all" else cv.drill.get(category)
    if (cv.tie_heavy or (value is not None and value.tie_heavy)) and (metric + "_ties_half", category) in reps:
        return np.asarray(reps[(metric + "_ties_half", category)], dtype=np.float64), True
    found = reps.get((metric, category))
    return (None if found is None else np.asarray(found, dtype=np.float64)), False


def _rank(col: BenchmarkColumn, rows: list[Row]) -> None:
    """Per index metric: 1 + the number of models significantly better on the same resamples
    (paired bootstrap; only cells over the same instances with the same resamples are compared).
    Tie-heavy values are ranked on their ties-half replicates."""
    for mc in col.metrics:
        groups: dict[tuple[str, int], list[tuple[Row, np.ndarray, bool]]] = {}
        for row in rows:
            cv = row.cells.get(col.id)
            if cv is None or not cv.published or cv.cell is None or row.kind == "baseline":
                continue
            if mc.metric not in cv.values or not cv.cell.metrics_version:
                continue
            reps, on_half = _replicates(cv, mc.metric)
            if reps is not None and reps.ndim == 1 and len(reps):
                groups.setdefault((cv.cell.manifest_hash, len(reps)), []).append((row, reps, on_half))
        for group in groups.values():
            matrix = np.stack([reps for _, reps, _ in group])
            direction = mc.higher_is_better
            for (row, _, on_half), rank in zip(group, ranks_from(significance(matrix, direction))):
                cv = row.cells[col.id]
                cv.values[mc.metric] = replace(
                    cv.values[mc.metric], rank=int(rank), ranked_on_ties_half=on_half, ranked_among=len(group)
                )


def _order(rows: list[Row], columns: list[BenchmarkColumn]) -> list[Row]:
    """Rows by the overall column: complete models by mean headline rank, then the others by how
    many benchmarks they have (then their mean rank), then baselines and unranked models."""
    counted = [c for c in columns if c.ranked]
    for row in rows:
        if row.kind == "baseline":
            row.overall = None
            continue
        ranks = {}
        for col in counted:
            cv = row.cells.get(col.id)
            value = cv.values.get(col.metrics[0].metric) if cv is not None and cv.published else None
            if value is not None and value.rank:
                ranks[col.id] = value.rank
        row.overall = Overall(ranks, len(counted))
    complete = sorted((r for r in rows if r.overall and r.overall.complete), key=lambda r: r.overall.mean_rank or 0)
    for position, row in enumerate(complete, 1):
        assert row.overall is not None
        row.overall.position = position
    partial = [r for r in rows if r.overall and not r.overall.complete and r.overall.k]
    partial.sort(key=lambda r: (-r.overall.k, r.overall.mean_rank or 0) if r.overall else (0, 0.0))
    ranked = {r.id for r in complete + partial}
    return complete + partial + [r for r in rows if r.id not in ranked]


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
