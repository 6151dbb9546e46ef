"""What the benchmark and model pages show, as data for their templates.

A benchmark page leads with its ranked headline table and the labelled I2T-against-T2I plot, then a
table of contents, the per-category tables (sorted, with humans, chance and the papers' numbers),
the benchmark's metadata and BibTeX, and the rules last. A model page reads like a model card:
description, links, license, parameters, the upstream evaluation it reproduces and what differs
from it, training-data pools with their overlap marks, a rank summary per benchmark, then each
cell's metrics and provenance.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from vlc_harness.metrics.aggregate import AUDIT_TAGS, IDENTICAL_TEXT
from vlc_harness.metrics.cell import declared_ids
from vlc_harness.verify import board_paper_match
from vlc_leaderboard.board import TIE_HEAVY, BenchmarkColumn, Board, CellView, Row, Value
from vlc_leaderboard.cite import benchmark_bibtex
from vlc_leaderboard.fmt import metric_title, slug
from vlc_leaderboard.public import redact_paths
from vlc_leaderboard.svg import Point, scatter

TIE_RULES = {
    "wrong": "a tie is wrong (strict >)",
    "right": "a tie counts as correct (reference code)",
    "half": "a tie counts half",
    "random": "ties broken at random (expected value)",
}


def _better_first(values: list[tuple[Any, float | None]], higher: bool) -> list[Any]:
    """Items by value, best first; those without a value last (stable)."""
    known = [(item, v) for item, v in values if v is not None and not math.isnan(v)]
    missing = [item for item, v in values if v is None or math.isnan(v)]
    known.sort(key=lambda pair: -pair[1] if higher else pair[1])  # type: ignore[operator]
    return [item for item, _ in known] + missing


def benchmark_context(board: Board, col: BenchmarkColumn) -> dict[str, Any]:
    """The benchmark page: ranked headline table, plot, contents, per-category tables, rules."""
    published = [r for r in board.rows if r.cells.get(col.id) and r.cells[col.id].published]
    headline = col.metrics[0] if col.metrics else None
    if headline is not None:
        keyed = [(r, _sort_value(r.cells[col.id], headline.metric)) for r in published]
        published = _better_first(keyed, headline.higher_is_better)
    missing = [(r, r.cells[col.id]) for r in board.rows if r.cells.get(col.id) and not r.cells[col.id].published]
    present = {m["metric"] for r in published for m in (r.cells[col.id].cell.metrics if r.cells[col.id].cell else [])}
    order = [mc.metric for mc in col.metrics]
    shown = [s for s in col.specs.values() if s.id in declared_ids(present or set(col.specs))]
    shown.sort(key=lambda s: (order.index(s.id) if s.id in order else len(order), list(col.specs).index(s.id)))
    tables = [_table(col, spec, published) for spec in shown]
    tables = [t for t in tables if t is not None]
    hidden_variants = sorted(present - declared_ids(present))
    source = col.benchmark.headline_origin() if col.benchmark is not None else ""
    first = published[0].cells[col.id].cell if published else None
    return {
        "col": col,
        "headline_source": source.removeprefix("ours:").strip(),
        "headline_ours": source.startswith("ours:"),
        "duplicates": identical_text_counts(first.metrics) if first is not None else [],
        "published": published,
        "missing": missing,
        "tables": tables,
        "rules": shown,
        "variants": bool(hidden_variants),
        "abstains": any(v == "coverage" or v.endswith("_answered") for v in hidden_variants),
        "plot": _plot(col, published),
        "bibtex": benchmark_bibtex(col.benchmark, col.id) if col.benchmark is not None else "",
        "families": _families(published),
    }


def identical_text_counts(metrics: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The word-order audit's ``identical-text`` count of a cell, a data-quality note: per set of
    metrics sharing one audit, how many of the audited instances compare a caption with the very
    same string (they always tie; the tie counts as the metric's tie rule says)."""
    counts: dict[str, dict[str, int]] = {}
    for m in metrics:
        if m["metric"] in declared_ids([m["metric"]]) and m["category"] in AUDIT_TAGS:
            counts.setdefault(m["metric"], {})[m["category"]] = int(m.get("n") or 0)
    notes: dict[tuple[int, int], list[str]] = {}
    for metric, by_tag in counts.items():
        if by_tag.get(IDENTICAL_TEXT):
            notes.setdefault((by_tag[IDENTICAL_TEXT], sum(by_tag.values())), []).append(metric)
    return [{"count": c, "total": t, "metrics": ms} for (c, t), ms in notes.items()]


