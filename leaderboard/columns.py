"""The board's columns: a benchmark on the index with its shown metrics, humans, paper rows and drilldown.

Built from the benchmark's own declaration (the latest published cell's, else the registry entry's
with no data read): the headline and index metrics, their direction and chance, the papers' rows of
the cell's data version, human values (derived from per-category ones where the declaration makes
the value their unweighted mean, :func:`vlc_harness.results.derived_means`) and the directional gap.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vlc_harness.overlap import Pool
from vlc_harness.results import CellRecord
from vlc_harness.status import Status
from vlc_harness.types import MetricSpec, ReferenceRow
from vlc_leaderboard.cite import benchmark_bibtex
from vlc_leaderboard.declared import Drill, drilldown
from vlc_leaderboard.humans import human_means, humans_elsewhere

if TYPE_CHECKING:
    from vlc_harness.benchmarks import Benchmark
    from vlc_harness.plugins import Plugins
    from vlc_harness.registry import Registry


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


@dataclass(frozen=True)
class CardFacts:
    """What the pages say about a benchmark beyond its metrics: its card, as data (no benchmark object)."""

    citation: str = ""
    homepage: str = ""
    license: str = ""
    bibtex: str = ""
    image_pools: tuple[str, ...] = ()
    own_pools: Mapping[str, Pool] = field(default_factory=dict)
    headline_origin: str = ""
    """Where the headline comes from (:meth:`~vlc_harness.benchmarks.Benchmark.headline_origin`)."""


def card_facts(bench: Any) -> CardFacts:
    """The card facts of a benchmark object (its class attributes and its headline's origin)."""
    return CardFacts(
        str(bench.citation or ""),
        str(bench.homepage or ""),
        str(bench.license or ""),
        benchmark_bibtex(bench),
        tuple(bench.image_pools),
        dict(bench.own_pools),
        str(bench.headline_origin() or ""),
    )


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
    """The benchmark object, where this board was built with its plugin loaded (never from a bundle):
    what the pages show of it is in :attr:`card`."""
    card: CardFacts | None = None
    """The benchmark's card facts; ``None`` where its type is not installed."""
    specs: dict[str, MetricSpec] = field(default_factory=dict)
    references: list[ReferenceRow] = field(default_factory=list)
    humans: dict[tuple[str, str], float] = field(default_factory=dict)
    """Human values by (metric, category): the papers' and the derived ones."""
    derived: set[tuple[str, str]] = field(default_factory=set)
    """Which of :attr:`humans` are derived."""
    drill: Drill | None = None
    ranked: bool = False
    """Some model has a rank on the headline: the benchmark counts in the overall column."""
    humans_elsewhere: dict[str, tuple[float, str]] = field(default_factory=dict)
    """Metric -> (human value, data version) the papers report on another data version only (shown as context)."""


def not_described(bench_id: str, registry: Registry) -> str:
    """Why this build has no declaration of a benchmark, for readers: its type's plugin package (listed
    in the registry's ``plugins:``) was not installed, or its type is not installed here at all."""
    from vlc_harness.plugin_packages import provider

    entry = registry.benchmarks.get(bench_id)
    package = provider(registry.packages, "benchmarks", entry.type) if entry is not None else None
    if entry is not None and package is not None:
        return (
            f"Not evaluated: its benchmark type {entry.type} comes from the plugin package {package.package} "
            f"({package.requirement()}), which was not installed on the machine that built this board."
        )
    return "Not evaluated: its benchmark type is not installed on the machine that built this board."


def benchmark_column(
    bench_id: str, cells: list[CellRecord], registry: Registry, plugins: Plugins, references: bool
) -> BenchmarkColumn:
    """The column of ``bench_id`` from its cells (any model's) and its registry entry; ``references=False``
    leaves the papers' rows (and so humans) out."""
    from vlc_leaderboard.tables import benchmark_of

    entry = registry.benchmarks.get(bench_id)
    sample = next((c for c in cells if c.status == Status.OK and c.complete), None)
    sample = sample or next((c for c in cells if c.status == Status.OK), cells[0] if cells else None)
    bench = benchmark_of(sample, plugins.benchmarks) if sample is not None else None
    if bench is None and entry is not None and entry.type in plugins.benchmarks.entries:
        bench = plugins.benchmarks.get(entry.type).cls(entry.params, Path("."))  # metadata only: no data is read
    if bench is None:  # no declaration here: no metrics to show (the index leaves it out, saying why)
        return BenchmarkColumn(bench_id, "", bench_id, "", [], None, None, not_described(bench_id, registry))
    specs = {s.id: s for s in bench.metric_specs()}
    data_version = sample.data_version if sample is not None else ""
    refs = [
        r
        for r in (bench.reference_rows() if references else [])
        if not r.data_version or not data_version or r.data_version == data_version
    ]
    humans = {(r.metric, r.category): r.value for r in refs if r.matches == "human"}
    elsewhere = humans_elsewhere(bench.reference_rows() if references else [], data_version, humans)
    rows = sample.metrics if sample is not None and sample.status == Status.OK else []
    derived = human_means(bench, humans, rows)
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
        card=card_facts(bench),
        specs=specs,
        references=refs,
        humans=humans,
        derived=set(derived),
        drill=drilldown(bench, headline, rows) if rows else None,
        humans_elsewhere=elsewhere,
    )


def _label(metric: str) -> str:
    return metric.replace("_", " ")
