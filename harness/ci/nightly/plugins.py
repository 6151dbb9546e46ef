"""The night's ``plugins`` step: ``vlc-harness plugins install`` of the registry's pinned plugin packages
(hashes required, wheels only, ``--no-deps``, under the constraints), after the install step. A pin that
does not install stops the night (:mod:`.stops`), pip's own explanation in the summary."""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import TYPE_CHECKING

from vlc_harness.ci.nightly.steps import Step, cli
from vlc_harness.ci.nightly.stops import stop

if TYPE_CHECKING:
    from vlc_harness.registry import Registry


def plugins(registry: Registry, enabled: bool, registry_path: Path) -> Step:
    """Install the registry's plugin packages into this environment (``enabled`` false: name the command)."""
    argv = ["plugins", "install", "--registry", str(Path(registry_path).resolve())]
    if not registry.packages:
        return Step("plugins", skipped=True, lines=["the registry pins no plugin package (no `plugins:` section)"])
    if not enabled:
        return Step("plugins", skipped=True, lines=[f"skipped (--no-install): `vlc-harness {' '.join(argv)}`"])
    step = cli("plugins", argv, show_stdout=True)
    importlib.invalidate_caches()
    if step.code:
        stop(step, f"`vlc-harness {' '.join(argv)}` exited {step.code}")
    return step
