"""Per-instance verdicts of a stored cell: right, wrong, tie, abstained (or part credit), per metric.

A cell stores each instance's outcome (its score matrix, or answers) and the values aggregated
from them; the per-instance credit is not stored. It is derived here from those stored outcomes by
the engine's own functions, the ones ``store upgrade`` rebuilds a cell's metrics with
(:func:`vlc_harness.metrics.rebuild.outcome_arrays`, :func:`vlc_harness.metrics.cell.columns_for`):
the credit column a value is aggregated from, under the benchmark's own tie rule. So a verdict
and the value it adds up to follow one rule, the engine's, and a reader of verdicts never
imports the metric code. A board publishes only cells whose metrics version is the current
declaration's (``render`` refuses stale cells), so the verdicts and the stored values agree.

Metrics that are a ranking statistic over instances (ROC AUC) have no per-instance verdict.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from vlc_harness.records import Outcome

RIGHT, WRONG, TIE, ABSTAINED, PART = "right", "wrong", "tie", "abstained", "part"
"""The verdicts: full credit; no credit; the scores tied (credited as the tie rule says);
the model abstained; part credit (a column whose instance credit lies between 0 and 1)."""
_EPS = 1e-9


class NoVerdicts(ValueError):
    """The metric is not aggregated from a per-instance credit (a ranking statistic such as ROC AUC)."""


class OutcomesUnreadable(ValueError):
    """The cell's stored outcomes do not fit the benchmark's declaration (another layout, missing arrays)."""


@dataclass(frozen=True)
class InstanceVerdicts:
    """One cell's verdicts on one metric, over the instances that count for it, in the cell's order."""

    metric: str
    """The per-instance column the metric is aggregated from (``i2t_accuracy`` for its macro)."""
    tie_rule: str
    ids: tuple[str, ...]
    full_credit: np.ndarray
    """Per instance: credit 1 (right; a tie the tie rule credits fully counts too)."""
    no_credit: np.ndarray
    """Per instance: credit 0 (wrong; a tie under the strict rule, or an abstention counted wrong)."""
    tied: np.ndarray
    """Per instance: the deciding scores tied."""
    answered: np.ndarray
    """Per instance: the model answered (did not abstain)."""

    def verdicts(self) -> list[str]:
        """Per instance, one verdict: abstained, else tie, else right, wrong or part credit."""
        out = []
        for k in range(len(self.ids)):
            if not self.answered[k]:
                out.append(ABSTAINED)
            elif self.tied[k]:
                out.append(TIE)
            elif self.full_credit[k]:
                out.append(RIGHT)
            elif self.no_credit[k]:
                out.append(WRONG)
            else:
                out.append(PART)
        return out

    def by_instance(self) -> dict[str, str]:
        """Instance id -> verdict."""
        return dict(zip(self.ids, self.verdicts()))


def _credit_column(columns: Sequence[Any], metric: str) -> Any | None:
    """The column ``metric`` is aggregated from (itself, or one of its aggregations' ids); ``None``
    when it is a ranking statistic (a column with labels) or not declared."""
    for column in columns:
        if column.labels is not None:
            continue
        if column.metric == metric or any(a.metric_id(column.metric) == metric for a in column.aggregations):
            return column
    return None


def instance_verdicts(
    benchmark: Any, instances: Sequence[Any], rows: Mapping[str, Outcome], metric: str
) -> InstanceVerdicts | None:
    """The verdicts of a cell (its stored outcome ``rows`` by instance id) on ``metric``, over
    ``instances`` (the benchmark's, for the gold structure); ``None`` when the cell has an outcome
    for none of them. Raises :class:`OutcomesUnreadable` when the outcomes do not fit the
    declaration and :class:`NoVerdicts` when ``metric`` has no per-instance credit."""
    from vlc_harness.metrics.cell import columns_for
    from vlc_harness.metrics.rebuild import outcome_arrays

    chosen = [inst for inst in instances if inst.id in rows]
    if not chosen:
        return None
    try:
        outcomes, _ = outcome_arrays(chosen, dict(rows))
        column = _credit_column(columns_for(benchmark, outcomes, coverage=False), metric)
    except Exception as exc:  # a layout this declaration cannot read
        raise OutcomesUnreadable(f"{type(exc).__name__}: {exc}") from exc
    if column is None:
        raise NoVerdicts(f"{metric} has no per-instance credit")
    credit = np.asarray(column.credit, dtype=np.float64)
    n = len(credit)
    member = np.ones(n, dtype=bool) if column.members is None else np.asarray(column.members, dtype=bool)
    ties = np.zeros(n, dtype=bool) if column.ties is None else np.asarray(column.ties) > 0
    answered = getattr(outcomes, "answered", None) if column.answered is None else column.answered
    answered = np.ones(n, dtype=bool) if answered is None or np.ndim(answered) != 1 else np.asarray(answered, bool)
    keep = np.flatnonzero(member)
    return InstanceVerdicts(
        column.metric,
        column.tie_rule,
        tuple(outcomes.instances[k].id for k in keep.tolist()),
        credit[keep] >= 1 - _EPS,
        credit[keep] <= _EPS,
        ties[keep],
        answered[keep],
    )
