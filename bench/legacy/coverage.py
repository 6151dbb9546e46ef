"""Metrics of a pair-scoring model that may abstain: over all asked instances, answered ones, coverage.

An API model scoring pairs (VQAScore over a chat API) may reply with neither Yes nor No. That
pair has no score, and is never given one: its instance cannot be decided by the benchmark's own
metric code, which reads score matrices. So each benchmark metric is reported three ways:

* ``<metric>`` over every asked instance, an abstained instance counting as wrong (the headline);
* ``<metric>_answered``: the benchmark's own value over the instances with every pair scored;
* ``coverage``: answered instances / asked instances, overall and per category.

The benchmark computes ``<metric>_answered`` as usual. For ``<metric>``, each answered instance's
own credit is read by running the benchmark's metric code on that instance alone (which also says
which metric values the instance counts in); an abstained instance counts in the values its
category's instances count in, with credit 0. A value is then re-averaged over the asked
instances: a mean over its instances, or, when its averaging says ``macro``, an unweighted mean
over categories of their means. The value is only reported when that average reproduces the
benchmark's own number on the answered instances; a metric of another shape (an AUC) gets only
its ``_answered`` value.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from bench.legacy.benchmarks import InstanceScores
from bench.legacy.types import MetricValue
from vlc_harness.types import Instance

Key = tuple[str, str]
"""(metric id, category) of a metric value."""


@dataclass(frozen=True)
class AbstainedInstance:
    """An instance with a pair the model declined (or whose request failed): it has no score matrix."""

    instance: Instance
    reason: str = ""


class AbstentionAwareCompute:
    """Wraps a benchmark's ``compute`` for results that may include :class:`AbstainedInstance`.

    One object per cell: each instance's credits are computed once and reused by every bootstrap
    resample.
    """

    def __init__(self, compute: Callable[[list[InstanceScores]], list[MetricValue]]) -> None:
        self.compute = compute
        self._credits: dict[str, dict[Key, float] | None] = {}

    def __call__(self, results: Sequence[InstanceScores | AbstainedInstance]) -> list[MetricValue]:
        """All-asked values, ``_answered`` values and coverage (see the module docstring)."""
        answered = [r for r in results if isinstance(r, InstanceScores)]
        abstained = [r for r in results if isinstance(r, AbstainedInstance)]
        coverage = _coverage(answered, abstained)
        if not answered:
            return coverage
        own = self.compute(answered)
        renamed = [replace(v, metric=f"{v.metric}_answered") for v in own]
        if not abstained:
            return [*own, *renamed, *coverage]
        return [*self._all_asked(own, answered, abstained), *renamed, *coverage]

    def _credit(self, r: InstanceScores) -> dict[Key, float] | None:
        if r.instance.id not in self._credits:
            try:
                values = self.compute([r])
            except Exception:
                self._credits[r.instance.id] = None
            else:
                self._credits[r.instance.id] = {(v.metric, v.category): float(v.value) for v in values}
        return self._credits[r.instance.id]

    def _all_asked(
        self, own: list[MetricValue], answered: list[InstanceScores], abstained: list[AbstainedInstance]
    ) -> list[MetricValue]:
        # per metric value, per instance category: [summed credit, answered instances, abstained instances]
        tally: dict[Key, dict[str, list[float]]] = defaultdict(lambda: defaultdict(lambda: [0.0, 0, 0]))
        keys_of_category: dict[str, set[Key]] = defaultdict(set)
        for r in answered:
            credits = self._credit(r)
            if credits is None:
                return []
            category = r.instance.category
            keys_of_category[category].update(credits)
            for key, credit in credits.items():
                cell = tally[key][category]
                cell[0] += credit
                cell[1] += 1
        overall = {k for ks in keys_of_category.values() for k in ks if k[1] == "all"}
        for a in abstained:
            category = a.instance.category
            for key in keys_of_category.get(category, overall):
                tally[key][category][2] += 1
        out = []
        for v in own:
            groups = tally.get((v.metric, v.category))
            if not groups:
                continue
            macro = v.averaging.startswith("macro")
            check = _average([(c, n) for c, n, _ in groups.values() if n], macro)
            if not math.isfinite(v.value) or not math.isclose(check, v.value, rel_tol=0.0, abs_tol=1e-9):
                continue  # not a mean of per-instance credits: only the answered value is reported
            out.append(
                replace(
                    v,
                    value=_average([(c, n + m) for c, n, m in groups.values()], macro),
                    n=int(sum(n + m for _, n, m in groups.values())),
                    averaging=f"{v.averaging}; over all asked instances, an abstention counts as wrong",
                )
            )
        return out


def _average(groups: list[tuple[float, float]], macro: bool) -> float:
    """Micro: summed credit over all instances; macro: the mean over groups of each group's mean."""
    groups = [(c, n) for c, n in groups if n]
    if not groups:
        return float("nan")
    if macro:
        return sum(c / n for c, n in groups) / len(groups)
    return sum(c for c, _ in groups) / sum(n for _, n in groups)


def _coverage(answered: list[InstanceScores], abstained: list[AbstainedInstance]) -> list[MetricValue]:
    asked: dict[str, int] = defaultdict(int)
    done: dict[str, int] = defaultdict(int)
    for r in answered:
        asked[r.instance.category] += 1
        done[r.instance.category] += 1
    for a in abstained:
        asked[a.instance.category] += 1
    total = sum(asked.values())
    if not total:
        return []
    rule, averaging = "wrong", "answered instances / asked instances"
    out = [MetricValue("coverage", c, done[c] / asked[c], asked[c], 0, rule, averaging) for c in sorted(asked)]
    out.append(MetricValue("coverage", "all", sum(done.values()) / total, total, 0, rule, averaging))
    return out
