"""``vlc-harness ci nightly``: the night in order (:func:`night`: install, fetch, run, export; render; verify),
its JSON and Markdown summaries, and its exit code. ``--steps`` runs the jobs' parts alone, as the workflow's
three jobs do (:mod:`vlc_harness.ci.nightly` says which job runs which)."""

from __future__ import annotations

import json
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

from vlc_harness.ci.nightly import board
from vlc_harness.ci.nightly.fetch import fetch
from vlc_harness.ci.nightly.install import CHECKOUT, LOCK, install, install_commands
from vlc_harness.ci.nightly.markdown import markdown
from vlc_harness.ci.nightly.plugins import plugins
from vlc_harness.ci.nightly.schedule import deadline_argv, night_deadline_option
from vlc_harness.ci.nightly.steps import Step, cli
from vlc_harness.ci.nightly.stops import load_registry_step, outcome, stop
from vlc_harness.ci.summary import append
from vlc_harness.exit_codes import ExitCode, worst
from vlc_harness.paths import ENV_DATA, ENV_STORE

STEPS = ("run", "render", "verify")
"""The night's parts: the run job's (install, fetch, run, export the bundle), the render job's, the deploy
job's check."""


@dataclass(frozen=True)
class NightOptions:
    """What the night is told (the workflow passes the registry, the site, the bundle, the published site and a
    release name)."""

    registry: Path
    store: str | None = None
    data_root: Path | None = None
    site: Path = Path("site")
    release: str | None = None
    no_install: bool = False
    lock: Path = LOCK
    deadline: float | None = None
    """Seconds from the night's start after which the run starts no work (``run --deadline-at``)."""
    steps: tuple[str, ...] = STEPS
    bundle: Path | None = None
    """Where the run writes the board bundle and render reads it (every step at once: a temporary file)."""
    previous: Path | None = None
    """The published site render checks against and carries releases from, and verify checks against
    (default: ``site`` as it was before this night)."""


def night(options: NightOptions) -> tuple[int, dict[str, Any], list[Step]]:
    """Every step asked for, in order; the exit code, the JSON summary and the steps. A step that leaves
    nothing to render stops the night (:mod:`.stops`)."""
    run_deadline = deadline_argv(options.deadline)  # counted from the night's start, as the job's limit is
    with tempfile.TemporaryDirectory() as tmp:
        bundle = options.bundle or Path(tmp) / "board-bundle.zip"
        steps: list[Step] = []
        summary = None
        if "run" in options.steps:
            steps, summary = _run_job(options, bundle, Path(tmp), run_deadline)
            exported = steps[-1].name == "export" and steps[-1].code == ExitCode.OK
            if not exported or "render" not in options.steps:  # no bundle, or the render job renders it
                return _finish(steps, summary)
        previous = options.previous
        if previous is None and "render" in options.steps:  # the published site is --site, as it is now
            previous = board.snapshot(options.site, Path(tmp) / "published")
        if "render" in options.steps:
            steps.append(board.render(bundle, options.site, options.previous, options.release))
            if steps[-1].code:
                return _finish(steps, summary)
        if "verify" in options.steps:
            steps.append(board.verify(options.site, previous))
        return _finish(steps, summary)


def _run_job(
    options: NightOptions, bundle: Path, tmp: Path, run_deadline: list[str]
) -> tuple[list[Step], dict[str, Any] | None]:
    """The run job's steps: registry, install, plugins, fetch, run, export the bundle; the steps and the run's
    summary."""
    from vlc_harness.config import resolve_data_root
    from vlc_harness.errors import HarnessError
    from vlc_harness.plugins import get_plugins
    from vlc_harness.registry import load_registry

    registry, loaded = load_registry_step(options.registry)
    if registry is None:
        return [loaded], None
    steps = [loaded, install(registry, not options.no_install, options.lock)]
    if steps[-1].code:
        return steps, None
    steps.append(plugins(registry, not options.no_install, options.registry))
    if steps[-1].code:
        return steps, None
    if not options.no_install:  # a package the install added registers its types now
        try:
            registry = load_registry([Path(options.registry)], get_plugins(reload=True))
        except HarnessError as exc:  # e.g. an installed package that does not register its listed type
            stop(steps[-1], f"the registry does not load after the install: {exc}")
            return steps, None
    common = ["--registry", str(options.registry)]
    common += ["--data-root", str(options.data_root)] if options.data_root else []
    store = ["--store", options.store] if options.store else []
    steps.append(fetch(registry, common, resolve_data_root(options.data_root)))
    if steps[-1].code == 2:
        stop(steps[-1], "`vlc-harness data fetch` exited 2 (its error is above)")
        return steps, None
    run_json = tmp / "run.json"
    argv = ["run", "--all", "--require-pinned", *common, *store, "--no-progress", *run_deadline]
    run = cli("run", [*argv, "--summary", str(run_json)])  # off the pins (exit 6): refused, nothing published
    summary = json.loads(run_json.read_text()) if run_json.is_file() else None
    steps.append(run)
    if run.code == ExitCode.OFF_PIN:  # refused before anything ran (its line says why): nothing to export
        return steps, summary
    if run.code == 2 or summary is None:
        stop(run, f"`vlc-harness run` exited {run.code}" + ("" if summary else " and wrote no summary"))
        return steps, summary
    steps.append(board.export(common, store, bundle))
    return steps, summary


