"""How the pages write numbers, metric names and file names (shared by every page and download)."""

from __future__ import annotations

import math

from vlc_harness.site_names import file_name
from vlc_harness.types import MetricSpec

METRIC_TITLES = {
    "group_score": "Group score",
    "text_score": "Text score",
    "image_score": "Image score",
    "i2t_score": "I2T score",
    "t2i_score": "T2I score",
    "i2t_accuracy": "I2T accuracy",
    "i2t_accuracy_macro": "I2T accuracy",
    "i2t_accuracy_micro": "I2T accuracy (micro)",
    "t2i_accuracy": "T2I accuracy",
    "t2i_accuracy_macro": "T2I accuracy",
    "auc": "ROC AUC",
    "auc_macro": "ROC AUC",
    "aug_accuracy": "Aug. accuracy",
    "orig_accuracy": "Original accuracy",
    "brittleness": "Brittleness",
    "coverage": "Coverage",
}
"""Short human-readable titles of the common metric ids; others are derived from the id."""
_WORDS = {
    "i2t": "I2T",
    "itt": "ITT",
    "tot": "TOT",
    "t2i": "T2I",
    "auc": "AUC",
    "roc": "ROC",
    "macro": "(macro)",
    "micro": "(micro)",
}
_VARIANTS = {"_ties_half": "ties broken at random", "_answered": "answered only"}
SCORE_METRICS = ("mean_score",)
"""Metric id prefixes whose values are raw model scores, not fractions (never shown as percent)."""


slug = file_name
"""A file-name-safe form of an id (ids may hold ``:``, ``/`` or spaces): the core's one rule
(:func:`vlc_harness.site_names.file_name`), by which the registry refuses two ids sharing a page or a download."""


def pct(value: float | None, digits: int = 1) -> str:
    """A fraction as a percentage with ``digits`` decimals ('' for None/NaN)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return f"{100 * value:.{digits}f}"


def metric_title(metric: str) -> str:
    """A short human-readable title for a metric id (``i2t_accuracy_macro`` -> ``I2T accuracy``)."""
    for suffix, variant in _VARIANTS.items():
        if metric.endswith(suffix) and len(metric) > len(suffix):
            return f"{metric_title(metric[: -len(suffix)])} ({variant})"
    if metric in METRIC_TITLES:
        return METRIC_TITLES[metric]
    words = [_WORDS.get(w, w) for w in metric.split("_") if w]
    if not words:
        return metric
    return " ".join([words[0][:1].upper() + words[0][1:], *words[1:]])


def metric_tooltip(metric: str, spec: MetricSpec | None) -> str:
    """The metric id with its definition and direction: the tooltip of a metric's title."""
    if spec is None:
        return metric
    better = "higher" if spec.higher_is_better else "lower"
    return f"{metric}: {spec.description} ({better} is better)"


def metric_unit(metric: str) -> str:
    """``percent`` for fractions (shown as percent everywhere), ``score`` for raw model scores."""
    return "score" if metric.startswith(SCORE_METRICS) else "percent"


def metric_value(value: float | None, metric: str, digits: int = 1) -> str:
    """A metric's value as the pages show it: percent for fractions, raw (3 decimals) for scores."""
    if metric_unit(metric) == "percent":
        return pct(value, digits)
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return f"{value:.3f}"


DIFF_NOTE = (
    "Differences are computed from the unrounded values, so a difference can be 0.1 away from the "
    "difference of the rounded values shown (91.7 − 87.4 shown as +4.2)."
)
"""Said wherever the pages show a difference of two values (issue 41, item 8), and in each difference's title."""
DIFF_TITLE = "computed from the unrounded values"


def metric_diff(diff: float | None, metric: str) -> str:
    """A signed difference of two values of a metric, in the unit the pages show it in."""
    if diff is None or (isinstance(diff, float) and math.isnan(diff)):
        return ""
    return f"{100 * diff:+.2f}" if metric_unit(metric) == "percent" else f"{diff:+.3f}"


def number(value: object) -> str:
    """A number from the registry as written (``150``, not ``150.0``); ``''`` for none."""
    if value is None or isinstance(value, bool):
        return ""
    if isinstance(value, (int, float)):
        if isinstance(value, float) and math.isnan(value):
            return ""
        return f"{value:g}" if isinstance(value, float) else str(value)
    return str(value)


LOWER_IS_BETTER = "↓"
"""The one mark of a lower-is-better column; it gives way to the sort arrow while that column sorts."""
SORT_ARROWS = {"ascending": "▴", "descending": "▾"}
"""The arrow a sorted column's header shows, by its ``aria-sort``: one arrow per header at a time (small
triangles: the compare view's ▲ ▼ mark significant differences)."""
SORT_ORDERS = {"num": ("high to low", "low to high"), "text": ("Z to A", "A to Z")}
"""The order selector's words by column type: (descending, ascending); A-Z only for text."""
