"""Fault points: named places where a test can end the process as a kill would, deterministically.

A test sets ``VLC_HARNESS_FAULT`` to a point's name in the environment of a process it starts; when
that process reaches :func:`fault_point` with that name it exits at once with :data:`EXIT`, through
``os._exit`` (no cleanup, no ``finally``, no buffered write flushed: a ``kill -9`` at that line).
Nothing sets the variable outside tests. The points:

* ``store.created``: a new store's tables are created, its ``schema_info`` not yet written;
* ``store.migrating``: a migration step has run, the new schema version not yet committed;
* ``render.swapped-aside``: the published site is renamed aside, the new one not yet renamed in.
"""

from __future__ import annotations

import os

ENV = "VLC_HARNESS_FAULT"
EXIT = 86
"""The exit status of a process ended at a fault point (none of :class:`vlc_harness.exit_codes.ExitCode`)."""
POINTS = frozenset({"store.created", "store.migrating", "render.swapped-aside"})


def fault_point(name: str) -> None:
    """End the process now, as a kill would, when ``$VLC_HARNESS_FAULT`` names this point."""
    assert name in POINTS, name
    if os.environ.get(ENV) == name:
        os._exit(EXIT)