def _sort_value(cv: CellView, metric: str) -> float | None:
    value = cv.values.get(metric)
    return None if value is None else value.sort_value


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


def _families(rows: list[Row]) -> list[str]:
    seen: list[str] = []
    for row in rows:
        family = _family(row)
        if family not in seen:
            seen.append(family)
    return seen


def _family(row: Row) -> str:
    if row.kind == "baseline":
        return "baseline"
    return str(row.meta.get("family") or ("image-blind" if row.kind == "blind" else "other"))


def _plot(col: BenchmarkColumn, published: list[Row]) -> Any:
    if not col.gap:
        return ""
    points = []
    families = _families(published)
    for row in published:
        vals = row.cells[col.id].values
        if all(m in vals for m in col.gap):
            points.append(
                Point(row.name, vals[col.gap[0]].value, vals[col.gap[1]].value, row.kind, families.index(_family(row)))
            )
    if not points:
        return ""
    human = None
    if all((m, "all") in col.humans for m in col.gap):
        human = (col.humans[(col.gap[0], "all")], col.humans[(col.gap[1], "all")])
    chance = None
    if all(col.specs.get(m) and col.specs[m].chance is not None for m in col.gap):
        chance = (col.specs[col.gap[0]].chance, col.specs[col.gap[1]].chance)
    return scatter(points, human, chance, (metric_title(col.gap[0]), metric_title(col.gap[1])), families)


# ---- model pages ----


@dataclass(frozen=True)
class Link:
    """A link a model card shows (http and https only)."""

    title: str
    url: str


def _links(meta: Mapping[str, Any]) -> list[Link]:
    out = []
    for key, title in (("homepage", "Homepage"), ("paper", "Paper"), ("download", "Weights")):
        url = meta.get(key)
        if isinstance(url, str) and url.startswith(("https://", "http://")):
            out.append(Link(title, url))
    extra = meta.get("links")
    if isinstance(extra, Mapping):
        for title, url in extra.items():
            if isinstance(url, str) and url.startswith(("https://", "http://")):
                out.append(Link(str(title).replace("_", " ").capitalize(), url))
    return out


def params_text(value: Any) -> str:
    """Parameters in millions as a reader says them: ``151 M``, ``1.2 B``."""
    try:
        millions = float(value)
    except (TypeError, ValueError):
        return ""
    if millions >= 1000:
        return f"{millions / 1000:.1f} B".replace(".0 B", " B")
    return f"{millions:g} M"


def _facts(row: Row) -> list[tuple[str, str]]:
    meta = row.meta
    facts = []
    if meta.get("family"):
        facts.append(("Family", str(meta["family"])))
    if meta.get("source"):
        facts.append(("Released by", str(meta["source"])))
    if meta.get("parameters_m") is not None and params_text(meta["parameters_m"]):
        facts.append(("Parameters", params_text(meta["parameters_m"])))
    if isinstance(meta.get("open_weights"), bool):
        facts.append(("Open weights", "yes" if meta["open_weights"] else "no"))
    if meta.get("license"):
        facts.append(("License", str(meta["license"])))
    if isinstance(meta.get("submitted"), bool) and meta["submitted"]:
        facts.append(("Scores", "submitted by its authors (precomputed), not reproduced here"))
    if isinstance(meta.get("verified"), bool):
        facts.append(
            (
                "Checked against its paper",
                "yes, on real weights" if meta["verified"] else "not yet (no one has compared it on real weights)",
            )
        )
    if board_paper_match(meta):
        facts.append(("Paper numbers shown", "yes, next to ours where the paper reports the same metric"))
    elif meta.get("paper_params"):
        loading = ", ".join(f"{k}: {json.dumps(v)}" for k, v in meta["paper_params"].items())  # YAML's spelling
        facts.append(("Paper numbers shown", f"no: its paper loaded it with {loading} (see vlc-harness verify)"))
    if meta.get("reproduces"):
        facts.append(("Reproduces", str(meta["reproduces"])))
        facts.append(("Differs from it", str(meta.get("differs") or "no known difference")))
    elif meta.get("differs"):
        facts.append(("Differs from its upstream", str(meta["differs"])))
    if meta.get("note"):
        facts.append(("Note", str(meta["note"])))
    return facts


