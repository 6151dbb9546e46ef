"""The core's own commands plugin: adds ``vlc-harness data``, ``verify``, ``schema``, ``new`` and ``dev`` through
the ``register_commands`` hook, exactly as the leaderboard adds ``show`` and ``render`` (``plan`` and
``ci`` register themselves the same way: :mod:`vlc_harness.planview.hooks`, :mod:`vlc_harness.ci.hooks`)."""

from __future__ import annotations

from typing import Any

from vlc_harness.hookspecs import hookimpl


@hookimpl
def register_commands(cli: Any) -> None:
    """Add the ``data`` group (fetch, verify), ``verify``, the ``schema`` group, ``new`` and the ``dev`` group."""
    from vlc_harness.cli.data import data_group
    from vlc_harness.cli.dev import dev_group
    from vlc_harness.cli.new import new_command
    from vlc_harness.cli.schema import schema_group
    from vlc_harness.cli.verify import verify_command

    for command in (data_group, verify_command, schema_group, new_command, dev_group):
        if command.name not in cli.commands:
            cli.add_command(command)
