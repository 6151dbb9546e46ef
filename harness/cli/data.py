"""``vlc-harness data fetch`` and ``data verify``: get benchmark data and check what is present."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from vlc_harness.cli.options import App, data_root_option, pass_app, store_option, store_registry_option
from vlc_harness.errors import InputError, Unavailable, show_traceback
from vlc_harness.exit_codes import ExitCode


@click.group("data")
def data_group() -> None:
    """Download benchmark data into the data root, or check what is there."""


def _benchmarks(app: App, registries: tuple[str, ...], store_url: str | None, ids: tuple[str, ...]) -> list:
    """The benchmarks ``ids`` (default: all) of the registry given, else of the one the store was
    filled from, else of ./registry.yaml, else every built-in type."""
    from vlc_harness.run.select import select_benchmarks

    registry = app.registry(registries, store_url)
    if ids:
        return select_benchmarks(registry, app.plugins, list(ids))
    return list(registry.benchmarks.values()) or select_benchmarks(
        registry, app.plugins, app.plugins.benchmarks.names()
    )


@data_group.command("fetch")
@click.option("-b", "--benchmark", "ids", multiple=True, help="Registry id or benchmark type (default: all).")
@click.option("--images", is_flag=True, help="Also download image archives (COCO val2017 is about 780 MB).")
@click.option("--progress/--no-progress", default=True)
@store_registry_option
@store_option
@data_root_option
@pass_app
def fetch(
    app: App,
    ids: tuple[str, ...],
    images: bool,
    progress: bool,
    registries: tuple[str, ...],
    store_url: str | None,
    data_root: Path,
) -> None:
    """Download each benchmark's pinned files (checked by sha256) into the data root; a benchmark whose
    type's listed plugin package is not installed is skipped, saying why."""
    from vlc_harness.datafetch import FetchError

    failed = 0
    for entry in _benchmarks(app, registries, store_url, ids):
        if entry.unavailable:  # its type's listed package is not installed: its cells say so, not a failure
            click.echo(f"{entry.id}: skipped: {entry.unavailable}")
            continue
        bench = app.plugins.benchmarks.get(entry.type).cls(entry.params, data_root)
        try:
            lines = bench.fetch(images=images, progress=progress)
        except (FetchError, Unavailable, InputError) as exc:  # each benchmark fails alone
            show_traceback(exc)
            failed += 1
            click.echo(f"{entry.id}: failed: {exc}")
            continue
        for line in lines or ["nothing to download for this data version"]:
            click.echo(f"{entry.id}: {line}")
    if failed:
        sys.exit(ExitCode.FAILED)


@data_group.command("verify")
@click.option("-b", "--benchmark", "ids", multiple=True, help="Registry id or benchmark type (default: all).")
@store_registry_option
@store_option
@data_root_option
@pass_app
def verify(app: App, ids: tuple[str, ...], registries: tuple[str, ...], store_url: str | None, data_root: Path) -> None:
    """Check annotations against their pinned sha256 and count the images present."""
    from vlc_harness.run.prepare import prepare

    problems = 0
    for entry in _benchmarks(app, registries, store_url, ids):
        prepared = prepare(entry, app.plugins.benchmarks, data_root, None)
        if not prepared.ready:
            problems += 1
            click.echo(f"{entry.id}: {prepared.unavailable or prepared.load_error}")
            continue
        paths = {src.path for inst in prepared.instances for src in inst.images}
        present = sum(1 for p in paths if p.is_file())
        line = f"{entry.id}: {prepared.data_version}, {len(prepared.instances)} instances, annotations ok"
        if paths:
            line += f", images {present}/{len(paths)} present"
            if present < len(paths):
                problems += 1
                assert prepared.benchmark is not None
                line += f" ({prepared.benchmark.image_hint()})"
        click.echo(line)
    if problems:
        sys.exit(ExitCode.FAILED)
