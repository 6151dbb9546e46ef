"""Why a published value carries no 95% interval, in words for readers.

The engine stores an interval only when every bootstrap replicate of the value is a number
(``vlc_harness.metrics.cell.cell_metrics``). A ranking statistic such as ROC AUC has no value on a
resample that holds a single class, and a small category none on a resample that draws none of its
instances, so some replicates are NaN and the value is stored without an interval. The pages then
say "no interval" and why, instead of showing nothing. Nothing is computed here but counts of the
stored replicates (read through the results API).
"""

from __future__ import annotations

import numpy as np

from vlc_harness.results import CellRecord, replicates, stored_value


def no_interval_reason(cell: CellRecord | None, metric: str, category: str = "all") -> str:
    """Why the stored value ``metric``/``category`` of ``cell`` has no interval; empty where it has one
    (or where the cell stores no such value)."""
    if cell is None:
        return ""
    stored = stored_value(cell, metric, category)
    if stored is None or stored.ci95 is not None:
        return ""
    if not cell.metrics_version:
        return "this cell was stored before resamples were kept (v0.1)"
    reps = replicates(cell, metric, category)
    if reps is None or reps.size == 0:
        return "no bootstrap resamples are stored for this value"
    undefined = int(np.count_nonzero(~np.isfinite(reps)))
    if undefined:
        return (
            f"{undefined} of {reps.size} bootstrap resamples have no value ({_undefined_on(metric, category)}), "
            "and an interval is stored only when every resample has one"
        )
    return "no interval was stored for this value"


def _undefined_on(metric: str, category: str) -> str:
    """Where such a value is undefined, in words: the usual cause for this kind of value."""
    if metric.startswith("auc"):
        return "ROC AUC is undefined on a resample holding one class only"
    if category != "all":
        return "a resample can draw none of this category's instances"
    return "the metric is undefined on them"
