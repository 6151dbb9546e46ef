"""How a console program of the harness ends: :func:`run_console` runs a click command and turns what it
raises into one line and an exit status (:class:`~vlc_harness.exit_codes.ExitCode`). ``vlc-harness`` and
the board's plugin-free programs (``python -m vlc_leaderboard.render_bundle``) end alike; this module
imports nothing of the command line, so such a program stays light."""

from __future__ import annotations

import sys
from collections.abc import Callable

import click

from vlc_harness.errors import HarnessError, PluginError, UserError
from vlc_harness.exit_codes import ExitCode


def run_console(command: Callable[[], click.Command], argv: list[str] | None, prog_name: str) -> None:
    """Build the command (``command()``: building may fail too, e.g. a plugin that does not load), run it
    on ``argv`` and exit with its status: a user error or a plugin error is one line (and a hint) with
    status 2, another harness error one line with status 1, an interrupt 130."""
    try:
        code = command().main(args=argv, prog_name=prog_name, standalone_mode=False)
        if isinstance(code, int) and code:
            sys.exit(code)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except click.exceptions.Abort:
        click.echo("Aborted.", err=True)
        sys.exit(ExitCode.INTERRUPTED)
    except UserError as exc:
        click.echo(f"Error: {exc.message}", err=True)
        if exc.hint:
            click.echo(f"Hint: {exc.hint}", err=True)
        sys.exit(ExitCode.USAGE)
    except PluginError as exc:
        click.echo(f"Plugin error: {exc}", err=True)
        sys.exit(ExitCode.USAGE)
    except HarnessError as exc:
        click.echo(f"Error: {exc}", err=True)
        sys.exit(ExitCode.FAILED)


__all__ = ["run_console"]
