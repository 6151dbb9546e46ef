"""A command: `vlc-harness caption-stats TEXT...` prints each caption's length in characters and words."""

import click

from vlc_harness import hookimpl


@hookimpl
def register_commands(cli):
    @cli.command(name="caption-stats")
    @click.argument("texts", nargs=-1, required=True)
    def caption_stats(texts):
        """Characters and words of each caption, tab-separated."""
        for text in texts:
            click.echo(f"{len(text)}\t{len(text.split())}\t{text}")
