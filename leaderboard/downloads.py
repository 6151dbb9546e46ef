"""Downloadable data next to the site: the board as CSV and JSON, and per-instance scores.

``leaderboard.csv`` has one row per published value with the model's name and metadata, the
benchmark's and metric's titles, the rank the index shows, and the value in the unit the pages
show it in (``unit``: ``percent`` for fractions, ``score`` for raw model scores);
``leaderboard.json`` keeps every value as stored (fractions).

Per (model, benchmark) a gzip-compressed JSONL file (``.jsonl.gz``: at the registry's 70 models x 19
benchmarks these files are most of the downloads; bench/site_size.py measures what they cost) lists
every instance id with its score matrix, its text-text scores where a metric reads them, or its answers,
as stored, from the cell's outcome records (:mod:`vlc_leaderboard.outcome_records`). Its first line is a
header (:func:`scores_header`: the model, the benchmark, its data version and the scores' precision,
:data:`PRECISION`): each score is the stored float64 written as the shortest decimal that reads back to
it, so every metric recomputes from the file exactly (the instance browser shows the same scores rounded
to 5 significant digits). Captions are
added only for benchmarks whose license allows publishing them (``captions_redistributable``) and
only when their data could be read when the records were made.

``leaderboard.json`` also lists the cells without a number, each with its status, the reason the
pages show (``reason``), the stored reason code (``reason_code``) and the first line of the stored
text (``error``), with local folders replaced by ``<local folder>``: no local path and no traceback
is published anywhere (``vlc-harness show --partial`` prints the text as it is). Model ids that
are inline specs holding a path are redacted the same way.
"""

from __future__ import annotations

import csv
import gzip
import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from vlc_harness.results import CellRecord, stored_values
from vlc_leaderboard.board import Board
from vlc_leaderboard.board_data import CellOutcomes
from vlc_leaderboard.fanout import SERIAL, Workers
from vlc_leaderboard.outcome_records import first_line
from vlc_leaderboard.public import page_slug, redact_paths

Outcomes = Callable[[CellRecord], CellOutcomes]
"""A cell's outcome records (:mod:`vlc_leaderboard.outcome_records`), in stored order, and their lines."""

PRECISION = (
    "exact: each score is the stored float64 (scores: image x caption; text_scores: caption x caption), written as "
    "the shortest decimal that reads back to the same float64 (Python's repr); null: not scored"
)
"""What a scores file's header says of its scores' precision."""

CSV_COLUMNS = (
    "model",
    "model_name",
    "kind",
    "family",
    "parameters_m",
    "open_weights",
    "benchmark",
    "benchmark_title",
    "metric",
    "metric_title",
    "category",
    "value",
    "unit",
    "ci_low",
    "ci_high",
    "rank",
    "higher_is_better",
    "n",
    "ties",
    "tie_rule",
    "averaging",
    "data_version",
)


def in_unit(value: Any, unit: str) -> float | None:
    """A stored value as the pages show it: fractions as percent (6 decimals), scores as they are."""
    if value is None:
        return None
    return round(100 * float(value), 6) if unit == "percent" else float(value)


def scores_file(model_id: str, benchmark_id: str) -> str:
    """Relative path of a cell's per-instance file under the site."""
    from vlc_leaderboard.fmt import slug

    return f"downloads/scores/{page_slug(model_id)}__{slug(benchmark_id)}.jsonl.gz"


class ScoresFiles:
    """The scores files of ``board``'s published cells under ``out``, each written when its cell's records are
    first read through :meth:`records`: render reads a cell's records once for the instance browser and its
    scores file both (:func:`write_downloads` writes the others)."""

    def __init__(self, board: Board, out: Path, outcomes: Outcomes) -> None:
        self.out = out
        self._outcomes = outcomes
        self._rows = {id(cv.cell): row for row in board.rows for cv in row.cells.values() if cv.published and cv.cell}
        self.written: dict[int, Path] = {}
        """Each cell whose file is written (by ``id`` of its record): the file."""

    def records(self, cell: CellRecord) -> list[dict[str, Any]]:
        """``cell``'s outcome records, its scores file written from their lines (once: a cell read again is
        not)."""
        read = self._outcomes(cell)
        row = self._rows.get(id(cell))
        if row is not None and id(cell) not in self.written:
            header = scores_header(row.public_id, cell.benchmark_id, cell.data_version)
            path = self.out / scores_file(row.id, cell.benchmark_id)
            path.parent.mkdir(parents=True, exist_ok=True)
            self.written[id(cell)] = _write_scores(path, header, read.lines)
        return read.records


