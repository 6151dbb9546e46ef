"""A cell's metrics from its outcome arrays: the benchmark's families, intervals and replicates."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from vlc_harness.metrics import bootstrap
from vlc_harness.metrics.aggregate import Key, Micro, PerCategory
from vlc_harness.metrics.engine import Column, evaluate
from vlc_harness.metrics.outcomes import ChoiceOutcomes, Outcomes
from vlc_harness.types import MetricSpec, MetricValue, canonical_json

if TYPE_CHECKING:
    from vlc_harness.benchmarks import Benchmark
    from vlc_harness.metrics.family import Family

ENGINE_VERSION = "4"
"""Bump when the engine's own code (aggregation, populations, bootstrap, averaging texts) changes what
a cell stores; stored cells are then rebuilt from their outcomes (:mod:`.rebuild`). 3: averaging
texts count their nouns in agreement, and the word-order audit words each tag's value. 4: the
bootstrap's sums in numpy's fixed order, not a BLAS product's (the same replicates on every machine;
values that are not sums of halves moved in their last bits)."""
NO_METRICS = "none"
"""The metrics version of a cell with no metrics (unavailable, skipped, failed before scoring)."""
COVERAGE_SPEC = MetricSpec("coverage", "answered instances / asked instances", "ratio")
VARIANTS = ("_ties_half", "_answered")
"""Suffixes of the values every declared metric may also be reported as (see :mod:`.engine`)."""


class DeclaresMetrics(Protocol):
    """What the metric code reads of a benchmark: its metric declaration (a :class:`Benchmark` is one)."""

    def metric_families(self) -> Sequence[Family]: ...  # noqa: D102


def declared_ids(ids: Any) -> set[str]:
    """The declared metric ids among ``ids``: without their ``_ties_half``/``_answered``
    variants and without ``coverage`` (reported for models that may abstain)."""
    return {i for i in ids if not i.endswith(VARIANTS) and i != "coverage"}


@dataclass
class CellMetrics:
    """What a cell stores of its metrics: the values (as dicts) and every value's replicates."""

    metrics: list[dict[str, Any]] = field(default_factory=list)
    replicates: dict[Key, np.ndarray] = field(default_factory=dict)
    samples: int = 0


def bootstrap_samples() -> int:
    """Resamples per cell: ``$VLC_HARNESS_BOOTSTRAP`` (0 turns intervals off), else the default."""
    value = os.environ.get("VLC_HARNESS_BOOTSTRAP")
    return bootstrap.SAMPLES if value is None or value == "" else int(value)


def families_for(benchmark: DeclaresMetrics, outcomes: Outcomes | ChoiceOutcomes) -> list[Family]:
    """The benchmark's families that apply to these outcomes (answers: those that score choices;
    without text-text scores: none that reads them)."""
    families = list(benchmark.metric_families())
    if isinstance(outcomes, ChoiceOutcomes):
        families = [f for f in families if hasattr(f, "choice_columns")]
    if not isinstance(outcomes, Outcomes) or outcomes.text_scores is None:
        families = [f for f in families if not hasattr(f, "text_pairs")]
    return families


def columns_for(benchmark: DeclaresMetrics, outcomes: Outcomes | ChoiceOutcomes, coverage: bool) -> list[Column]:
    """Every column of the benchmark's families, plus coverage for a model that may abstain."""
    columns = [c for family in families_for(benchmark, outcomes) for c in family.columns(outcomes)]
    if coverage and isinstance(outcomes, Outcomes):
        columns.append(
            Column(
                "coverage",
                outcomes.answered.astype(np.float64),
                (PerCategory(), Micro()),
                abstention="keep",
                tie_rule="wrong",
            )
        )
    return columns


def compute_values(
    benchmark: Benchmark, outcomes: Outcomes | ChoiceOutcomes, coverage: bool = False
) -> list[MetricValue]:
    """Every metric value of the outcomes (no intervals)."""
    if not len(outcomes):
        return []
    return evaluate(outcomes, columns_for(benchmark, outcomes, coverage), 0, coverage).values


def cell_metrics(
    benchmark: Benchmark, outcomes: Outcomes | ChoiceOutcomes, coverage: bool = False, samples: int | None = None
) -> CellMetrics:
    """Values with their 95% intervals, the headline marked, and every value's replicates."""
    if not len(outcomes):
        return CellMetrics()
    samples = bootstrap_samples() if samples is None else samples
    result = evaluate(outcomes, columns_for(benchmark, outcomes, coverage), samples, coverage)
    headline = benchmark.headline_metric()
    metrics = []
    for value in result.values:
        m = value.as_dict()
        if m["metric"] == headline and m["category"] == "all":
            m["headline"] = True
        reps = result.replicates.get((value.metric, value.category))
        if reps is not None and len(reps) and np.all(np.isfinite(reps)):
            m["ci95"] = [round(v, 6) for v in bootstrap.interval(reps)]
        metrics.append(m)
    return CellMetrics(metrics, result.replicates, samples)


def metrics_version(benchmark: Benchmark, samples: int) -> str:
    """What a stored cell's metrics depend on besides the scores: the engine, the benchmark's
    declared families and their versions, its params and the resample count."""
    content = {
        "engine": ENGINE_VERSION,
        "benchmark": f"{benchmark.type_name}@{benchmark.metrics_version}",
        "families": sorted({f.identity() for f in benchmark.metric_families()}),
        "params": repr(benchmark.params),
        "bootstrap": f"{bootstrap.DESIGN}/{samples}",
    }
    digest = hashlib.sha256(canonical_json(content).encode()).hexdigest()[:16]
    return f"e{ENGINE_VERSION}.b{samples}.{digest}"


def specs_of(families: Sequence[Family], coverage: bool = True) -> list[MetricSpec]:
    """The specs of every family (first declaration of an id wins), plus coverage."""
    out: dict[str, MetricSpec] = {}
    for family in families:
        for spec in family.specs():
            out.setdefault(spec.id, spec)
    if coverage:
        out.setdefault("coverage", COVERAGE_SPEC)
    return sorted(out.values(), key=lambda s: s.id.endswith(VARIANTS))  # declared metrics first, variants after
