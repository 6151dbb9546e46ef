"""What a model page shows, as data for ``model.html``: it reads like a model card.

Description, links, license, parameters, the upstream evaluation it reproduces and what differs
from it, training-data pools with their overlap marks, a rank summary per benchmark, then each
cell's metrics and provenance (local paths redacted).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from vlc_harness.results import declared_metrics, tie_rule_words
from vlc_harness.verify import board_paper_match
from vlc_leaderboard.board import Board
from vlc_leaderboard.columns import BenchmarkColumn
from vlc_leaderboard.compare import compared_rows
from vlc_leaderboard.families import FamilyStyles
from vlc_leaderboard.fmt import metric_title
from vlc_leaderboard.intervals import no_interval_reason
from vlc_leaderboard.public import redact_paths
from vlc_leaderboard.rows import CellView, Row, Value


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


def model_facts(row: Row) -> list[tuple[str, str]]:
    """The card's facts as (label, text): family, source, parameters, license, paper checks, what it reproduces."""
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
    declared = declared_metrics({m["metric"] for m in cell.metrics}) | {"coverage"}
    titles: dict[str, str] = {}
    out: list[tuple[str, ...]] = []
    for m in cell.metrics:
        metric = m["metric"]
        if metric not in declared:
            continue
        if metric not in titles:
            titles[metric] = metric_title(metric)
        ci = m.get("ci95")
        interval = (
            f"{metric_value(ci[0], metric, 2)}–{metric_value(ci[1], metric, 2)}"
            if ci
            else "none: " + (no_interval_reason(cell, metric, str(m["category"])) or "not stored")
        )
        out.append(
            (
                titles[metric],
                metric,
                str(m["category"]),
                metric_value(m["value"], metric, 2),
                interval,
                str(m.get("n", "")),
                str(m.get("ties", "")),
                tie_rule_words(str(m.get("tie_rule", ""))),
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
    by_mean = [r for r in board.rows if r.overall is not None and r.overall.by_mean]
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
        "facts": model_facts(row),
        "prompt": _prompt(cells),
        "description": _description(row),
        "links": _links(row.meta),
        "pools": _pools(row),
        "summary": _summary(board, row),
        "ranked_models": len(by_mean),
        "cell_provenance": provenance,
        "comparable": row in compared_rows(board),
        "family_swatch": FamilyStyles.of_rows(board.rows).of(row).swatch(row.kind),
    }
