"""Built-in vlc-harness plugins.

This package is the ``builtin`` entry point of the ``vlc_harness`` group. It registers nothing
itself: it lists every module below it in ``vlc_harness_plugins``, and the plugin manager
registers each one exactly as it would a third party's plugin. Drop a file into
``plugins/models/`` or ``plugins/benchmarks/`` and it is loaded; no other edit is needed.

``plugins/testing/`` (``vlc_harness_builtins.testing``: tiny checkpoints, generated data, the
conformance examples) is test code, left out here: the ``vlc_harness_testing`` entry point names it.
"""

from __future__ import annotations

import importlib
import pkgutil

TESTING = __name__ + ".testing"


def plugin_modules() -> list[str]:
    """Every module under this package's plugin folders (``models/``, ``benchmarks/``), not importing
    :data:`TESTING`."""
    names = []
    for info in pkgutil.iter_modules(__path__, prefix=__name__ + "."):
        if info.name == TESTING:
            continue
        if not info.ispkg:
            names.append(info.name)
            continue
        package = importlib.import_module(info.name)
        names += [m.name for m in pkgutil.walk_packages(package.__path__, prefix=info.name + ".") if not m.ispkg]
    return sorted(names)


vlc_harness_plugins = plugin_modules()
