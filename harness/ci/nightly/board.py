"""The night's board steps: export the board bundle (the run job), render it where no plugin is loaded (the
render job), check the rendered site before it is deployed (the deploy job).

* export: ``vlc-harness board export --out BUNDLE`` in this process, with the registry the run read;
* render: ``python -m MODULE`` in a process of its own, which loads no plugin, against the published site
  (``--previous``: its ``manifest.json`` and ``releases/``); MODULE is the board's ``render`` entry in the
  :data:`BOARD_PROGRAMS` entry-point group (the leaderboard's ``render_bundle``): the core never imports
  the board, nor names it;
* verify: ``python -m MODULE SITE --against PUBLISHED``, the deploy check (the group's ``verify``: the
  leaderboard's ``verify_site``), also in a process of its own.

Run locally (``vlc-harness ci nightly``, every step), the published site is ``--site`` itself: its manifest
and releases are copied aside before render replaces it, and the new site is verified against the copy.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from vlc_harness.ci.nightly.steps import Step, cli
from vlc_harness.exit_codes import ExitCode

BOARD_PROGRAMS = "vlc_harness_board"
"""The entry-point group naming the board's programs by module (``render``, ``verify``; pyproject.toml)."""
MANIFEST = "manifest.json"
RELEASES = "releases"


def export(common: list[str], store: list[str], bundle: Path) -> Step:
    """``vlc-harness board export`` of the run's store and registry into ``bundle``."""
    return cli("export", ["board", "export", *common, *store, "--out", str(bundle)], show_stdout=True)


def render(bundle: Path, site: Path, previous: Path | None, release: str | None) -> Step:
    """Render ``bundle`` into ``site`` in a process that loads no plugin."""
    args = ["--bundle", str(bundle), "--out", str(site)]
    args += ["--previous", str(previous)] if previous is not None else []
    args += ["--release", release] if release else []
    return module_step("render", board_program("render"), args, show_stdout=True)


def verify(site: Path, against: Path | None) -> Step:
    """The deploy check of ``site`` (against the published site, when there is one). Whatever keeps it from
    passing refuses the site (a crash too): exit 9, unless a usage error (2)."""
    args = [str(site)] + (["--against", str(against)] if against is not None else [])
    step = module_step("verify", board_program("verify"), args, show_stdout=True)
    if step.code not in (ExitCode.OK, ExitCode.USAGE):
        step.code = ExitCode.SITE_REFUSED
    return step


def board_program(name: str) -> str:
    """The module of the board's program ``name`` (:data:`BOARD_PROGRAMS`) as vlc-harness's own distribution
    declares it; ``-`` when it does not (the step then fails saying so). Only vlc-harness's entry counts: an
    installed plugin declaring one of these names must not choose the code that renders or checks the site."""
    from importlib.metadata import entry_points

    from vlc_harness.plugin_identity import DISTRIBUTION

    found = [ep for ep in entry_points(group=BOARD_PROGRAMS, name=name) if ep.dist and ep.dist.name == DISTRIBUTION]
    return found[0].value if found else "-"


def module_step(name: str, module: str, args: list[str], show_stdout: bool = False) -> Step:
    """``python -m MODULE ARGS`` in a process of its own, its output passed on; the summary shows what it printed
    on stderr (``show_stdout``: on stdout too)."""
    step = Step(name)
    if module == "-":
        step.code = ExitCode.FAILED
        step.lines.append(f"no installed package declares the board's {name} program (entry points {BOARD_PROGRAMS})")
        return step
    try:
        done = subprocess.run([sys.executable, "-m", module, *args], capture_output=True, text=True, check=False)
    except OSError as exc:
        step.code, step.crashed = ExitCode.FAILED, True
        step.lines.append(f"could not start python -m {module}: {exc}")
        return step
    sys.stdout.write(done.stdout)
    sys.stderr.write(done.stderr)
    step.code, step.output = done.returncode, done.stdout
    if done.returncode not in {c.value for c in ExitCode}:  # killed, or a code of no meaning: a failed step
        step.code, step.crashed = ExitCode.FAILED, True
        step.lines.append(f"crashed: python -m {module} exited {done.returncode}")
    shown = (done.stdout if show_stdout else "") + done.stderr
    step.lines += [line for line in shown.splitlines() if line.strip() and not line.startswith("Traceback")][-40:]
    return step


def snapshot(site: Path, folder: Path) -> Path | None:
    """Copy what the deploy check compares with (``manifest.json`` and ``releases/``) from the published ``site``
    into ``folder``; ``None`` when ``site`` has published nothing yet."""
    if not (site / MANIFEST).is_file():
        return None
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy2(site / MANIFEST, folder / MANIFEST)
    if (site / RELEASES).is_dir():
        shutil.copytree(site / RELEASES, folder / RELEASES, symlinks=True)
    return folder
