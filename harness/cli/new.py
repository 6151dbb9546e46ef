"""``vlc-harness new model|benchmark NAME``: scaffold a plugin package (:mod:`vlc_harness.scaffold`)."""

from __future__ import annotations

from pathlib import Path

import click

from vlc_harness.scaffold import MODEL_PROTOCOLS, Names, new_plugin


@click.command("new")
@click.argument("kind", type=click.Choice(["model", "benchmark"]))
@click.argument("name")
@click.option(
    "--protocol",
    type=click.Choice(sorted(MODEL_PROTOCOLS)),
    default="embed",
    show_default=True,
    help="Models: embed (two towers), pairs (joint score), blind (captions only), choice (picks one).",
)
@click.option("--summary", default=None, help="One sentence for the docstring, README and registry entry.")
@click.option(
    "-o", "--output", type=click.Path(file_okay=False, path_type=Path), default=None, help="Default: ./vlc-NAME"
)
def new_command(kind: str, name: str, protocol: str, summary: str | None, output: Path | None) -> None:
    """Write a pip-installable plugin package that passes conformance as generated.

    \b
    vlc-harness new model my-clip --protocol embed
    cd vlc-my-clip && pip install -e '.[test]' && pytest
    """
    folder = output or Path(Names.of(name).dist)
    written = new_plugin(kind, name, protocol, folder, summary)
    for path in written:
        click.echo(f"wrote {path}")
    click.echo(f"next: cd {folder} && pip install -e '.[test]' && pytest   (then see its README.md)")
