"""The ``ci`` group's registration: one of the core's own plugins (:data:`vlc_harness.plugins.CORE_PLUGINS`),
so that the command line (:mod:`vlc_harness.cli`) never imports the CI package."""

from __future__ import annotations

from typing import Any

from vlc_harness.hookspecs import hookimpl


@hookimpl
def register_commands(cli: Any) -> None:
    """Add the ``ci`` group (pr-check, nightly)."""
    from vlc_harness.ci import ci_group

    if ci_group.name not in cli.commands:
        cli.add_command(ci_group)
