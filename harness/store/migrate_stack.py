"""Schema 5 to 6: every model's fingerprint gains the scoring stack its scores were computed with.

From schema 6 a fingerprint hashes the model's scoring stack (:mod:`vlc_harness.stack`): the public
versions of the distributions its type declares can change its scores (``requires.scoring``), and for
a third-party type its own distribution. A schema-5 store has no stack in its fingerprints, only the
versions each run recorded in its provenance (``packages``); this step gives each model row the stack
its runs recorded, so that a run under the same versions reuses its cells and a run under others
recomputes them, saying why:

* a distribution takes the public version that every run behind the model's cells recorded for it;
* where a run did not record it (a harness that did not list it, or it was not installed) or the model
  has no cell to tie its scores to a run, it is ``unknown``; where the runs disagree (scores of one
  model row computed under two versions, which is what this issue stops), ``mixed (a, b)``: a stack
  that no run computes, so the next run recomputes the model rather than vouch for a number whose
  versions cannot be named;
* a third-party type's own distribution was never recorded: its ``plugin`` part is ``unknown``;
* a type that no installed plugin registers (its scoring distributions cannot be known): the whole
  stack is ``unknown``.

The type's declaration is read from the installed plugins (:func:`vlc_harness.registered.model_types`),
as a run reads it. Each row's fingerprint is recomputed (:func:`vlc_harness.fingerprint.model_fingerprint`
of the schema-5 content plus the stack), its cells follow (their provenance gains the stack), and rows
that become identical are merged as the v2 -> v3 step merged them, text-text scores included: every
score, answer and cell is kept.
"""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import Connection, text

V5_KEYS = ("type", "params", "weights", "dtype", "protocol", "scoring_version")
"""What a schema-5 fingerprint hashes (frozen here: later changes to the fingerprint do not change this step)."""
UNKNOWN = "unknown"


def v5_to_v6(conn: Connection) -> None:
    """The step (see the module docstring)."""
    from vlc_harness.errors import StoreError
    from vlc_harness.fingerprint import model_fingerprint
    from vlc_harness.registered import model_types

    rows = conn.execute(text("SELECT id, fingerprint, identity FROM models ORDER BY id")).all()
    if not rows:
        return
    try:
        types = model_types()
    except RuntimeError as exc:
        raise StoreError(f"the store's migration to schema 6 needs each stored model type's class: {exc}") from None
    recorded = {
        run_id: (json.loads(provenance or "{}").get("packages") or {})
        for run_id, provenance in conn.execute(text("SELECT id, provenance FROM runs"))
    }
    kept: dict[str, int] = {fp: row_id for row_id, fp, _ in rows}
    for row_id, old_fp, identity_json in rows:
        record = json.loads(identity_json)
        if "stack" in record or any(k not in record for k in V5_KEYS):
            continue  # a record this step cannot rewrite keeps its row: a new run fingerprints it afresh
        runs = conn.execute(text("SELECT DISTINCT run_id FROM cells WHERE fingerprint=:fp"), {"fp": old_fp}).all()
        record["stack"] = recorded_stack(types.get(record["type"]), [recorded.get(r) for (r,) in runs])
        new_fp = model_fingerprint({k: record[k] for k in (*V5_KEYS, "stack")})
        rekey_model(conn, kept, row_id, (old_fp, new_fp), record)
        _restack_cells(conn, old_fp, new_fp, record["stack"])


def recorded_stack(cls: type | None, packages: list[dict[str, str] | None]) -> dict[str, Any]:
    """The stack of a model of type ``cls`` whose cells came from runs that recorded ``packages``
    (one mapping per run, ``None`` for a cell with no run); see the module docstring."""
    from vlc_harness.plugin_identity import is_builtin
    from vlc_harness.plugin_packages import canonical_name
    from vlc_harness.stack import public_version, scoring_names

    if cls is None:
        return {UNKNOWN: "its type is not registered here, so its scoring distributions are not known"}
    runs = [{canonical_name(k): public_version(str(v)) for k, v in (p or {}).items()} for p in packages]
    stack: dict[str, Any] = {"packages": {}}
    for name in map(canonical_name, scoring_names(cls)):
        seen = {run.get(name, UNKNOWN) for run in runs} or {UNKNOWN}
        if UNKNOWN in seen:
            stack["packages"][name] = UNKNOWN
        else:
            stack["packages"][name] = seen.pop() if len(seen) == 1 else f"mixed ({', '.join(sorted(seen))})"
    if not is_builtin(cls):
        stack["plugin"] = {UNKNOWN: "its own distribution was not recorded before schema 6"}
    return stack


