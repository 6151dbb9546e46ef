"""``vlc-harness schema registry``: print the registry's JSON Schema for editors and CI."""

from __future__ import annotations

from pathlib import Path

import click

from vlc_harness.cli.options import App, pass_app


@click.group("schema")
def schema_group() -> None:
    """JSON Schemas of the harness's file formats."""


@schema_group.command("registry")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), default=None, help="Write here.")
@pass_app
def schema_registry(app: App, output: Path | None) -> None:
    """The JSON Schema of registry.yaml for the installed plugins' types (stdout, or --output).

    Point an editor at it with a first line `# yaml-language-server: $schema=registry.schema.json`.
    """
    from vlc_harness.registry_schema import schema_json

    text = schema_json(app.plugins)
    if output is None:
        click.echo(text, nl=False)
    else:
        output.write_text(text, encoding="utf-8")
        click.echo(f"wrote {output}", err=True)
