"""The core's own plugin: adds ``vlc-harness data``, ``verify``, ``schema``, ``new``, ``plan`` and ``ci``
through the ``register_commands`` hook, exactly as the leaderboard adds ``show`` and ``render``."""

from __future__ import annotations

from typing import Any

from vlc_harness.hookspecs import hookimpl


@hookimpl
def register_commands(cli: Any) -> None:
    """Add the ``data`` group (fetch, verify), ``verify``, the ``schema`` group, ``new``, ``plan`` and the
    ``ci`` group (pr-check, nightly)."""
    from vlc_harness.ci import ci_group
    from vlc_harness.cli.data import data_group
    from vlc_harness.cli.new import new_command
    from vlc_harness.cli.schema import schema_group
    from vlc_harness.cli.verify import verify_command
    from vlc_harness.planview.command import plan_command

    for command in (data_group, verify_command, schema_group, new_command, plan_command, ci_group):
        if command.name not in cli.commands:
            cli.add_command(command)
