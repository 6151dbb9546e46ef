"""Every ``--help`` reads as plain text: click prints a command's docstring as it is, so Sphinx markup
(a double-backtick literal) in it would reach the terminal. Commands write options plainly
(--registry) and code in single backticks (`vlc-harness store upgrade`)."""

from __future__ import annotations

from collections.abc import Iterator

import click
import pytest
from click.testing import CliRunner

from vlc_harness.cli import build_cli


def commands(group: click.Group, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], click.Command]]:
    """Every command and subcommand under ``group``, with the words that invoke it."""
    for name, command in sorted(group.commands.items()):
        yield (*path, name), command
        if isinstance(command, click.Group):
            yield from commands(command, (*path, name))


def literals_in_help(cli: click.Group) -> dict[str, list[str]]:
    """``command -> its help lines holding a double backtick``, for the group and every command."""
    found = {}
    for path in [(), *(p for p, _ in commands(cli))]:
        out = CliRunner().invoke(cli, [*path, "--help"])
        assert out.exit_code == 0, (path, out.output)
        lines = [line.strip() for line in out.output.splitlines() if "``" in line]
        if lines:
            found[" ".join(("vlc-harness", *path))] = lines
    return found


def test_no_help_prints_a_double_backtick() -> None:
    cli = build_cli()
    assert len(list(commands(cli))) >= 20  # run, list, data fetch, show, render, plan, ci nightly...
    found = literals_in_help(cli)
    assert not found, found


def test_a_double_backtick_in_a_docstring_or_an_option_help_is_found(monkeypatch: pytest.MonkeyPatch) -> None:
    cli = build_cli()
    store = cli.commands["store"]
    upgrade = store.commands["upgrade"]  # type: ignore[attr-defined]
    monkeypatch.setattr(upgrade, "help", "Rebuild stale cells (``--dry-run``: list them).")
    found = literals_in_help(cli)
    assert found["vlc-harness store upgrade"] == ["Rebuild stale cells (``--dry-run``: list them)."]
    assert "``--dry-run``" in " ".join(found["vlc-harness store"])  # the group lists its short help
    monkeypatch.setattr(upgrade, "help", "Rebuild stale cells.")
    option = next(p for p in upgrade.params if p.name == "dry_run")
    monkeypatch.setattr(option, "help", "Only list them (``--dry-run``).")
    assert list(literals_in_help(cli)) == ["vlc-harness store upgrade"]
