"""The ``vlc-harness`` command line (click): the group, its core verbs, and :func:`main`.

One module per command group: :mod:`.run` (``run``), :mod:`.listing` (``list``, ``instances``,
``plugins list``), :mod:`.plugin_packages` (``plugins``, ``plugins install|check``), :mod:`.cache`,
:mod:`.store`, and through the core's own plugin (:mod:`.commands`) :mod:`.data`, :mod:`.verify`,
:mod:`.schema`, :mod:`.new` and ``plan`` (:mod:`vlc_harness.planview.command`, with the rest of the
plan). Plugins add more through the ``register_commands``
hook (the leaderboard's ``show`` and ``render``), with the options and shared state of
:mod:`.options`, re-exported here. A :class:`~vlc_harness.errors.UserError` is printed as one line
plus a hint, with no traceback, and exits with status 2; another harness error (a malformed input file:
:class:`~vlc_harness.errors.InputError`) is one line and status 1. ``vlc-harness --debug COMMAND`` prints
their tracebacks too, and sets ``$VLC_HARNESS_DEBUG`` for the command, so that a run's input errors
(which fail only their cells) and the model workers' show theirs on stderr.
"""

from __future__ import annotations

import os
from typing import Any

import click

from vlc_harness.cli.cache import cache_group
from vlc_harness.cli.listing import instances_command, list_command
from vlc_harness.cli.options import (
    UPGRADE_COMMAND,
    App,
    data_root_option,
    pass_app,
    registry_option,
    store_option,
    store_registry_option,
)
from vlc_harness.cli.plugin_packages import plugins_group
from vlc_harness.cli.run import run_command
from vlc_harness.cli.store import store_group
from vlc_harness.console import run_console
from vlc_harness.errors import DEBUG_ENV, HarnessError, show_traceback

__all__ = [
    "UPGRADE_COMMAND",
    "App",
    "build_cli",
    "cli",
    "data_root_option",
    "main",
    "pass_app",
    "registry_option",
    "store_option",
    "store_registry_option",
]


class _Group(click.Group):
    """The ``vlc-harness`` group: under ``--debug``, a harness error's traceback is printed before
    :func:`main` words the error in one line."""

    def invoke(self, ctx: click.Context) -> Any:
        """Run the command; print a harness error's traceback when ``--debug`` was given."""
        try:
            return super().invoke(ctx)
        except HarnessError as exc:
            if ctx.params.get("debug"):
                show_traceback(exc)
            raise


@click.group(cls=_Group)
@click.version_option(package_name="vlc-harness")
@click.option(
    "--debug",
    is_flag=True,
    envvar=DEBUG_ENV,
    help="Show the traceback of errors that are otherwise one line (a malformed input file, a user error), "
    "here and in the model workers.",
)
@click.pass_context
def cli(ctx: click.Context, debug: bool) -> None:
    """vlc-harness: vision-language compositionality, in both directions, next to humans and chance."""
    if debug:  # the workers and the core read it from the environment (vlc_harness.errors.debugging)
        previous = os.environ.get(DEBUG_ENV)
        os.environ[DEBUG_ENV] = "1"
        ctx.call_on_close(lambda: _restore(previous))


def _restore(previous: str | None) -> None:
    if previous is None:
        os.environ.pop(DEBUG_ENV, None)
    else:
        os.environ[DEBUG_ENV] = previous


for _command in (run_command, list_command, instances_command, cache_group, store_group, plugins_group):
    cli.add_command(_command)


def build_cli() -> click.Group:
    """The click group with every plugin's commands added (``register_commands``: the core's
    ``data`` and ``verify``, the leaderboard's ``show`` and ``render``, third parties')."""
    from vlc_harness.plugins import get_plugins

    get_plugins().pm.hook.register_commands(cli=cli)
    return cli


def main(argv: list[str] | None = None) -> None:
    """Console entry point: build the CLI, run it, turn user errors into one clear line (with ``--debug``,
    after their traceback): :func:`vlc_harness.console.run_console`."""
    run_console(build_cli, argv, "vlc-harness")
