"""Built-in vlc-harness plugins.

This package is the ``builtin`` entry point of the ``vlc_harness`` group. It registers nothing
itself: it lists every module below it in ``vlc_harness_plugins``, and the plugin manager
registers each one exactly as it would a third party's plugin. Drop a file into
``plugins/models/`` or ``plugins/benchmarks/`` and it is loaded; no other edit is needed.
"""

from __future__ import annotations

import pkgutil

vlc_harness_plugins = sorted(
    info.name for info in pkgutil.walk_packages(__path__, prefix=__name__ + ".") if not info.ispkg
)
