"""The night's install step: the hashed lock (``lock/nightly.txt``, every extra the nightly may need),
the checkout, and the no-deps packages, spaCy pipelines and plugin packages the registry's entries need
(each type's ``requires`` declaration, its ``plugins:`` section), each with hashes and from wheels only."""

from __future__ import annotations

import importlib
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from vlc_harness.ci.nightly.steps import Step
from vlc_harness.ci.nightly.stops import stop
from vlc_harness.requires import Requires

if TYPE_CHECKING:
    from vlc_harness.registry import Registry

CHECKOUT = Path(__file__).resolve().parents[3]
"""The checkout this package runs from (``harness/ci/nightly/install.py``: an editable install, as the
workflow's): the install step installs it ``--no-deps`` after its lock."""
LOCK = CHECKOUT / "lock" / "nightly.txt"
"""What the nightly installs, hashed (:mod:`vlc_harness.lockfile`)."""
NO_DEPS = CHECKOUT / "lock" / "no-deps.txt"
"""The ``--no-deps`` packages and spaCy pipelines, one hashed line each, recorded by a maintainer."""
NO_DEPS_FILE = "{no-deps requirements}"
"""Stands for the temporary file of the lines of :data:`NO_DEPS` the registry needs."""
PIP = [sys.executable, "-m", "pip", "install", "--no-deps"]
HASHED = ["--require-hashes", "--only-binary", ":all:"]


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


def install_commands(registry: Registry, registry_path: Path | None = None, lock: Path = LOCK) -> list[list[str]]:
    """The commands that install what the registry's entries need (run from the repository root): the lock
    (hashes required, wheels only), the checkout itself without dependencies (built with the locked
    setuptools, nothing fetched), the hashed lines of :data:`NO_DEPS` for the ``--no-deps`` packages and
    spaCy pipelines of its types (written to :data:`NO_DEPS_FILE` when run), and the plugin packages its
    ``plugins:`` section pins (``vlc-harness plugins install``: hashes required, wheels only, no
    dependencies, under the constraints)."""
    wanted = needs(registry)
    # the commands run in the checkout: paths given relative to where the night was started are made absolute
    commands = [[*PIP, *HASHED, "-r", str(lock.absolute())], [*PIP, "--no-build-isolation", "-e", str(CHECKOUT)]]
    if wanted.no_deps or wanted.spacy_models:
        commands.append([*PIP, *HASHED, "-r", NO_DEPS_FILE])
    if getattr(registry, "packages", None) and registry_path is not None:
        commands.append(
            [sys.executable, "-m", "vlc_harness", "plugins", "install", "--registry", str(registry_path.absolute())]
        )
    return commands


def no_deps_requirements(registry: Registry, lock: Path = LOCK) -> str:
    """The hashed requirements of the registry's ``--no-deps`` packages and spaCy pipelines, from
    :data:`NO_DEPS`; raises :class:`ValueError` when the lock lacks an extra its types declare, or
    :data:`NO_DEPS` a line or a hash they need."""
    from vlc_harness import lockfile

    wanted = needs(registry)
    unlocked = sorted(set(wanted.extras) - set(lockfile.read(lock).extras))
    if unlocked:
        raise ValueError(
            f"the registry's types need the extras {', '.join(unlocked)}, which {lock} does not lock: add them "
            "to the lock's command (vlc_harness.lockfile.LOCK_COMMAND) and regenerate it (README)"
        )
    names = [*sorted(wanted.no_deps), *sorted(wanted.spacy_models)]
    try:
        return lockfile.select(NO_DEPS, names) if names else ""
    except ValueError as exc:
        raise ValueError(f"{exc}: record each sha256 as docs/maintainers.md says") from None


def install(registry: Registry, enabled: bool, lock: Path = LOCK) -> Step:
    """Run :func:`install_commands` but the plugin packages' (the ``plugins`` step's:
    :mod:`vlc_harness.ci.nightly.plugins`); ``enabled`` false: name them only. Nothing runs when the lock or
    :data:`NO_DEPS` cannot give what the registry needs (:func:`no_deps_requirements`). A failure stops the
    night (:attr:`~vlc_harness.exit_codes.ExitCode.STEP_FAILED`)."""
    step = Step("install", skipped=not enabled)
    commands = install_commands(registry, None, lock)
    if not enabled:
        step.lines += [f"skipped (--no-install): `{' '.join(cmd)}`" for cmd in commands]
        return step
    try:
        requirements = no_deps_requirements(registry, lock)
    except ValueError as exc:
        stop(step, f"refused, nothing installed: {exc}")
        return step
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "no-deps.txt"
        path.write_text(requirements, encoding="utf-8")
        for cmd in commands:
            shown = " ".join(cmd) + (f" ({requirements.strip()})" if NO_DEPS_FILE in cmd else "")
            done = subprocess.run([str(path) if part == NO_DEPS_FILE else part for part in cmd], cwd=CHECKOUT)
            step.lines.append(f"{'ok' if done.returncode == 0 else f'failed (exit {done.returncode})'}: `{shown}`")
            if done.returncode:
                stop(step)
                break
    importlib.invalidate_caches()
    return step
