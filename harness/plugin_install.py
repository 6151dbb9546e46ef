"""Installing a registry's pinned plugin packages with pip, and checking what is installed.

``name==version`` pins go to pip as a requirements file with their hashes, under
``--no-deps --require-hashes --only-binary :all: -c constraints.txt``: a plugin's own dependencies must
already be installed (the harness's extras), no plugin can move the scoring stack's pins, and only wheels
install. An sdist runs its build backend at install (``prepare_metadata_for_build_wheel`` included), with
build dependencies that pip fetches without hashes, so it is never a candidate: a pin whose hashes are an
sdist's finds no wheel with those hashes, and pip's refusal is explained (:func:`explain`: publish a
wheel). Git pins are refused when the registry is read (:mod:`vlc_harness.plugin_packages`): pip builds
them from source. ``pip check`` runs afterwards; only problems the install brought (new lines, or lines
naming an installed package) fail it, since an environment may carry known ones from before
(``t2v_metrics`` installed ``--no-deps``).
"""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from vlc_harness.errors import RegistryError
from vlc_harness.plugin_packages import PluginPackage, canonical_name, parse_plugins
from vlc_harness.registry_document import read_document


def read_plugin_packages(paths: Iterable[Path]) -> dict[str, PluginPackage]:
    """Only the ``plugins:`` sections of registry files, merged (a later file's package replaces an
    earlier one of the same name): what ``plugins install`` reads, before the types it installs exist."""
    packages: dict[str, PluginPackage] = {}
    for path in paths:
        if not Path(path).is_file():
            raise RegistryError(f"registry file {path} does not exist", hint="pass --registry PATH")
        data, err = read_document(Path(path).read_text(encoding="utf-8"), str(path))
        packages.update(parse_plugins(data.get("plugins"), err, str(path)))
    return packages


def requirements_text(packages: Iterable[PluginPackage]) -> str:
    """The hashed requirements file of the ``name==version`` pins (pip takes ``--hash`` only in a file)."""
    lines = []
    for package in packages:
        if package.version is not None:
            lines.append(" ".join([package.pin, *(f"--hash={h}" for h in package.hashes)]))
    return "".join(line + "\n" for line in lines)


WHEELS_ONLY = ("--only-binary", ":all:")
"""pip's option that makes a wheel the only candidate: no sdist, no build code, no build dependency."""


@dataclass
class InstallPlan:
    """The pip command that installs a registry's pins: ``requirements`` is written to the file
    it names (``{requirements}`` until :meth:`commands` fills it in)."""

    requirements: str
    constraints: Path = Path("constraints.txt")
    python: str = sys.executable
    extra: tuple[str, ...] = ()
    """More pip options (``--no-index --find-links DIR`` for a local index)."""

    def commands(self, requirements_file: str = "{requirements}") -> list[list[str]]:
        """Each pip command, in order (one, or none when there is nothing to install)."""
        pip = [self.python, "-m", "pip", "install", "--no-deps", *WHEELS_ONLY, "-c", str(self.constraints)]
        return [[*pip, *self.extra, "--require-hashes", "-r", requirements_file]] if self.requirements else []


def install_plan(
    packages: Iterable[PluginPackage], constraints: Path, python: str = sys.executable, extra: tuple[str, ...] = ()
) -> InstallPlan:
    """What installing ``packages`` runs (nothing is run here)."""
    return InstallPlan(requirements_text(packages), constraints, python, extra)


class InstallFailed(Exception):
    """A pip command failed; the message is pip's own output."""


def run_install(plan: InstallPlan, packages: Iterable[PluginPackage]) -> list[str]:
    """Run the plan's pip commands, then ``pip check``; what was done, one line each.

    Raises :class:`InstallFailed` with pip's output when a command fails, or when ``pip check``
    reports a problem the install brought.
    """
    packages = list(packages)
    names = {canonical_name(p.package) for p in packages}
    before = set(pip_check(plan.python))
    done = []
    with tempfile.TemporaryDirectory() as tmp:
        req = Path(tmp) / "plugins-requirements.txt"
        req.write_text(plan.requirements, encoding="utf-8")
        for command in plan.commands(str(req)):
            result = subprocess.run(command, capture_output=True, text=True)
            if result.returncode != 0:
                output = f"{result.stdout}{result.stderr}".rstrip()
                raise InstallFailed(f"{' '.join(command)} failed:\n{output}{explain(output, packages)}")
            done.append(" ".join(command))
    after = pip_check(plan.python)
    brought = [line for line in after if line not in before or canonical_name(line.split(" ")[0]) in names]
    if brought:
        raise InstallFailed("pip check after the install:\n" + "\n".join(brought))
    done.append("pip check: no new problems" + (f" ({len(after)} from before)" if after else ""))
    return done


NO_WHEEL = re.compile(r"No matching distribution found for (?P<req>\S+)")
HASH_MISMATCH = "DO NOT MATCH THE HASHES"


def explain(output: str, packages: Iterable[PluginPackage]) -> str:
    """What pip's failure means for the pins (empty when it is neither case): under ``--only-binary :all:``
    a pin with no wheel of its version says "No matching distribution", and one whose hashes are not the
    wheel's (an sdist's) says the hashes do not match. The fix of both is a wheel."""
    named = [m["req"] for m in NO_WHEEL.finditer(output)]
    if HASH_MISMATCH in output:
        mismatched = output.split(HASH_MISMATCH, 1)[1]
        named += [p.pin for p in packages if p.version is not None and p.pin in mismatched]
    if not named:
        return ""
    return (
        f"\n\n{', '.join(dict.fromkeys(named))}: no wheel with the pinned hashes. Plugin packages install from "
        "wheels only (pip --only-binary :all:): an sdist runs its build code at install, and pip fetches its "
        "build dependencies without hashes. If the package is published as an sdist only, or its pinned hashes "
        "are the sdist's: publish a wheel (pip wheel --no-deps -w dist .) and pin the wheel's sha256."
    )


def pip_check(python: str = sys.executable) -> list[str]:
    """``pip check``'s problem lines in the environment of ``python`` (none: all is consistent)."""
    result = subprocess.run([python, "-m", "pip", "check"], capture_output=True, text=True)
    if result.returncode == 0:
        return []
    return [line for line in result.stdout.splitlines() if line.strip() and not line.startswith("No broken")]
