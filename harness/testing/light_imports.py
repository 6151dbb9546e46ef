"""Which heavy frameworks importing a plugin module loads, each module checked in a fresh interpreter's
terms but with as few interpreters as the answer allows (the ``import_is_light`` conformance check).

One interpreter imports every module under test in turn and notes the heavy modules loaded after
each. Where nothing heavy was loaded before a module, what is loaded after it is that module's own
doing, so the one interpreter answers for it; a module imported after a heavy one gets an
interpreter of its own, as does every module when the shared one fails. A suite whose modules are
all light starts one interpreter instead of one per module.
"""

from __future__ import annotations

import functools
import json
import subprocess
import sys
from collections.abc import Sequence
from typing import Any

HEAVY_MODULES = ("torch", "transformers", "open_clip", "openai", "tensorflow", "jax")
"""Frameworks a plugin module must import inside ``load()``, never at import time."""

_TOGETHER = """
import json, sys
from vlc_harness.plugins import resolve_locator
heavy = json.loads(sys.argv[2])
seen = []
for locator in json.loads(sys.argv[1]):
    before = [m for m in heavy if m in sys.modules]
    resolve_locator(locator)
    seen.append([before, [m for m in heavy if m in sys.modules]])
print(json.dumps(seen))
"""


def _key(locator: dict[str, Any]) -> str:
    return json.dumps(locator, sort_keys=True)


@functools.cache
def _together(keys: tuple[str, ...]) -> dict[str, tuple[list[str], list[str]]] | None:
    """``{locator key: (heavy before, heavy after)}`` from one interpreter importing them in order
    (``None`` when that interpreter failed: each module is then checked alone)."""
    locators = json.dumps([json.loads(k) for k in keys])
    argv = [sys.executable, "-c", _TOGETHER, locators, json.dumps(HEAVY_MODULES)]
    out = subprocess.run(argv, capture_output=True, text=True, timeout=300)
    if out.returncode != 0:
        return None
    return {key: (before, after) for key, (before, after) in zip(keys, json.loads(out.stdout), strict=True)}


def _alone(locator: dict[str, Any]) -> list[str]:
    """The heavy modules loaded by importing one module in an interpreter of its own."""
    code = (
        f"import sys; from vlc_harness.plugins import resolve_locator; resolve_locator({locator!r}); "
        f"print(','.join(m for m in {HEAVY_MODULES!r} if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return [m for m in out.stdout.strip().split(",") if m]


def heavy_imports(locator: dict[str, Any], under_test: Sequence[dict[str, Any]]) -> list[str]:
    """The :data:`HEAVY_MODULES` that importing ``locator``'s module loads (see the module docstring);
    ``under_test``: every locator checked in this session, imported together once."""
    keys = tuple(dict.fromkeys([*map(_key, under_test), _key(locator)]))
    found = _together(keys)
    if found is not None:
        before, after = found[_key(locator)]
        if not before:
            return after
    return _alone(locator)
