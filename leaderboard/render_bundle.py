"""``python -m vlc_leaderboard.render_bundle --bundle BUNDLE --out SITE``: render a board bundle in a process
that loads no plugin.

``vlc-harness render`` arrives through the ``leaderboard`` entry point, and every ``vlc-harness`` command
loads the installed plugins first: a plugin imported there can patch the templates or the policy before a
page is written. This entry builds no command line and no plugin manager: it imports the board's own
modules, what they import of the core, and the libraries it renders with (Jinja2, MarkupSafe, numpy,
click; ``tests/leaderboard/test_render_bundle_clean.py`` lists and checks them). Its options are
``render``'s for where and how to publish; what to publish is the bundle's.
"""

from __future__ import annotations

from pathlib import Path

import click

from vlc_harness.console import run_console
from vlc_leaderboard.bundle import open_bundle
from vlc_leaderboard.publish import Target, prepare, publish, site_options, summary, wall_clock


@click.command("render_bundle")
@click.option(
    "--bundle",
    type=click.Path(dir_okay=False, exists=True),
    required=True,
    help="The board bundle to render (vlc-harness board export).",
)
@site_options
def render_bundle(bundle: str, where: Target) -> None:
    """Render a board bundle into --out with no plugin loaded (as `vlc-harness render --bundle` renders it)."""
    recovered = prepare(where)
    with open_bundle(Path(bundle)) as data:
        board, written = publish(data, where, wall_clock(), recovered)
    summary(board, written, str(where.site))


def main(argv: list[str] | None = None) -> None:
    """Run the command; an error is one line and a hint, as ``vlc-harness`` prints it
    (:func:`vlc_harness.console.run_console`)."""
    run_console(lambda: render_bundle, argv, "python -m vlc_leaderboard.render_bundle")


if __name__ == "__main__":
    main()