MERGED = {
    "scores": (("image_key", "text"), "image_key, text, score"),
    "text_scores": (("text_a", "text_b"), "text_a, text_b, score"),
    "answers": (("question_key",), "question_key, question, answer, raw, created_at"),
}
"""The tables of a model's stored work: their keys and columns (``text_scores`` since schema 4)."""


def rekey_model(
    conn: Connection,
    kept: dict[str, int],
    row_id: int,
    fingerprints: tuple[str, str],
    record: dict[str, Any],
    tables: tuple[str, ...] = tuple(MERGED),
) -> None:
    """Give model row ``row_id`` the new of ``fingerprints`` (old, new) with its identity ``record``, or, when
    another row (``kept``: fingerprint -> row id) already has it, merge the row's ``tables`` into that one."""
    old_fp, new_fp = fingerprints
    target = kept.get(new_fp)
    del kept[old_fp]
    if target is None:
        conn.execute(
            text("UPDATE models SET fingerprint=:fp, identity=:identity WHERE id=:id"),
            {"fp": new_fp, "identity": json.dumps(record, sort_keys=True), "id": row_id},
        )
        kept[new_fp] = row_id
    else:
        merge_model(conn, row_id, target, tables)


def merge_model(conn: Connection, source: int, target: int, tables: tuple[str, ...] = tuple(MERGED)) -> None:
    """Move the ``source`` row's stored work in ``tables`` (:data:`MERGED`) that ``target`` lacks to it, and
    drop ``source``."""
    for table in tables:
        key, cols = MERGED[table]
        same = " AND ".join(f"t.{k}=s.{k}" for k in key)
        conn.execute(
            text(
                f"INSERT INTO {table} (model, {cols}) SELECT :target, {cols} FROM {table} s WHERE s.model=:source "
                f"AND NOT EXISTS (SELECT 1 FROM {table} t WHERE t.model=:target AND {same})"
            ),
            {"source": source, "target": target},
        )
        conn.execute(text(f"DELETE FROM {table} WHERE model=:source"), {"source": source})
    conn.execute(text("DELETE FROM models WHERE id=:source"), {"source": source})


def move_cells(conn: Connection, old_fp: str, new_fp: str) -> None:
    """Cells of the old fingerprint take the new one; where the same (model id, benchmark,
    manifest) already has a cell under the new fingerprint, the newer of the two is kept."""
    cells = conn.execute(
        text("SELECT id, model_id, benchmark_id, manifest_hash FROM cells WHERE fingerprint=:fp"), {"fp": old_fp}
    ).all()
    for cell_id, model_id, benchmark_id, manifest_hash in cells:
        clash = conn.execute(
            text("SELECT id FROM cells WHERE fingerprint=:fp AND model_id=:m AND benchmark_id=:b AND manifest_hash=:h"),
            {"fp": new_fp, "m": model_id, "b": benchmark_id, "h": manifest_hash},
        ).scalar()
        if clash is not None:
            older = min(clash, cell_id)
            conn.execute(text("DELETE FROM outcomes WHERE cell=:id"), {"id": older})
            conn.execute(text("DELETE FROM cells WHERE id=:id"), {"id": older})
            if older == clash:
                conn.execute(text("UPDATE cells SET fingerprint=:fp WHERE id=:id"), {"fp": new_fp, "id": cell_id})
        else:
            conn.execute(text("UPDATE cells SET fingerprint=:fp WHERE id=:id"), {"fp": new_fp, "id": cell_id})


def _restack_cells(conn: Connection, old_fp: str, new_fp: str, stack: dict[str, Any]) -> None:
    """Cells of ``old_fp`` take ``new_fp`` and record the stack in their provenance; where the same
    (model id, benchmark, manifest) already has a cell under ``new_fp`` (a merge), the newer is kept."""
    rows = conn.execute(text("SELECT id, provenance FROM cells WHERE fingerprint=:fp"), {"fp": old_fp}).all()
    for cell_id, provenance_json in rows:
        provenance = json.loads(provenance_json or "{}")
        if isinstance(provenance.get("model"), dict):
            provenance["model"]["stack"] = stack
        if "fingerprint" in provenance:
            provenance["fingerprint"] = new_fp
        conn.execute(
            text("UPDATE cells SET provenance=:p WHERE id=:id"),
            {"p": json.dumps(provenance, sort_keys=True, default=str), "id": cell_id},
        )
    move_cells(conn, old_fp, new_fp)


__all__ = ["MERGED", "V5_KEYS", "merge_model", "move_cells", "recorded_stack", "rekey_model", "v5_to_v6"]
