"""``vlc-harness ci``: the repository's CI jobs as commands, added through one of the core's own plugins
(:mod:`vlc_harness.ci.hooks`) as its other commands are.

``ci pr-check`` (:mod:`vlc_harness.ci.pr_check`, ``.github/workflows/pr.yml``) and ``ci nightly``
(:mod:`vlc_harness.ci.nightly`, ``.github/workflows/nightly.yml``); :mod:`vlc_harness.ci.summary`
holds the Markdown both write to the job summary.
"""

from __future__ import annotations

import click

from vlc_harness.ci.nightly.command import nightly_command
from vlc_harness.ci.pr_check.command import pr_check_command


@click.group("ci")
def ci_group() -> None:
    """The CI jobs: the pull-request check and the nightly leaderboard (docs/pr_check.md)."""


ci_group.add_command(pr_check_command)
ci_group.add_command(nightly_command)