def _finish(steps: list[Step], run_summary: dict[str, Any] | None) -> tuple[int, dict[str, Any], list[Step]]:
    codes = [s.code for s in steps]
    code = worst(codes)
    payload = {
        "schema": 1,
        "exit_code": code,
        **outcome(code, steps),
        "steps": {s.name: {"exit_code": s.code, "skipped": s.skipped, "lines": s.lines} for s in steps},
        "run": run_summary,
    }
    return code, payload, steps


PATH = click.Path(path_type=Path)


@click.command("nightly", short_help="The nightly leaderboard: install, fetch, run, export; render; verify.")
@click.option(
    "--registry", type=PATH, default=CHECKOUT / "registry.yaml", help="Default: the checkout's registry.yaml."
)
@click.option("--store", default=None, envvar=ENV_STORE, show_envvar=True, help="Store URL (default: the user cache).")
@click.option(
    "--data-root", type=PATH, default=None, envvar=ENV_DATA, show_envvar=True, help="Default: the user data dir."
)
@click.option("--site", type=PATH, default=Path("site"), show_default=True, help="The published site folder.")
@click.option("--release", default=None, help="Also freeze the site as releases/NAME.")
@click.option("--summary", type=PATH, default=None, help="Write the night as JSON here.")
@click.option(
    "--markdown",
    "markdown_file",
    type=PATH,
    default=None,
    envvar="GITHUB_STEP_SUMMARY",
    show_envvar=True,
    help="Append the night's Markdown here (the job summary); else stdout.",
)
@click.option("--no-install", is_flag=True, help="Skip the install step (a machine set up).")
@click.option(
    "--lock", type=PATH, default=LOCK, help="The hashed lock to install. Default: the checkout's lock/nightly.txt."
)
@click.option("--print-install", is_flag=True, help="Print the install commands and stop.")
@night_deadline_option
@click.option(
    "--steps",
    default=",".join(STEPS),
    show_default=True,
    help="Which parts to run, in order: run (install, fetch, run, export the board bundle), render (the bundle, "
    "with no plugin loaded), verify (the deploy check). The workflow's jobs run one each.",
)
@click.option(
    "--bundle",
    type=PATH,
    default=None,
    help="The board bundle run writes and render reads (needed unless both run in this call).",
)
@click.option(
    "--previous",
    type=click.Path(file_okay=False, exists=True, path_type=Path),
    default=None,
    help="The published site (its manifest.json and releases/): what render checks against and carries "
    "releases from, and verify checks against. Default: --site as it is before this night.",
)
def nightly_command(
    registry: Path,
    store: str | None,
    data_root: Path | None,
    site: Path,
    release: str | None,
    summary: Path | None,
    markdown_file: Path | None,
    no_install: bool,
    print_install: bool,
    lock: Path,
    deadline: float | None,
    steps: str,
    bundle: Path | None,
    previous: Path | None,
) -> None:
    """The nightly leaderboard (.github/workflows/nightly.yml): install what the registry needs,
    fetch its data, run the grid and export the board bundle; render the bundle in a process that loads
    no plugin; verify the site before it is deployed.

    Exits with the step code that wins (a usage error, 2, always wins); a pinned file that could not
    be fetched counts as 1; a step that leaves nothing to render (registry, install, plugins, fetch, run)
    stops the night with 7; installed score-changing packages that differ from constraints.txt stop it
    before the run with 6 (run --require-pinned); a run that reached --deadline exits 8 and publishes its
    complete cells (README, "Exit status"). The workflow renders when the run part exits 0, 1 or 8, and
    deploys only a site render accepted and the deploy check passed.
    """
    wanted = tuple(s.strip() for s in steps.split(",") if s.strip())
    if not wanted or any(s not in STEPS for s in wanted) or list(wanted) != [s for s in STEPS if s in wanted]:
        raise click.BadParameter(f"a comma-separated list of {', '.join(STEPS)}, in that order", param_hint="--steps")
    if bundle is None and ("run" in wanted) != ("render" in wanted):
        raise click.UsageError("--steps run writes the bundle and render reads it: pass --bundle FILE")
    if print_install:
        from vlc_harness.plugins import get_plugins
        from vlc_harness.registry import load_registry

        for cmd in install_commands(load_registry([registry], get_plugins()), registry, lock):
            print(" ".join(cmd))
        return
    options = NightOptions(
        registry, store, data_root, site, release, no_install, lock, deadline, wanted, bundle, previous
    )
    code, payload, done = night(options)
    if summary is not None:
        summary.parent.mkdir(parents=True, exist_ok=True)
        summary.write_text(json.dumps(payload, indent=1) + "\n", encoding="utf-8")
    text = markdown(code, done, payload["run"])
    if markdown_file is None:
        print(text)
    else:
        append(markdown_file, text + "\n")
    if code:
        sys.exit(code)