def write_downloads(
    board: Board, out: Path, outcomes: Outcomes, done: ScoresFiles | None = None, workers: Workers = SERIAL
) -> list[Path]:
    """Write ``downloads/leaderboard.{csv,json}`` and one scores file per published cell (its
    outcome records, from ``outcomes``), but those ``done`` wrote already under ``out``; the scores files of
    each benchmark by one of ``workers``."""
    from vlc_leaderboard.fmt import metric_title, metric_unit, number

    folder = out / "downloads" / "scores"
    folder.mkdir(parents=True, exist_ok=True)
    rows: list[dict[str, Any]] = []
    cells_json = []
    unpublished = []
    written = []
    todo: dict[str, list[tuple[Path, dict[str, Any], CellRecord]]] = {}
    for row in board.rows:
        weights = row.meta.get("open_weights")
        meta = {
            "model": row.public_id,
            "model_name": row.name,
            "kind": row.kind,
            "family": row.meta.get("family", ""),
            "parameters_m": number(row.meta.get("parameters_m")),
            "open_weights": "yes" if weights else ("no" if weights is False else ""),
        }
        for col in board.benchmarks:
            cv = row.cells.get(col.id)
            if cv is not None and not cv.published:
                unpublished.append(
                    {
                        "model": row.public_id,
                        "model_name": row.name,
                        "benchmark": col.id,
                        "status": cv.status,
                        "reason": cv.public_reason,
                        "reason_code": cv.cell.reason_code if cv.cell is not None else None,
                        "error": redact_paths(first_line(cv.cell.error if cv.cell is not None else cv.reason)),
                    }
                )
            if cv is None or not cv.published or cv.cell is None:
                continue
            cell = cv.cell
            stored = stored_values(cell)
            for value in stored:
                m = value.record
                unit = metric_unit(m["metric"])
                ci = m.get("ci95") or [None, None]
                spec = col.specs.get(m["metric"])
                shown = cv.values.get(m["metric"]) if m["category"] == "all" else None
                rows.append(
                    meta
                    | {
                        "benchmark": col.id,
                        "benchmark_title": col.title,
                        "metric": m["metric"],
                        "metric_title": metric_title(m["metric"]),
                        "category": m["category"],
                        "value": in_unit(m.get("value"), unit),
                        "unit": unit,
                        "ci_low": in_unit(ci[0], unit),
                        "ci_high": in_unit(ci[1], unit),
                        "rank": shown.rank if shown is not None and shown.rank else "",
                        "higher_is_better": "" if spec is None else ("yes" if spec.higher_is_better else "no"),
                        **{k: m.get(k) for k in ("n", "ties", "tie_rule", "averaging")},
                        "data_version": cell.data_version,
                    }
                )
            cells_json.append(
                {
                    "model": row.public_id,
                    "model_name": row.name,
                    "kind": row.kind,
                    "submitted": bool(row.meta.get("submitted")),  # scores from the authors, not reproduced
                    "benchmark": col.id,
                    "data_version": cell.data_version,
                    "fingerprint": cell.fingerprint,
                    "metrics": [{k: v for k, v in value.record.items() if k != "replicates"} for value in stored],
                    "rank": {
                        metric: {"rank": v.rank, "ranked_on_ties_half": v.ranked_on_ties_half}
                        for metric, v in cv.values.items()
                        if v.rank
                    },
                    "scores": scores_file(row.id, col.id),
                }
            )
            if done is not None and done.out == out and id(cell) in done.written:
                written.append(done.written[id(cell)])
                continue
            header = scores_header(row.public_id, col.id, cell.data_version)
            written.append(out / scores_file(row.id, col.id))
            todo.setdefault(col.id, []).append((written[-1], header, cell))

    def write(bench_id: str) -> None:
        for path, header, cell in todo[bench_id]:
            _write_scores(path, header, outcomes(cell).lines)

    # each benchmark's files by one of the workers, the largest first
    workers.map(write, list(todo), [sum(c.n_instances or 0 for _, _, c in todo[b]) for b in todo])
    with open(out / "downloads" / "leaderboard.csv", "w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=list(CSV_COLUMNS), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    payload = {"cells": cells_json, "unpublished": unpublished}
    (out / "downloads" / "leaderboard.json").write_text(json.dumps(payload, indent=1), encoding="utf-8")
    return [out / "downloads" / "leaderboard.csv", out / "downloads" / "leaderboard.json", *written]


def scores_header(model: str, benchmark: str, data_version: str | None) -> dict[str, Any]:
    """A scores file's first line: whose scores these are and how exact (:data:`PRECISION`)."""
    return {"header": {"model": model, "benchmark": benchmark, "data_version": data_version, "scores": PRECISION}}


def _write_scores(path: Path, header: Mapping[str, Any], lines: list[str]) -> Path:
    """The scores file at ``path``: the header's line, then the records' lines
    (:func:`~vlc_leaderboard.outcome_records.record_line`), compressed."""
    # no file name and no time in the gzip header: the same records give the same bytes on every render
    text = "\n".join([json.dumps(header), *lines, ""])
    with open(path, "wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, compresslevel=6, mtime=0) as f:
        f.write(text.encode("utf-8"))  # one write: the same compressed bytes as a write per line
    return path
