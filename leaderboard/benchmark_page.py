"""What a benchmark page shows, as data for ``benchmark.html``.

It leads with its ranked headline table and the labelled I2T-against-T2I plot, then a table of
contents, the per-category tables (sorted, with humans, chance and the papers' numbers), the
benchmark's metadata and BibTeX, and the rules last. The ranked table lists models by rank, then by
the value shown first (a tie-heavy value's ties-broken one), and says in a sentence why a model
showing the same value as one above it ranks lower; no model leads a table by tying.
"""

from __future__ import annotations

import math
from typing import Any

from vlc_harness.results import AUDIT_TAGS, IDENTICAL_TEXT, declared_metrics
from vlc_harness.verify import board_paper_match
from vlc_leaderboard.board import Board
from vlc_leaderboard.columns import BenchmarkColumn
from vlc_leaderboard.families import FamilyStyles
from vlc_leaderboard.fmt import metric_title, metric_value, slug
from vlc_leaderboard.intervals import no_interval_reason
from vlc_leaderboard.rows import TIE_HEAVY, CellView, Row, Value
from vlc_leaderboard.svg import Point, legend, scatter


def _better_first(values: list[tuple[Any, float | None]], higher: bool) -> list[Any]:
    """Items by value, best first; those without a value last (stable)."""
    known = [(item, v) for item, v in values if v is not None and not math.isnan(v)]
    missing = [item for item, v in values if v is None or math.isnan(v)]
    known.sort(key=lambda pair: -pair[1] if higher else pair[1])
    return [item for item, _ in known] + missing


def benchmark_context(board: Board, col: BenchmarkColumn) -> dict[str, Any]:
    """The benchmark page: ranked headline table, plot, contents, per-category tables, rules."""
    published = [r for r in board.rows if r.cells.get(col.id) and r.cells[col.id].published]
    headline = col.metrics[0] if col.metrics else None
    if headline is not None:
        published = by_rank_then_value(published, col.id, headline.metric, headline.higher_is_better)
    missing = [(r, r.cells[col.id]) for r in board.rows if r.cells.get(col.id) and not r.cells[col.id].published]
    stored = [r.cells[col.id].cell for r in published]
    present = {m["metric"] for cell in stored if cell is not None for m in cell.metrics}
    order = [mc.metric for mc in col.metrics]
    shown = [s for s in col.specs.values() if s.id in declared_metrics(present or set(col.specs))]
    shown.sort(key=lambda s: (order.index(s.id) if s.id in order else len(order), list(col.specs).index(s.id)))
    tables = [_table(col, spec, published) for spec in shown]
    plot, plot_legend = _plot(col, published, FamilyStyles.of_rows(board.rows))
    tables = [t for t in tables if t is not None]
    hidden_variants = sorted(present - declared_metrics(present))
    source = col.card.headline_origin if col.card is not None else ""
    first = published[0].cells[col.id].cell if published else None
    return {
        "col": col,
        "headline_source": source.removeprefix("ours:").strip(),
        "headline_ours": source.startswith("ours:"),
        "duplicates": identical_text_counts(first.metrics) if first is not None else [],
        "published": published,
        "missing": missing,
        "rank_notes": rank_notes(published, col.id, headline.metric, headline.higher_is_better) if headline else [],
        "tables": tables,
        "rules": shown,
        "variants": bool(hidden_variants),
        "abstains": any(v == "coverage" or v.endswith("_answered") for v in hidden_variants),
        "plot": plot,
        "legend": plot_legend,
        "shows_diffs": bool(col.gap) or any(r.cells[col.id].reported for r in published),
        "bibtex": col.card.bibtex if col.card is not None else "",
    }


