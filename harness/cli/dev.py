"""``vlc-harness dev generate [--check]``: the repository's generated files, written or checked
(:mod:`vlc_harness.generated`)."""

from __future__ import annotations

from pathlib import Path

import click


@click.group("dev")
def dev_group() -> None:
    """Maintaining the vlc-harness repository itself."""


@dev_group.command("generate")
@click.option("--check", is_flag=True, help="Write nothing; exit 1 naming each generated file that is stale.")
@click.option(
    "--root",
    type=click.Path(file_okay=False, exists=True, path_type=Path),
    default=Path("."),
    show_default=True,
    help="The vlc-harness checkout.",
)
def generate_command(check: bool, root: Path) -> None:
    """Rewrite every generated file of the checkout from its code and registry.yaml (registry.schema.json,
    docs/models.md's table), from the built-in plugins alone.

    Run it after changing a type's params or a registry entry, and commit what it writes; CI runs it with
    --check.
    """
    from vlc_harness.generated import COMMAND, FILES, generate

    try:
        stale = generate(root, check=check)
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None
    for item in stale:
        if check:
            click.echo(f"{item.path} is stale ({item.what}): run {COMMAND}", err=True)
        else:
            click.echo(f"wrote {item.path}")
    if check and stale:
        raise SystemExit(1)
    if not stale:
        click.echo(f"the {len(FILES)} generated files are current")
