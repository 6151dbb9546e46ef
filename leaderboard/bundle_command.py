"""``vlc-harness board export --out BUNDLE``: everything ``render`` reads, as one board bundle file
(:mod:`vlc_leaderboard.bundle`), made from the store and the registry with the plugins loaded; and
``vlc-harness verify-site SITE [--against PUBLISHED]``, the deploy check (:mod:`vlc_leaderboard.verify_site`).

``vlc-harness render --bundle BUNDLE`` (or, with no plugin loaded, ``python -m vlc_leaderboard.render_bundle``)
renders a bundle: the same site as ``render`` from the same store and registry.
"""

from __future__ import annotations

from pathlib import Path

import click

from vlc_harness import hookimpl
from vlc_harness.cli import App, pass_app
from vlc_leaderboard.render import board_source_options


@click.group("board")
def board_group() -> None:
    """The board as data: export what render reads as one file (a board bundle)."""


@board_group.command("export")
@click.option(
    "--out", type=click.Path(dir_okay=False), required=True, help="The bundle file to write (a zip; replaced whole)."
)
@board_source_options
@pass_app
def export_command(
    app: App, out: str, include_adhoc: bool, store_url: str | None, registries: tuple[str, ...], data_root: Path
) -> None:
    """Write everything render reads as one board bundle: the registry's entries (--include-adhoc: also one-off
    runs), each cell's values, replicates and per-instance outcomes, the benchmarks' cards and metric
    declarations as data, the instance browser's data and thumbnails, the run provenance the pages show.

    `vlc-harness render --bundle FILE` renders it (docs/board.md, "The board bundle")."""
    from vlc_leaderboard.bundle import write_bundle
    from vlc_leaderboard.fanout import heap_frozen
    from vlc_leaderboard.render import store_export

    registry = app.registry(registries, store_url)
    store = app.store(store_url)
    try:
        export = store_export(app, registry, store, data_root, include_adhoc)
        with heap_frozen():  # every cell's records made beside the export's heap: out of the collector's passes
            path = write_bundle(export, Path(out))
    finally:
        store.close()
    doc = export.doc
    published = sum(bool(c["outcomes"]) for c in doc["cells"])
    click.echo(
        f"wrote {out}: {len(doc['rows'])} models, {len(doc['columns'])} benchmarks, {len(doc['cells'])} cells "
        f"({published} published), {len(doc['thumbnails'])} thumbnails; {path.stat().st_size} bytes"
    )
    for line in export.warnings:
        click.echo(line, err=True)
    for line in export.notes:
        click.echo(line)


@click.command("verify-site")
@click.argument("site", type=click.Path(file_okay=False, exists=True, path_type=Path))
@click.option(
    "--against",
    type=click.Path(exists=True, path_type=Path),
    default=None,
    help="The published site (its manifest.json and frozen releases), or its manifest.json alone.",
)
def verify_site_command(site: Path, against: Path | None) -> None:
    """The deploy check: refuse SITE (exit 9, naming each problem) unless every page carries exactly the
    board's Content-Security-Policy, nothing inline (no <script> without src, no <style>, no style
    attribute, no event handler), no script, style or image from another host, every script and style the
    board's own or page data, and, --against the published site, no published value lost or changed
    without a new fingerprint and no frozen release lost or changed (docs/maintainers.md)."""
    import sys

    from vlc_leaderboard.verify_site import report

    code = report(site, against)
    if code:
        sys.exit(code)


@hookimpl
def register_commands(cli: click.Group) -> None:
    """Add ``board export`` and ``verify-site``."""
    cli.add_command(board_group)
    cli.add_command(verify_site_command)