def _description(row: Row) -> str:
    text = row.meta.get("description")
    if isinstance(text, str) and text.strip():
        return text.strip()
    kind = {"blind": "An image-blind baseline: it reads only the text", "baseline": "A baseline"}.get(row.kind, "")
    family = row.meta.get("family")
    parts = []
    if kind:
        parts.append(kind)
    elif family:
        parts.append(f"A model of the {family} family")
    source = row.meta.get("source")
    if source:
        parts.append(f"released by {source}")
    params = params_text(row.meta.get("parameters_m"))
    if params:
        parts.append(f"with {params} parameters")
    return (", ".join(parts) + ".") if parts else ""


def _pools(row: Row) -> list[tuple[str, str]]:
    from vlc_harness.overlap import POOLS, UNDISCLOSED

    trained = row.meta.get("trained_on")
    if not isinstance(trained, (list, tuple)):
        return []
    out = []
    for pool in trained:
        if pool == UNDISCLOSED:
            out.append((str(pool), "training images not (fully) published"))
        else:
            known = POOLS.get(str(pool))
            out.append((str(pool), known.title if known is not None else ""))
    return out


def _summary(board: Board, row: Row) -> list[dict[str, Any]]:
    out = []
    for col in board.benchmarks:
        cv = row.cells.get(col.id)
        if cv is None:
            continue
        metric = col.metrics[0].metric if col.metrics else ""
        value: Value | None = cv.values.get(metric) if cv.published else None
        out.append({"col": col, "cv": cv, "metric": metric, "value": value, "reported": cv.reported.get(metric)})
    return out


def _metric_rows(cv: CellView) -> list[tuple[str, ...]]:
    """A cell's declared metrics, formatted once: (title, id, category, value, interval, n, ties, tie rule,
    averaging, headline mark). The ``_ties_half``/``_answered`` variants are in the downloads."""
    from vlc_leaderboard.fmt import metric_value

    cell = cv.cell
    if cell is None:
        return []
    declared = declared_ids({m["metric"] for m in cell.metrics}) | {"coverage"}
    titles: dict[str, str] = {}
    out = []
    for m in cell.metrics:
        metric = m["metric"]
        if metric not in declared:
            continue
        if metric not in titles:
            titles[metric] = metric_title(metric)
        ci = m.get("ci95")
        interval = f"{metric_value(ci[0], metric, 2)}–{metric_value(ci[1], metric, 2)}" if ci else ""
        out.append(
            (
                titles[metric],
                metric,
                str(m["category"]),
                metric_value(m["value"], metric, 2),
                interval,
                str(m.get("n", "")),
                str(m.get("ties", "")),
                TIE_RULES.get(m.get("tie_rule", ""), m.get("tie_rule", "")),
                str(m.get("averaging", "")),
                "headline" if m.get("headline") else "",
            )
        )
    return out


def _prompt(cells: list[tuple[BenchmarkColumn, CellView]]) -> dict[str, str]:
    """The prompt, answer and scoring rule a generative model ran with, from its identity's details
    (in each cell's provenance; the latest cell first)."""
    for _, cv in sorted(cells, key=lambda c: str(c[1].cell.created_at if c[1].cell else ""), reverse=True):
        model = ((cv.cell.provenance or {}).get("model") or {}) if cv.cell is not None else {}
        details = model.get("details") or {}
        if isinstance(details, Mapping) and details.get("prompt"):
            return {key: str(details[key]) for key in ("prompt", "answer", "scoring") if details.get(key)}
    return {}


def model_context(board: Board, row: Row) -> dict[str, Any]:
    """The model card: facts, links, pools and overlap, rank summary, each cell's metrics."""
    cells = [(col, row.cells[col.id]) for col in board.benchmarks if col.id in row.cells]
    complete = [r for r in board.rows if r.overall is not None and r.overall.complete]
    provenance = {}
    for col, cv in cells:
        if cv.cell is None:
            continue
        prov = cv.cell.provenance or {}
        provenance[col.id] = {
            "protocol": str(prov.get("model", {}).get("protocol", "")),
            "weights": redact_paths(str(prov.get("model", {}).get("weights", ""))),
            "device": str(prov.get("device", "")),
            "dtype": str(prov.get("dtype", "")),
            "data_files": {redact_paths(str(k)): str(v) for k, v in (prov.get("data_files") or {}).items()},
        }
    metrics = {col.id: _metric_rows(cv) for col, cv in cells if cv.published}
    return {
        "row": row,
        "cells": cells,
        "metric_rows": metrics,
        "facts": _facts(row),
        "prompt": _prompt(cells),
        "description": _description(row),
        "links": _links(row.meta),
        "pools": _pools(row),
        "summary": _summary(board, row),
        "ranked_models": len(complete),
        "cell_provenance": provenance,
        "tie_rules": TIE_RULES,
    }
