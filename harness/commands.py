"""The core's own plugin: adds ``vlc-harness data``, ``verify`` and ``schema`` through the
``register_commands`` hook, exactly as the leaderboard adds ``show`` and ``render``."""

from __future__ import annotations

from typing import Any

from vlc_harness.hookspecs import hookimpl


@hookimpl
def register_commands(cli: Any) -> None:
    """Add the ``data`` group (fetch, verify), the ``verify`` command and the ``schema`` group."""
    from vlc_harness.cli_data import data
    from vlc_harness.cli_schema import schema
    from vlc_harness.cli_verify import verify

    for command in (data, verify, schema):
        if command.name not in cli.commands:
            cli.add_command(command)
