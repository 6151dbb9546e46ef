"""Schema versions and the steps between them.

``MIGRATIONS[v]`` upgrades a store from version ``v`` to ``v + 1`` inside one transaction.
Opening an older store runs the missing steps in order; a store written by a newer harness is
refused (never downgraded, never overwritten). To change the schema: edit ``schema.py``, bump
``SCHEMA_VERSION``, and add the step from the previous version here with a test that opens a
store of the previous version.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

from sqlalchemy import Connection, inspect, text

from vlc_harness.status import Status
from vlc_harness.store.migrate_stack import move_cells, rekey_model, v5_to_v6

Migration = Callable[[Connection], None]


def _v1_to_v2(conn: Connection) -> None:
    """Cells gain ``metrics_version``, ``inputs_hash`` and ``replicates``.

    v0.1 cells keep ``metrics_version`` NULL: their metrics came from v0.1's code (200 resamples,
    replicates of the overall values only), so they are stale until ``vlc-harness store upgrade``
    (or a run that touches them) rebuilds them from their stored scores
    (:mod:`vlc_harness.metrics.rebuild`).
    """
    from vlc_harness.store import schema

    blob = schema.cells.c.replicates.type.compile(dialect=conn.dialect)
    conn.execute(text("ALTER TABLE cells ADD COLUMN metrics_version VARCHAR(100)"))
    conn.execute(text("ALTER TABLE cells ADD COLUMN inputs_hash VARCHAR(64)"))
    conn.execute(text(f"ALTER TABLE cells ADD COLUMN replicates {blob}"))


CONTENT_KEYS = ("type", "params", "weights", "dtype", "protocol", "scoring_version")


def _v2_to_v3(conn: Connection) -> None:
    """Fingerprints count local files and folders in params by content (sha256), not by path.

    Each model row's params are rewritten (:func:`vlc_harness.fingerprint.content_addressed`;
    relative paths as a v2 run read them, from the current folder), its fingerprint recomputed,
    and its cells follow. Models that become identical (one checkpoint by two paths) are merged:
    the kept row (the oldest) gains the other's scores and answers it lacked. Scores are never
    recomputed or lost. A path that no longer exists keeps its row as it was: it can still be
    shown, and a new run of that checkpoint hashes it afresh.
    """
    from vlc_harness.fingerprint import content_addressed, model_fingerprint

    rows = conn.execute(text("SELECT id, fingerprint, identity FROM models ORDER BY id")).all()
    kept: dict[str, int] = {fp: row_id for row_id, fp, _ in rows}
    for row_id, old_fp, identity_json in rows:
        record = json.loads(identity_json)
        params = content_addressed(record.get("params"), base=Path.cwd())
        if params == record.get("params") or any(k not in record for k in CONTENT_KEYS):
            continue
        record["params"] = params
        new_fp = model_fingerprint({k: record[k] for k in CONTENT_KEYS})
        rekey_model(conn, kept, row_id, (old_fp, new_fp), record, ("scores", "answers"))  # no text_scores yet
        move_cells(conn, old_fp, new_fp)


def _v3_to_v4(conn: Connection) -> None:
    """Text-text similarities get a table of their own, and outcome rows a column for them.

    ``text_scores`` is keyed by (model, text_a, text_b); ``outcomes.text_scores`` holds an
    instance's text-text matrix (SugarCrepe++'s text-only task). Nothing else changes: every
    score, answer, cell and outcome is kept as it is. Either is added only where it is missing.
    """
    from vlc_harness.store import schema

    schema.text_scores.create(conn, checkfirst=True)
    if "text_scores" not in {c["name"] for c in inspect(conn).get_columns("outcomes")}:
        conn.execute(text("ALTER TABLE outcomes ADD COLUMN text_scores TEXT"))


def _v4_to_v5(conn: Connection) -> None:
    """Cells gain ``reason_code``: why a cell that is not ``ok`` has no number, as a code
    (:class:`vlc_harness.reasons.Reason`) the board words for readers.

    A schema-4 cell kept only its text, so its code is derived here, once, from that text's first
    line (what the board read) by the patterns the board matched before codes existed
    (:func:`legacy_reason_code`); every later cell gets its code where its error is raised. Nothing
    else changes.
    """
    if "reason_code" not in {c["name"] for c in inspect(conn).get_columns("cells")}:
        conn.execute(text("ALTER TABLE cells ADD COLUMN reason_code VARCHAR(32)"))
    rows = conn.execute(
        text("SELECT id, status, error, instance_limit FROM cells WHERE status <> 'ok' AND reason_code IS NULL")
    ).all()
    codes = [{"id": i, "code": legacy_reason_code(status, error, limit)} for i, status, error, limit in rows]
    if codes:
        conn.execute(text("UPDATE cells SET reason_code=:code WHERE id=:id"), codes)


_LEGACY_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "weights_missing",
        re.compile(r"hugging ?face|huggingface\.co|HF_HUB_OFFLINE|hub cache|local_files_only|gated repo", re.I),
    ),
    (
        "data_missing",
        re.compile(r"data is not ready|data files? (?:is|are) missing|missing .*\(get |not under the data root", re.I),
    ),
    ("scores_missing", re.compile(r"has no score for|precomputed scores file", re.I)),
    ("auth", re.compile(r"API key|OPENAI_API_KEY|api_key|401|unauthori[sz]ed", re.I)),
    ("out_of_memory", re.compile(r"out of memory|OOM\b|MemoryError", re.I)),
    ("timeout", re.compile(r"timed? ?out|no progress|timeout_s", re.I)),
    (
        "version_too_old",
        re.compile(r"requires? [\w.-]+ ?(?:>=|==|version)|needs [\w.-]+ (?:>=|version)|version .* needed", re.I),
    ),
)
"""The board's patterns over a cell's text before schema 5 (``leaderboard/public.py`` at commit
1f81e18), in its order, with the code whose words are the phrase each pattern chose."""


def legacy_reason_code(status: str, error: str | None, instance_limit: int | None) -> str:
    """The code of a schema-4 cell that is not ``ok``, derived from its text as the board read it
    then, so that it words the cell as before: the first pattern matching the text's first line;
    else by status (``skipped``: not applicable; ``partial``: ``--limit`` or failed requests;
    ``failed`` naming failed instances: instances failed); else ``other``. The only place in the
    harness where a cell's text is matched."""
    line = (error or "").splitlines()[0].strip() if error else ""
    for code, pattern in _LEGACY_PATTERNS:
        if line and pattern.search(line):
            return code
    if status == Status.SKIPPED:
        return "not_applicable"
    if status == Status.PARTIAL:
        return "limited" if instance_limit is not None else "request_failed"
    if status == Status.FAILED and re.search(r"instance", line, re.I) and re.search(r"\d+ of \d+|some", line):
        return "instances_failed"
    return "other"


MIGRATIONS: dict[int, Migration] = {1: _v1_to_v2, 2: _v2_to_v3, 3: _v3_to_v4, 4: _v4_to_v5, 5: v5_to_v6}
"""``MIGRATIONS[v]`` upgrades version ``v`` to ``v + 1``."""
