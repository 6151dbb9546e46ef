"""Installing a registry's pinned plugin packages with pip, and checking what is installed.

``name==version`` pins go to pip as a requirements file with their hashes, under
``--no-deps --require-hashes -c constraints.txt``: a plugin's own dependencies must already be
installed (the harness's extras), and no plugin can move the scoring stack's pins. A git pin
(``git+https://...@<commit>``) is installed ``--no-deps`` at its commit in a call of its own:
pip cannot hash a VCS checkout, so ``--require-hashes`` does not apply to it, and it needs the
network (it cannot be installed offline). ``pip check`` runs afterwards; only problems the install
brought (new lines, or lines naming an installed package) fail it, since an environment may carry
known ones from before (``t2v_metrics`` installed ``--no-deps``).
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from vlc_harness.errors import RegistryError
from vlc_harness.plugin_packages import PluginPackage, canonical_name, parse_plugins
from vlc_harness.registry import read_document


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


@dataclass
class InstallPlan:
    """The pip commands that install a registry's pins: ``requirements`` is written to the file
    the first command names (``{requirements}`` until :meth:`commands` fills it in)."""

    requirements: str
    git: list[PluginPackage] = field(default_factory=list)
    constraints: Path = Path("constraints.txt")
    python: str = sys.executable
    extra: tuple[str, ...] = ()
    """More pip options (``--no-index --find-links DIR`` for a local index)."""

    def commands(self, requirements_file: str = "{requirements}") -> list[list[str]]:
        """Each pip command, in order."""
        pip = [self.python, "-m", "pip", "install", "--no-deps", "-c", str(self.constraints), *self.extra]
        out = []
        if self.requirements:
            out.append([*pip, "--require-hashes", "-r", requirements_file])
        for package in self.git:  # a VCS URL: pip refuses it under --require-hashes
            out.append([*pip, package.requirement()])
        return out


def install_plan(
    packages: Iterable[PluginPackage], constraints: Path, python: str = sys.executable, extra: tuple[str, ...] = ()
) -> InstallPlan:
    """What installing ``packages`` runs (nothing is run here)."""
    packages = list(packages)
    git = [p for p in packages if p.commit is not None]
    return InstallPlan(requirements_text(packages), git, constraints, python, extra)


class InstallFailed(Exception):
    """A pip command failed; the message is pip's own output."""


def run_install(plan: InstallPlan, packages: Iterable[PluginPackage]) -> list[str]:
    """Run the plan's pip commands, then ``pip check``; what was done, one line each.

    Raises :class:`InstallFailed` with pip's output when a command fails, or when ``pip check``
    reports a problem the install brought.
    """
    names = {canonical_name(p.package) for p in packages}
    before = set(pip_check(plan.python))
    done = []
    with tempfile.TemporaryDirectory() as tmp:
        req = Path(tmp) / "plugins-requirements.txt"
        req.write_text(plan.requirements, encoding="utf-8")
        for command in plan.commands(str(req)):
            result = subprocess.run(command, capture_output=True, text=True)
            if result.returncode != 0:
                raise InstallFailed(f"{' '.join(command)} failed:\n{result.stdout}{result.stderr}".rstrip())
            done.append(" ".join(command))
    after = pip_check(plan.python)
    brought = [line for line in after if line not in before or canonical_name(line.split(" ")[0]) in names]
    if brought:
        raise InstallFailed("pip check after the install:\n" + "\n".join(brought))
    done.append("pip check: no new problems" + (f" ({len(after)} from before)" if after else ""))
    return done


def pip_check(python: str = sys.executable) -> list[str]:
    """``pip check``'s problem lines in the environment of ``python`` (none: all is consistent)."""
    result = subprocess.run([python, "-m", "pip", "check"], capture_output=True, text=True)
    if result.returncode == 0:
        return []
    return [line for line in result.stdout.splitlines() if line.strip() and not line.startswith("No broken")]
