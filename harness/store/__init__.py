"""The score store: SQLAlchemy 2, SQLite by default, any SQLAlchemy URL by choice.

Only the main process writes to it. See :mod:`vlc_harness.store.schema` for the tables and
:mod:`vlc_harness.store.migrations` for versioning.
"""

from __future__ import annotations

from vlc_harness.store.store import CellRecord, Outcome, Store, open_store

__all__ = ["CellRecord", "Outcome", "Store", "open_store"]
