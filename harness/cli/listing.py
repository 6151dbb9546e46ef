"""``vlc-harness list``, ``instances`` and ``plugins``: what the registry, a benchmark and the
loaded plugins hold, as tables or JSON."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from vlc_harness.cli.options import App, data_root_option, pass_app, store_option, store_registry_option
from vlc_harness.errors import InputError, UserError


@click.command("list")
@click.argument("what", type=click.Choice(["models", "benchmarks"]))
@click.option("--format", "fmt", type=click.Choice(["table", "json"]), default="table")
@store_registry_option
@store_option
@data_root_option
@pass_app
def list_command(
    app: App, what: str, fmt: str, registries: tuple[str, ...], store_url: str | None, data_root: Path
) -> None:
    """List the registry's models or benchmarks (with versions and citations); without
    --registry, the registry the store was filled from."""
    registry = app.registry(registries, store_url)
    rows: list[dict[str, Any]] = []
    if what == "models":
        for m in registry.models.values():
            rows.append({"id": m.id, "type": m.type, "params": m.params_dict(), "meta": m.meta})
        if not rows:
            rows = [{"id": "", "type": t, "params": {}, "meta": {}} for t in app.plugins.models.names()]
    else:
        from vlc_harness.run.select import select_benchmarks

        entries = list(registry.benchmarks.values()) or select_benchmarks(
            registry, app.plugins, app.plugins.benchmarks.names()
        )
        for e in entries:
            if e.unavailable:  # its type's listed package is not installed
                rows.append({"id": e.id, "type": e.type, "version": "unavailable", "headline": None,
                             "citation": e.unavailable})  # fmt: skip
                continue
            cls = app.plugins.benchmarks.get(e.type).cls
            bench = cls(e.params, data_root)
            rows.append(
                {
                    "id": e.id,
                    "type": e.type,
                    "version": bench.data_version if e.params_dict().get("version") != "custom" else "custom",
                    "headline": cls.headline,
                    "citation": cls.citation,
                }
            )
    if fmt == "json":
        click.echo(json.dumps(rows, indent=2))
        return
    for row in rows:
        if what == "models":
            label = row["id"] or "(type only)"
            click.echo(f"{label:<32} {row['type']:<14} {json.dumps(row['params'], sort_keys=True)}")
        else:
            click.echo(f"{row['id']:<20} {row['type']:<14} {row['version']:<16} {row['citation']}")


@click.command("instances")
@click.option("-b", "--benchmark", "benchmark", required=True, help="Registry id or benchmark type.")
@click.option("--format", "fmt", type=click.Choice(["jsonl"]), default="jsonl")
@click.option("--limit", type=click.IntRange(min=1), default=None, help="First N instances per category.")
@store_registry_option
@store_option
@data_root_option
@pass_app
def instances_command(
    app: App,
    benchmark: str,
    fmt: str,
    limit: int | None,
    registries: tuple[str, ...],
    store_url: str | None,
    data_root: Path,
) -> None:
    """Print a benchmark's instances: id, category, data version, images, texts, gold."""
    from vlc_harness.run.prepare import prepare
    from vlc_harness.run.select import select_benchmarks

    registry = app.registry(registries, store_url)
    (entry,) = select_benchmarks(registry, app.plugins, [benchmark])
    prepared = prepare(entry, app.plugins.benchmarks, data_root, limit)
    if isinstance(prepared.raised, InputError):  # a malformed file: its sentence, exit 1 (--debug: where)
        raise prepared.raised
    if not prepared.ready:
        raise UserError(prepared.unavailable or prepared.load_error or "benchmark could not be loaded")
    prepared.resolve_images()
    for inst in prepared.instances:
        record = {
            "id": inst.id,
            "category": inst.category,
            "data_version": prepared.data_version,
            "images": [
                {"path": str(src.path), "sha256": prepared.image_sha(src.path), "transform": src.transform_spec()}
                for src in inst.images
            ],
            "texts": list(inst.texts),
            "gold": dict(inst.gold),
        }
        click.echo(json.dumps(record, ensure_ascii=False))


@click.command("plugins")
@click.option("--format", "fmt", type=click.Choice(["table", "json"]), default="table")
@pass_app
def plugins_command(app: App, fmt: str) -> None:
    """Show each loaded plugin: its version and the model, benchmark and metric family types (or
    commands) it adds."""
    infos = app.plugins.info()
    if fmt == "json":
        click.echo(json.dumps([info.__dict__ for info in infos], indent=2))
        return
    for info in infos:
        click.echo(f"{info.name:<48} {info.version or '-':<8} {info.summary()}")
