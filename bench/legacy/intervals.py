"""Seeded bootstrap intervals over instances, computed once when a cell completes.

Every resample is drawn within each category (stratified: category sizes are kept, so macro
metrics stay defined), and the benchmark's own metric code recomputes every metric on it; the
95% interval is the 2.5th and 97.5th percentile of the replicates. The resample indices depend
only on the sorted instance ids and the number of samples, so two models' cells over the same
instances are resampled identically: their stored replicates pair up, and a difference between
two models can be tested on the same resamples (:func:`significantly_better`).
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import numpy as np

SAMPLES = 200
"""Bootstrap resamples per cell. Each one reruns the benchmark's metric code (about 0.15 s for
SugarCrepe's 7,511 instances on one CPU core), so this is the cost of a cell's intervals."""
LEVEL = 0.95

R = TypeVar("R")


def instance_set_id(ids: Sequence[str]) -> str:
    """sha256 of the sorted instance ids: cells with equal ids share resamples."""
    return hashlib.sha256("\n".join(sorted(ids)).encode()).hexdigest()


def bootstrap(
    results: Sequence[R],
    ids: Sequence[str],
    categories: Sequence[str],
    compute: Callable[[list[R]], list[Any]],
    samples: int = SAMPLES,
) -> dict[tuple[str, str], np.ndarray]:
    """Replicates of every ``(metric, category)`` that ``compute`` returns, over ``samples``
    stratified resamples of ``results`` (``ids[k]``/``categories[k]`` describe ``results[k]``)."""
    order = sorted(range(len(results)), key=lambda k: ids[k])
    by_category: dict[str, list[int]] = defaultdict(list)
    for k in order:
        by_category[categories[k]].append(k)
    seed = int(instance_set_id(ids)[:16], 16) ^ samples
    rng = np.random.default_rng(seed)
    values: dict[tuple[str, str], list[float]] = defaultdict(list)
    for _ in range(samples):
        picked: list[R] = []
        for category in sorted(by_category):
            members = by_category[category]
            picked.extend(results[members[i]] for i in rng.integers(0, len(members), len(members)))
        for m in compute(picked):
            values[(m.metric, m.category)].append(float(m.value))
    return {key: np.asarray(v) for key, v in values.items() if len(v) == samples}


def interval(replicates: np.ndarray, level: float = LEVEL) -> tuple[float, float]:
    """The percentile interval of the replicates (NaN-free replicates assumed)."""
    tail = (1.0 - level) / 2 * 100
    low, high = np.percentile(replicates, [tail, 100 - tail])
    return float(low), float(high)


def attach(metrics: list[dict[str, Any]], replicates: dict[tuple[str, str], np.ndarray]) -> None:
    """Add ``ci95`` to every metric with finite replicates, and the replicates themselves to the
    overall (category ``all``) ones, for paired comparisons at render time."""
    for m in metrics:
        reps = replicates.get((m["metric"], m["category"]))
        if reps is None or not np.all(np.isfinite(reps)):
            continue
        m["ci95"] = [round(v, 6) for v in interval(reps)]
        if m["category"] == "all":
            m["replicates"] = [round(float(v), 6) for v in reps]


def significantly_better(a: Sequence[float], b: Sequence[float], higher_is_better: bool = True) -> bool:
    """Paired bootstrap: ``a`` beats ``b`` when the 2.5th percentile of ``a - b`` (on the same
    resamples) is above zero (below, for metrics where lower is better)."""
    diff = np.asarray(a) - np.asarray(b)
    if not higher_is_better:
        diff = -diff
    return bool(np.percentile(diff, (1.0 - LEVEL) / 2 * 100) > 0)


def ranks(replicates: dict[str, Sequence[float]], higher_is_better: bool = True) -> dict[str, int]:
    """Per model: 1 + the number of models significantly better on the same resamples."""
    return {
        name: 1
        + sum(
            significantly_better(other, mine, higher_is_better)
            for other_name, other in replicates.items()
            if other_name != name
        )
        for name, mine in replicates.items()
    }
