"""Downloadable data next to the site: the board as CSV and JSON, and per-instance scores.

Per (model, benchmark) a JSONL file lists every instance id with its score matrix (or answers)
as stored. Captions are added only for benchmarks whose license allows publishing them
(``captions_redistributable``) and only when their data can be read at render time.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

from harness.store import Store
from leaderboard.board import Board

CSV_COLUMNS = (
    "model",
    "benchmark",
    "metric",
    "category",
    "value",
    "ci_low",
    "ci_high",
    "n",
    "ties",
    "tie_rule",
    "averaging",
    "data_version",
)


def scores_file(model_id: str, benchmark_id: str) -> str:
    """Relative path of a cell's per-instance file under the site."""
    from leaderboard.site import slug

    return f"downloads/scores/{slug(model_id)}__{slug(benchmark_id)}.jsonl"


def write_downloads(board: Board, out: Path, store: Store, data_root: Path | None) -> list[Path]:
    """Write ``downloads/leaderboard.{csv,json}`` and one scores file per published cell."""
    folder = out / "downloads" / "scores"
    folder.mkdir(parents=True, exist_ok=True)
    rows: list[dict[str, Any]] = []
    cells_json = []
    written = []
    for row in board.rows:
        for col in board.benchmarks:
            cv = row.cells.get(col.id)
            if cv is None or not cv.published or cv.cell is None:
                continue
            cell = cv.cell
            for m in cell.metrics:
                ci = m.get("ci95") or [None, None]
                rows.append(
                    {
                        "model": row.id,
                        "benchmark": col.id,
                        **{k: m.get(k) for k in CSV_COLUMNS[2:]},
                        "ci_low": ci[0],
                        "ci_high": ci[1],
                        "data_version": cell.data_version,
                    }
                )
            cells_json.append(
                {
                    "model": row.id,
                    "model_name": row.name,
                    "kind": row.kind,
                    "benchmark": col.id,
                    "data_version": cell.data_version,
                    "fingerprint": cell.fingerprint,
                    "metrics": [{k: v for k, v in m.items() if k != "replicates"} for m in cell.metrics],
                    "scores": scores_file(row.id, col.id),
                }
            )
            written.append(_write_scores(out / scores_file(row.id, col.id), store, cell, col, data_root))
    with open(out / "downloads" / "leaderboard.csv", "w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=list(CSV_COLUMNS), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    (out / "downloads" / "leaderboard.json").write_text(json.dumps({"cells": cells_json}, indent=1), encoding="utf-8")
    return [out / "downloads" / "leaderboard.csv", out / "downloads" / "leaderboard.json", *written]


def _write_scores(path: Path, store: Store, cell: Any, col: Any, data_root: Path | None) -> Path:
    texts = _captions(col, data_root)
    with open(path, "w", encoding="utf-8") as f:
        for outcome in store.outcomes(cell.id):
            record: dict[str, Any] = {"instance": outcome.instance_id, "category": outcome.category}
            if outcome.scores is not None:
                record["scores"] = outcome.scores
            if outcome.answers is not None:
                record["answers"] = outcome.answers
            if outcome.error:
                record["error"] = outcome.error.splitlines()[0]
            if texts is not None and outcome.instance_id in texts:
                record["texts"] = texts[outcome.instance_id]
            f.write(json.dumps(record) + "\n")
    return path


def _captions(col: Any, data_root: Path | None) -> dict[str, list[str]] | None:
    """Instance texts, only where the data license allows publishing them and the data is here."""
    bench = col.benchmark
    if bench is None or data_root is None or not bench.captions_redistributable:
        return None
    copy = type(bench)(bench.params, data_root)
    try:
        copy.check_data()
        return {inst.id: list(inst.texts) for inst in copy.load_instances()}
    except Exception:  # captions are an extra: without the data the ids and scores still ship
        return None
