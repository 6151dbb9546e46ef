"""What the index shows, as data for ``index.html`` and ``static/board.js``: its columns.

The model's own columns, then per benchmark its metrics, its I2T - T2I gap and its drilldown
(hidden until toggled); each column has a stable key for permalinks. The columns travel to the
page's script as ``data/index.js``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from vlc_harness.wording import plural
from vlc_leaderboard.board import Board
from vlc_leaderboard.columns import BenchmarkColumn
from vlc_leaderboard.families import FamilyStyles
from vlc_leaderboard.fmt import SORT_ARROWS, SORT_ORDERS, metric_title, metric_tooltip, slug
from vlc_leaderboard.magnitude import at_glance
from vlc_leaderboard.ranking import ORDER_RULE
from vlc_leaderboard.size_plot import size_plot
from vlc_leaderboard.summary_plot import summary_plot

INDEX_DATA = "data/index.js"
"""The index's page data, relative to the site root (loaded with ``<script src>``)."""


@dataclass(frozen=True)
class IndexColumn:
    """One column of the index table, as the template and ``static/board.js`` see it."""

    key: str
    """Stable id, used in permalinks: ``model``, ``overall``, ``family``, ``params``, ``open``,
    ``<benchmark>.<metric>``, ``<benchmark>.gap`` or ``<benchmark>.~<category>`` (a drilldown)."""
    title: str
    tooltip: str = ""
    type: str = "num"
    """``num`` or ``text``: how the column sorts."""
    better: str = ""
    """``higher``, ``lower`` or ``""`` (no direction): the first click sorts the better end first."""
    group: str = ""
    """The benchmark's title (``""`` for the model's own columns)."""
    metric: str = ""
    hidden: bool = False
    """Hidden until the reader shows it with the column chooser (or the drilldown toggle)."""
    label: str = ""
    """The column's name in the phone layout's cards (benchmark and title)."""
    drill: str = ""
    """For a drilldown column: the benchmark's key prefix (its toggle shows and hides them together)."""
    category: str = ""


MODEL_COLUMNS = (
    IndexColumn("model", "Model", "the model's display name", "text"),
    IndexColumn(
        "overall",
        "Mean rank",
        "the mean of the model's headline ranks over the benchmarks it has (ordered so once it has half of them)",
        "num",
        "lower",
        label="Overall",
    ),
    IndexColumn("family", "Family", "model family", "text", hidden=True, label="Family"),
    IndexColumn("params", "Params (M)", "parameters, millions", "num", label="Params (M)"),
    IndexColumn("open", "Open weights", "weights published", "text", hidden=True, label="Open weights"),
)
DEFAULT_SORT = "overall"
"""The index's order until the reader picks another: the overall column, best first."""


def drill_label(col: BenchmarkColumn) -> str:
    """The drilldown toggle's words: ``7 subsets`` for a macro's parts, else ``10 categories``."""
    if col.drill is None:
        return ""
    count = len(col.drill.categories)
    headline = col.metrics[0].metric if col.metrics else ""
    unit = col.drill.unit if col.drill.metric != headline and col.drill.unit else "category"
    return plural(count, unit)


def scope(board: Board) -> dict[str, Any]:
    """What the board covers, for the top of the index: models (and references) listed, benchmarks,
    each benchmark's data version, and the benchmarks the table leaves out (their type is not
    installed where the board was built, so there are no metrics to show) with why."""
    kinds = [row.kind for row in board.rows]
    shown = [col for col in board.benchmarks if col.metrics]
    return {
        "models": len(kinds) - kinds.count("baseline"),
        "blind": kinds.count("blind"),
        "others": kinds.count("baseline"),
        "benchmarks": len(shown),
        "versions": [(col.title, col.data_version) for col in shown],
        "not_shown": [(col.title, slug(col.id), col.note) for col in board.benchmarks if not col.metrics],
    }


