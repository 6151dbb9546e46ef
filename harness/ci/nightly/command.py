"""``vlc-harness ci nightly``: the night in order (:func:`night`: install, fetch, run, render), its JSON
and Markdown summaries, and its exit code."""

from __future__ import annotations

import json
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

from vlc_harness.ci.nightly.fetch import fetch
from vlc_harness.ci.nightly.install import CHECKOUT, LOCK, install, install_commands
from vlc_harness.ci.nightly.markdown import markdown
from vlc_harness.ci.nightly.plugins import plugins
from vlc_harness.ci.nightly.schedule import deadline_argv, night_deadline_option
from vlc_harness.ci.nightly.steps import Step, cli
from vlc_harness.ci.nightly.stops import load_registry_step, outcome, stop
from vlc_harness.ci.summary import append
from vlc_harness.exit_codes import worst
from vlc_harness.paths import ENV_DATA, ENV_STORE


@dataclass(frozen=True)
class NightOptions:
    """What the night is told (the workflow passes the registry, the site and a release name)."""

    registry: Path
    store: str | None = None
    data_root: Path | None = None
    site: Path = Path("site")
    release: str | None = None
    no_install: bool = False
    lock: Path = LOCK
    deadline: float | None = None
    """Seconds from the night's start after which the run starts no work (``run --deadline-at``)."""


def night(options: NightOptions) -> tuple[int, dict[str, Any], list[Step]]:
    """Every step in order; the exit code, the JSON summary and the steps. A step that leaves nothing to
    render stops the night (:mod:`.stops`)."""
    from vlc_harness.config import resolve_data_root
    from vlc_harness.errors import HarnessError
    from vlc_harness.plugins import get_plugins
    from vlc_harness.registry import load_registry

    run_deadline = deadline_argv(options.deadline)  # counted from the night's start, as the job's limit is
    registry, loaded = load_registry_step(options.registry)
    if registry is None:
        return _finish([loaded], None)
    steps = [loaded, install(registry, not options.no_install, options.lock)]
    if steps[-1].code:
        return _finish(steps, None)
    steps.append(plugins(registry, not options.no_install, options.registry))
    if steps[-1].code:
        return _finish(steps, None)
    if not options.no_install:  # a package the install added registers its types now
        try:
            registry = load_registry([Path(options.registry)], get_plugins(reload=True))
        except HarnessError as exc:  # e.g. an installed package that does not register its listed type
            stop(steps[-1], f"the registry does not load after the install: {exc}")
            return _finish(steps, None)
    common = ["--registry", str(options.registry)]
    common += ["--data-root", str(options.data_root)] if options.data_root else []
    store = ["--store", options.store] if options.store else []
    steps.append(fetch(registry, common, resolve_data_root(options.data_root)))
    if steps[-1].code == 2:
        stop(steps[-1], "`vlc-harness data fetch` exited 2 (its error is above)")
        return _finish(steps, None)
    with tempfile.TemporaryDirectory() as tmp:
        run_json = Path(tmp) / "run.json"
        argv = ["run", "--all", "--require-pinned", *common, *store, "--no-progress", *run_deadline]
        run = cli("run", [*argv, "--summary", str(run_json)])  # off the pins (exit 6): refused, nothing published
        summary = json.loads(run_json.read_text()) if run_json.is_file() else None
    steps.append(run)
    if run.code == 2 or summary is None:
        stop(run, f"`vlc-harness run` exited {run.code}" + ("" if summary else " and wrote no summary"))
        return _finish(steps, summary)
    release = ["--release", options.release] if options.release else []
    steps.append(cli("render", ["render", *common, *store, "--out", str(options.site), *release], show_stdout=True))
    return _finish(steps, summary)


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


@click.command("nightly", short_help="The nightly leaderboard: install, fetch, run, render.")
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
) -> None:
    """The nightly leaderboard (.github/workflows/nightly.yml): install what the registry needs,
    fetch its data, run the grid, render the site.

    Exits with the highest step code (a usage error, 2, always wins); a pinned file that could not
    be fetched or a failed install counts as 1 (README, "Exit status"); installed score-changing
    packages that differ from constraints.txt stop the night before the run (6, run
    --require-pinned). The workflow publishes the site when the night exits 0 or 1.
    """
    if print_install:
        from vlc_harness.plugins import get_plugins
        from vlc_harness.registry import load_registry

        for cmd in install_commands(load_registry([registry], get_plugins()), registry, lock):
            print(" ".join(cmd))
        return
    code, payload, steps = night(NightOptions(registry, store, data_root, site, release, no_install, lock, deadline))
    if summary is not None:
        summary.parent.mkdir(parents=True, exist_ok=True)
        summary.write_text(json.dumps(payload, indent=1) + "\n", encoding="utf-8")
    text = markdown(code, steps, payload["run"])
    if markdown_file is None:
        print(text)
    else:
        append(markdown_file, text + "\n")
    if code:
        sys.exit(code)
