"""The ``plan`` command's registration: one of the core's own plugins (:data:`vlc_harness.plugins.CORE_PLUGINS`),
so that the command line (:mod:`vlc_harness.cli`) never imports the plan package."""

from __future__ import annotations

from typing import Any

from vlc_harness.hookspecs import hookimpl


@hookimpl
def register_commands(cli: Any) -> None:
    """Add ``plan``."""
    from vlc_harness.planview.command import plan_command

    if plan_command.name not in cli.commands:
        cli.add_command(plan_command)
