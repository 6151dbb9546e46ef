"""The night's install step: the extras, no-deps packages, spaCy models and plugin packages the
registry's entries need (each type's ``requires`` declaration), installed into this environment from
the harness checkout."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from vlc_harness.ci.nightly.steps import Step
from vlc_harness.exit_codes import ExitCode
from vlc_harness.requires import Requires

if TYPE_CHECKING:
    from vlc_harness.registry import Registry

CHECKOUT = Path(__file__).resolve().parents[3]
"""The checkout this package runs from (``harness/ci/nightly/install.py``: an editable install, as the
workflow's): the install step installs it with extras under its ``constraints.txt``."""


def needs(registry: Registry) -> Requires:
    """What the registry's entries need installed, from each type's declaration
    (:class:`~vlc_harness.requires.Requires`, with what each entry's params add). An entry whose plugin
    package is not installed yet adds nothing: ``vlc-harness plugins install`` brings its package."""
    from vlc_harness.plugins import get_plugins

    plugins = get_plugins()
    total = Requires()
    for entries, registrar in ((registry.models, plugins.models), (registry.benchmarks, plugins.benchmarks)):
        for entry in entries.values():
            if not entry.unavailable:
                total = total | registrar.get(entry.type).cls.requires.for_params(entry.params)
    return total


def install_commands(registry: Registry, registry_path: Path | None = None) -> list[list[str]]:
    """The commands that install what the registry's entries need (run from the repository root): the
    extras of its types, their no-deps packages, spaCy's pipelines, and the plugin packages its ``plugins:``
    section pins (``vlc-harness plugins install``: hashes required, no dependencies, under the constraints)."""
    wanted = needs(registry)
    extras = sorted(wanted.extras)
    pip = [sys.executable, "-m", "pip", "install", "-c", str(CHECKOUT / "constraints.txt")]
    commands = [[*pip, "-e", f"{CHECKOUT}[{','.join(extras)}]" if extras else str(CHECKOUT)]]
    if wanted.no_deps:
        commands.append([*pip, "--no-deps", *sorted(wanted.no_deps)])
    commands += [[sys.executable, "-m", "spacy", "download", m] for m in sorted(wanted.spacy_models)]
    if getattr(registry, "packages", None) and registry_path is not None:
        commands.append([sys.executable, "-m", "vlc_harness", "plugins", "install", "--registry", str(registry_path)])
    return commands


def install(registry: Registry, enabled: bool, registry_path: Path | None = None) -> Step:
    """Run :func:`install_commands` (``enabled`` false: name them only)."""
    step = Step("install", skipped=not enabled)
    for cmd in install_commands(registry, registry_path):
        shown = " ".join(cmd)
        if not enabled:
            step.lines.append(f"skipped (--no-install): `{shown}`")
            continue
        done = subprocess.run(cmd, cwd=CHECKOUT)
        step.lines.append(f"{'ok' if done.returncode == 0 else f'failed (exit {done.returncode})'}: `{shown}`")
        if done.returncode:
            step.code = ExitCode.FAILED
            break
    importlib.invalidate_caches()
    return step