def glossary(board: Board) -> list[dict[str, str]]:
    """One line per distinct headline metric: its title, the benchmarks that use it and its
    definition from the benchmark's declaration, in the order the index shows them."""
    entries: dict[str, dict[str, Any]] = {}
    for col in board.benchmarks:
        if not col.metrics:
            continue
        metric = col.metrics[0].metric
        spec = col.specs.get(metric)
        entry = entries.setdefault(
            metric,
            {
                "title": metric_title(metric),
                "metric": metric,
                "definition": spec.description if spec else "",
                "better": "" if spec is None else ("higher" if spec.higher_is_better else "lower"),
                "benchmarks": [],
            },
        )
        entry["benchmarks"].append(col.title)
    return [{**e, "benchmarks": ", ".join(e["benchmarks"])} for e in entries.values()]


def index_context(board: Board) -> dict[str, Any]:
    """The index's columns: the model's own, then per benchmark its metrics, its gap and its
    drilldown (hidden until toggled)."""
    groups: list[dict[str, Any]] = []
    keys: set[str] = {c.key for c in MODEL_COLUMNS}
    for col in (c for c in board.benchmarks if c.metrics):  # no metrics: left out, said in the scope
        base = slug(col.id)
        while any(k.startswith(base + ".") for k in keys):
            base += "_"
        metric_columns = [
            IndexColumn(
                f"{base}.{mc.metric}",
                metric_title(mc.metric),
                metric_tooltip(mc.metric, col.specs.get(mc.metric)),
                "num",
                "higher" if mc.higher_is_better else "lower",
                col.title,
                mc.metric,
                label=f"{col.title} · {metric_title(mc.metric)}",
            )
            for mc in col.metrics
        ]
        gap_columns = []
        if col.gap:
            title = f"{metric_title(col.gap[0])} − {metric_title(col.gap[1])}"
            gap_columns.append(
                IndexColumn(
                    f"{base}.gap",
                    "I2T − T2I",
                    f"{col.gap[0]} minus {col.gap[1]}: positive when image-to-text is higher ({title})",
                    "num",
                    "",
                    col.title,
                    label=f"{col.title} · I2T − T2I gap",
                )
            )
        drill_columns = []
        if col.drill is not None:
            spec = col.specs.get(col.drill.metric)
            for category in col.drill.categories:
                drill_columns.append(
                    IndexColumn(
                        f"{base}.~{category}",
                        category,
                        f"{metric_title(col.drill.metric)} on {category} ({col.drill.metric})",
                        "num",
                        "higher" if spec is None or spec.higher_is_better else "lower",
                        col.title,
                        col.drill.metric,
                        hidden=True,
                        label=f"{col.title} · {category}",
                        drill=base,
                        category=category,
                    )
                )
        columns = metric_columns + gap_columns + drill_columns
        keys.update(c.key for c in columns)
        groups.append(
            {
                "col": col,
                "base": base,
                "columns": columns,
                "metric_columns": metric_columns,
                "drill_columns": drill_columns,
                "drill_label": drill_label(col),
                "keys": " ".join(c.key for c in columns),
            }
        )
    leaves = [*MODEL_COLUMNS, *(c for g in groups for c in g["columns"])]
    page_data = {
        "columns": [asdict(c) for c in leaves],
        "defaultSort": DEFAULT_SORT,
        "arrows": SORT_ARROWS,
        "orders": SORT_ORDERS,
    }
    return {
        "model_columns": MODEL_COLUMNS,
        "groups": groups,
        "page_data": page_data,
        "index_data": INDEX_DATA,
        "counted": board.counted,
        "order_rule": ORDER_RULE,
        "scope": scope(board),
        "glossary": glossary(board),
        "summary": summary_plot(board),
        "size": size_plot(board.rows, FamilyStyles.of_rows(board.rows)),
        "at_glance": at_glance(board.rows, board.benchmarks),
    }
