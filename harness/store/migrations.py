"""Schema versions and the steps between them.

``MIGRATIONS[v]`` upgrades a store from version ``v`` to ``v + 1`` inside one transaction.
Opening an older store runs the missing steps in order; a store written by a newer harness is
refused (never downgraded, never overwritten). To change the schema: edit ``schema.py``, bump
``SCHEMA_VERSION``, and add the step from the previous version here with a test that opens a
store of the previous version.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import Connection

Migration = Callable[[Connection], None]

# Version 1 is the first released schema: there is nothing to migrate from yet.
MIGRATIONS: dict[int, Migration] = {}