def identical_text_counts(metrics: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The word-order audit's ``identical-text`` count of a cell, a data-quality note: per set of
    metrics sharing one audit, how many of the audited instances compare a caption with the very
    same string (they always tie; the tie counts as the metric's tie rule says)."""
    counts: dict[str, dict[str, int]] = {}
    for m in metrics:
        if m["metric"] in declared_metrics([m["metric"]]) and m["category"] in AUDIT_TAGS:
            counts.setdefault(m["metric"], {})[m["category"]] = int(m.get("n") or 0)
    notes: dict[tuple[int, int], list[str]] = {}
    for metric, by_tag in counts.items():
        if by_tag.get(IDENTICAL_TEXT):
            notes.setdefault((by_tag[IDENTICAL_TEXT], sum(by_tag.values())), []).append(metric)
    return [{"count": c, "total": t, "metrics": ms} for (c, t), ms in notes.items()]


def by_rank_then_value(rows: list[Row], bench: str, metric: str, higher: bool) -> list[Row]:
    """Rows by their rank on ``metric`` (#1 first), then by the value shown first, best first; values
    without a rank follow by value, rows without a value last. Ranks so read monotone down the table."""

    def key(row: Row) -> tuple[int, int, float]:
        value = row.cells[bench].values.get(metric)
        if value is None or math.isnan(value.sort_value):
            return (2, 0, 0.0)
        return (0 if value.rank else 1, value.rank or 0, -value.sort_value if higher else value.sort_value)

    return sorted(rows, key=key)


def rank_notes(rows: list[Row], bench: str, metric: str, higher: bool) -> list[str]:
    """One sentence per model listed below a model whose value it equals or beats (as shown): why its
    rank is worse, naming the models significantly better than it and not than the others."""
    notes = []
    names = {r.id: r.name for r in rows}
    values = [(r, r.cells[bench].values[metric]) for r in rows if metric in r.cells[bench].values]
    ranked = [(r, v, v.rank) for r, v in values if v.rank]
    for row, value, rank in ranked:
        shown = metric_value(value.shown, metric)
        peers = [(r, v) for r, v, k in ranked if k < rank and _not_better(v, value, metric, higher)]
        if not peers:
            continue
        equal = all(metric_value(v.shown, metric) == shown for _, v in peers)
        listed = _join(
            [f"{r.name} at #{v.rank}" + ("" if equal else f" ({metric_value(v.shown, metric)})") for r, v in peers]
        )
        sentence = (
            f"{row.name} shows {shown}, {'as do' if equal else 'no worse than'} {listed}, yet ranks #{value.rank}"
        )
        peer_ids = {r.id for r, _ in peers}
        why = [
            m
            for m in value.significantly_better
            if m in peer_ids or all(m not in v.significantly_better for _, v in peers)
        ]
        if why:
            sentence += f": {_join([names.get(m, m) for m in why])} {'is' if len(why) == 1 else 'are'} significantly "
            sentence += f"better than {row.name} on the same instances"
            others = [r.name for r, _ in peers if r.id not in why]
            sentence += f", and not than {_join(others, 'or')}" if others else ""
        notes.append(sentence + ".")
    return notes


def _not_better(peer: Value, value: Value, metric: str, higher: bool) -> bool:
    """``value`` is at least as good as ``peer`` as the page shows them (equal to the digit, or better)."""
    if metric_value(peer.shown, metric) == metric_value(value.shown, metric):
        return True
    return value.shown > peer.shown if higher else value.shown < peer.shown


def _join(items: list[str], word: str = "and") -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + f" {word} " + items[-1]


def _table(col: BenchmarkColumn, spec: Any, published: list[Row]) -> dict[str, Any] | None:
    categories: list[str] = []
    values: dict[str, dict[str, dict[str, Any]]] = {}
    for row in published:
        cell = row.cells[col.id].cell
        for m in cell.metrics if cell is not None else []:
            if m["metric"] != spec.id:
                continue
            if m["category"] not in categories:
                categories.append(m["category"])
            values.setdefault(row.id, {})[m["category"]] = m
    if not categories:
        return None
    seen = list(categories)
    categories.sort(key=lambda c: (c != "all", seen.index(c)))
    first = categories[0]
    keyed = [(r, _table_sort_value(r.cells[col.id], spec.id, first)) for r in published]
    rows = _better_first(keyed, spec.higher_is_better)
    paper: dict[str, dict[str, dict[str, Any]]] = {}
    for row in rows:
        match = board_paper_match(row.meta)
        cell = row.cells[col.id].cell
        version = cell.data_version if cell is not None else ""
        for ref in col.references:
            if not match or ref.matches != match or ref.metric != spec.id or ref.category not in categories:
                continue
            if ref.data_version and ref.data_version != version:
                continue
            ours = values.get(row.id, {}).get(ref.category)
            ci = ours.get("ci95") if ours else None
            compared = bool(ref.data_version) and ref.data_version == version
            paper.setdefault(row.id, {})[ref.category] = {
                "value": ref.value,
                "diff": None if ours is None else float(ours["value"]) - ref.value,
                "table": ref.table,
                "compared": compared,
                "outside": bool(compared and ci and not (ci[0] <= ref.value <= ci[1])),
            }
    human = {c: col.humans[(spec.id, c)] for c in categories if (spec.id, c) in col.humans}
    derived = {c for c in categories if (spec.id, c) in col.derived}
    sources: dict[str, dict[str, Any]] = {}
    for r in col.references:
        if r.metric == spec.id and r.category in categories and r.matches != "human":
            sources.setdefault(f"{r.source} [{r.table}]", {"row": r, "values": {}})["values"][r.category] = r.value
    return {
        "spec": spec,
        "anchor": "m-" + slug(spec.id),
        "categories": categories,
        "rows": rows,
        "values": values,
        "no_interval": {
            (row.id, c): no_interval_reason(row.cells[col.id].cell, spec.id, c)
            for row in rows
            for c in values.get(row.id, {})
            if not values[row.id][c].get("ci95")
        },
        "paper": paper,
        "human": human,
        "derived": derived,
        "references": list(sources.values()),
    }


def _table_sort_value(cv: CellView, metric: str, category: str) -> float | None:
    """A row's place in a per-category table: its value, or for a tie-heavy cell the value with
    ties broken at random (what it is ranked by), so no model leads a table by tying."""
    found = {m["metric"]: m for m in (cv.cell.metrics if cv.cell else []) if m["category"] == category}
    own = found.get(metric)
    half = found.get(metric + "_ties_half")
    if own is None:
        return None
    tied = cv.tie_heavy or (int(own.get("n") or 0) > 0 and int(own.get("ties") or 0) / int(own["n"]) >= TIE_HEAVY)
    return float(half["value"]) if tied and half is not None else float(own["value"])


def _plot(col: BenchmarkColumn, published: list[Row], styles: FamilyStyles) -> tuple[Any, Any]:
    """The plot and its family legend (both ``""`` without a plot)."""
    if not col.gap:
        return "", ""
    points = []
    plotted = []
    for row in published:
        pair = row.cells[col.id].direction_pair(col.gap)  # ties-broken where ties dominate; none when n/a
        if pair is not None:
            points.append(Point(row.name, pair[0], pair[1], row.kind, styles.of(row)))
            plotted.append(row)
    if not points:
        return "", ""
    human = None
    if all((m, "all") in col.humans for m in col.gap):
        human = (col.humans[(col.gap[0], "all")], col.humans[(col.gap[1], "all")])
    chance = None
    first, second = (col.specs.get(m) for m in col.gap)
    if first is not None and second is not None and first.chance is not None and second.chance is not None:
        chance = (first.chance, second.chance)
    titles = (metric_title(col.gap[0]), metric_title(col.gap[1]))
    return scatter(points, human, chance, titles), legend(styles.legend(plotted))
