"""The core's own plugin: adds ``vlc-harness data``, ``verify``, ``schema``, ``new`` and ``plan`` through the
``register_commands`` hook, exactly as the leaderboard adds ``show`` and ``render``."""

from __future__ import annotations

from typing import Any

from vlc_harness.hookspecs import hookimpl


@hookimpl
def register_commands(cli: Any) -> None:
    """Add the ``data`` group (fetch, verify), ``verify``, the ``schema`` group, ``new`` and ``plan``."""
    from vlc_harness.cli_data import data
    from vlc_harness.cli_new import new
    from vlc_harness.cli_plan import plan
    from vlc_harness.cli_schema import schema
    from vlc_harness.cli_verify import verify

    for command in (data, verify, schema, new, plan):
        if command.name not in cli.commands:
            cli.add_command(command)
