"""``vlc-harness ci pr-check``: run the steps named, each section printed and appended to the job
summary; exit 1 when any step failed."""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

import click

from vlc_harness.ci.pr_check.baselines import step_baselines
from vlc_harness.ci.pr_check.conformance import step_conformance
from vlc_harness.ci.pr_check.context import Context
from vlc_harness.ci.pr_check.lint import step_lint
from vlc_harness.ci.pr_check.plan import step_plan
from vlc_harness.ci.pr_check.plugins import step_plugins
from vlc_harness.ci.pr_check.registry import step_registry
from vlc_harness.ci.pr_check.smoke import OVERRIDE_LABEL, step_smoke
from vlc_harness.ci.pr_check.submitted import step_submitted
from vlc_harness.ci.summary import Section, append
from vlc_harness.exit_codes import ExitCode
from vlc_harness.paths import ENV_DATA

STEPS: dict[str, Callable[[Context], Section]] = {
    "plugins": step_plugins,
    "lint": step_lint,
    "registry": step_registry,
    "conformance": step_conformance,
    "plan": step_plan,
    "smoke": step_smoke,
    "baselines": step_baselines,
    "submitted": step_submitted,
}
"""Each step by name, in the order ``all`` runs them."""


def check(
    steps: Sequence[str],
    base: str | None,
    repo: Path,
    registry: Path | None,
    data_root: Path | None,
    summary: Path | None,
    plan_file: Path | None,
    labels: Sequence[str] = (),
) -> int:
    """Run the steps named (``all``: every one); print each section and append it to ``summary``;
    1 when any failed. A step that raises is a failed section, and the next one still runs."""
    repo = repo.resolve()
    failed = False
    with tempfile.TemporaryDirectory(prefix="pr-check-") as tmp:
        data_root = data_root or Path(tmp) / "data"
        registry = (registry or repo / "registry.yaml").resolve()
        ctx = Context(repo, base, registry, data_root, Path(tmp), plan_file, frozenset(labels))
        for name in list(STEPS) if "all" in steps else steps:
            try:
                section = STEPS[name](ctx)
            except Exception as exc:  # a broken step is reported, and the next one still runs
                section = Section(name)
                section.fail(f"the step raised {type(exc).__name__}: {exc}")
            failed |= section.verdict == "failed"
            text = section.markdown()
            if summary is not None:
                append(summary, text)
            print(text, end="", flush=True)
    return ExitCode.FAILED if failed else ExitCode.OK


PATH = click.Path(path_type=Path)


@click.command("pr-check", short_help="The pull-request check, step by step (STEP... or all).")
@click.argument("steps", nargs=-1, required=True, type=click.Choice([*STEPS, "all"]), metavar="STEP...")
@click.option("--base", default=None, help="The base revision (e.g. origin/main); none: no diff.")
@click.option("--repo", type=PATH, default=Path("."), show_default=True, help="The checkout to check.")
@click.option("--registry", type=PATH, default=None, help="Default: REPO/registry.yaml.")
@click.option("--data-root", type=PATH, default=None, envvar=ENV_DATA, show_envvar=True, help="Default: a temp folder.")
@click.option(
    "--summary",
    type=PATH,
    default=None,
    envvar="GITHUB_STEP_SUMMARY",
    show_envvar=True,
    help="Append each section to this file too (the job summary); else stdout only.",
)
@click.option(
    "--plan-file",
    type=PATH,
    default=None,
    envvar="PR_CHECK_PLAN_FILE",
    show_envvar=True,
    help="Keep the plan JSON here for later steps (none: not kept).",
)
@click.option(
    "--labels",
    default="",
    envvar="PR_CHECK_LABELS",
    show_envvar=True,
    help=f"The pull request's labels, comma-separated (the workflow sets them); `{OVERRIDE_LABEL}` accepts a "
    "model or benchmark the check cannot run here.",
)
def pr_check_command(
    steps: tuple[str, ...],
    base: str | None,
    repo: Path,
    registry: Path | None,
    data_root: Path | None,
    summary: Path | None,
    plan_file: Path | None,
    labels: str,
) -> None:
    """The pull-request check (.github/workflows/pr.yml, docs/pr_check.md): each STEP writes a
    Markdown section; exit 1 when one fails.

    \b
    STEP: plugins       vlc-harness plugins install: the registry's pinned packages
          lint          ruff check and ruff format --check, mypy, import contracts
          registry      every registry file loads; submitted entries are well-formed
          conformance   conformance checks of the types the PR brings in
          plan          plan --diff BASE --all: cells added, changed, removed
          smoke         run --limit 5 on CPU of each model the PR adds or changes
          baselines     random, blind and tiny image baselines on each benchmark it adds or changes
          submitted     submitted scores download, match their sha256 and are complete
          all           every step, in this order
    """
    given = [label.strip() for label in labels.split(",") if label.strip()]
    code = check(steps, base, repo, registry, data_root, summary, plan_file, given)
    if code:
        sys.exit(code)
