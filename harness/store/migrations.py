"""Schema versions and the steps between them.

``MIGRATIONS[v]`` upgrades a store from version ``v`` to ``v + 1`` inside one transaction.
Opening an older store runs the missing steps in order; a store written by a newer harness is
refused (never downgraded, never overwritten). To change the schema: edit ``schema.py``, bump
``SCHEMA_VERSION``, and add the step from the previous version here with a test that opens a
store of the previous version.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import Connection, text

Migration = Callable[[Connection], None]


def _v1_to_v2(conn: Connection) -> None:
    """Cells gain ``metrics_version``, ``inputs_hash`` and ``replicates``.

    v0.1 cells keep ``metrics_version`` NULL: their metrics came from v0.1's code (200 resamples,
    replicates of the overall values only), so they are rebuilt from their stored scores the next
    time the store is opened with the benchmark's data at hand (:mod:`vlc_harness.metrics.rebuild`).
    """
    from vlc_harness.store import schema

    blob = schema.cells.c.replicates.type.compile(dialect=conn.dialect)
    conn.execute(text("ALTER TABLE cells ADD COLUMN metrics_version VARCHAR(100)"))
    conn.execute(text("ALTER TABLE cells ADD COLUMN inputs_hash VARCHAR(64)"))
    conn.execute(text(f"ALTER TABLE cells ADD COLUMN replicates {blob}"))


MIGRATIONS: dict[int, Migration] = {1: _v1_to_v2}
"""``MIGRATIONS[v]`` upgrades version ``v`` to ``v + 1``."""
