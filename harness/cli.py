"""The ``vlc-harness`` command line (click).

Core verbs live here; plugins add more through the ``register_commands`` hook (the
leaderboard's ``show`` and ``render``). A :class:`~vlc_harness.errors.UserError` is printed as one
line plus a hint, with no traceback, and exits with status 2.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from vlc_harness.cli_cache import cache
from vlc_harness.cli_store import store_group
from vlc_harness.errors import HarnessError, PluginError, UserError
from vlc_harness.options import App, data_root_option, pass_app, registry_option, store_option


@click.group()
@click.version_option(package_name="vlc-harness")
def cli() -> None:
    """vlc-harness: vision-language compositionality, in both directions, next to humans and chance."""


@cli.command()
@click.option("--all", "run_all", is_flag=True, help="Run every model on every benchmark of the registry.")
@click.option("-m", "--model", "models", multiple=True, help="Registry id, or an inline spec TYPE:key=value,...")
@click.option("-b", "--benchmark", "benchmarks", multiple=True, help="Registry id or benchmark type.")
@click.option("--limit", type=click.IntRange(min=1), default=None, help="First N instances per category (partial).")
@click.option("--strict", is_flag=True, help="Also exit non-zero when a cell is unavailable.")
@click.option("--progress/--no-progress", default=True, help="Progress bars on stderr.")
@click.option(
    "--workers",
    type=click.IntRange(min=1),
    default=None,
    help="Worker processes (default: one per visible GPU, else one). On CPU they share the cores.",
)
@click.option(
    "--executor",
    type=click.Choice(["local", "ray"]),
    default="local",
    show_default=True,
    help="local: worker processes here; ray: Ray actors on a cluster (pip install 'vlc-harness[ray]').",
)
@click.option("--address", "ray_address", default=None, help="Ray cluster address (default: start a local Ray).")
@click.option(
    "--max-cost",
    type=click.FloatRange(min=0),
    default=None,
    metavar="USD",
    help="Stop API models before their requests could cost more than this in total "
    "(prices: run.price_in_per_mtok / run.price_out_per_mtok of each entry).",
)
@click.option(
    "--recompute-metrics",
    is_flag=True,
    help="Rebuild every cell from its stored scores instead of reusing a stored cell (computes no score "
    "that is stored).",
)
@registry_option
@store_option
@data_root_option
@pass_app
def run(
    app: App,
    run_all: bool,
    models: tuple[str, ...],
    benchmarks: tuple[str, ...],
    limit: int | None,
    strict: bool,
    progress: bool,
    workers: int | None,
    executor: str,
    ray_address: str | None,
    max_cost: float | None,
    recompute_metrics: bool,
    registries: tuple[str, ...],
    store_url: str | None,
    data_root: str | None,
) -> None:
    """Evaluate models on benchmarks; computed once, cached in the store.

    A stored cell is reused as it is when the model, the instances, the data version and the
    metric code are unchanged (the report says "stored"); a cell whose metric code changed is
    rebuilt from its stored scores; --recompute-metrics rebuilds it anyway. Cells this run does
    not touch are left as they are (`vlc-harness store upgrade` rebuilds stale ones).

    Inline model specs need no registry entry, e.g.
    -m 'open_clip:arch=ViT-B-32,pretrained=/ckpt/model.pt' or
    -m 'open_clip:{arch: "@tiny.json", pretrained: null}' ('@FILE' reads JSON/YAML).
    """
    from vlc_harness.paths import default_data_root
    from vlc_harness.run import execute
    from vlc_harness.run.select import select_grid

    registry = app.registry(registries, required=run_all)
    chosen_models, chosen_benchmarks = select_grid(registry, app.plugins, run_all, list(models), list(benchmarks))
    root = Path(data_root) if data_root else default_data_root()
    store = app.store(store_url)

    def report(cell: Any) -> None:
        line = f"{cell.status:<11} {cell.model_id} x {cell.benchmark_id}"
        headline = _headline(app, cell)
        if headline:
            line += f"  {headline}"
        coverage = _coverage(cell)
        if coverage:
            line += f"  {coverage}"
        if cell.error:
            line += f"  ({cell.error.splitlines()[0]})"
        if getattr(cell, "reused", False):
            line += "  [stored]"
        click.echo(line)

    result = execute(
        app.plugins,
        store,
        chosen_models,
        chosen_benchmarks,
        root,
        limit=limit,
        progress=progress,
        registry=registry,
        argv=sys.argv,
        on_cell=report,
        workers=workers,
        max_cost=max_cost,
        executor=executor,
        ray_address=ray_address,
        recompute_metrics=recompute_metrics,
    )
    counts: dict[str, int] = {}
    for cell in result.cells:
        counts[cell.status] = counts.get(cell.status, 0) + 1
    click.echo("cells: " + ", ".join(f"{n} {s}" for s, n in sorted(counts.items())))
    for model_id, usage in result.usage.items():
        click.echo(_usage_line(model_id, usage))
    code = result.exit_code(strict)
    if code:
        sys.exit(code)


def _coverage(cell: Any) -> str:
    """``coverage=answered/asked`` of a cell whose model may abstain (API models), else ''."""
    for m in cell.metrics:
        if m.get("metric") == "coverage" and m.get("category") == "all":
            return f"coverage={m['value']:.4f}"
    return ""


def _usage_line(model_id: str, usage: dict[str, Any]) -> str:
    cost = usage.get("cost_usd")
    if cost is None and not usage.get("requests"):
        cost = 0.0
    spent = f"${cost:.4f}" if cost is not None else "cost unknown (no prices in the entry's run section)"
    return (
        f"api usage {model_id}: {usage.get('requests', 0)} requests ({usage.get('retries', 0)} retries, "
        f"{usage.get('failed', 0)} failed), {usage.get('input_tokens', 0)} tokens in, "
        f"{usage.get('output_tokens', 0)} out, {spent}"
    )


def _headline(app: App, cell: Any) -> str:
    for m in cell.metrics:
        if m.get("headline"):
            return f"{m['metric']}={m['value']:.4f} (n={m['n']}, ties={m['ties']})"
    return ""


@cli.command("list")
@click.argument("what", type=click.Choice(["models", "benchmarks"]))
@click.option("--format", "fmt", type=click.Choice(["table", "json"]), default="table")
@registry_option
@data_root_option
@pass_app
def list_(app: App, what: str, fmt: str, registries: tuple[str, ...], data_root: str | None) -> None:
    """List the registry's models or benchmarks (with versions and citations)."""
    registry = app.registry(registries, required=False)
    rows: list[dict[str, Any]] = []
    if what == "models":
        for e in registry.models.values():
            rows.append({"id": e.id, "type": e.type, "params": e.params_dict(), "meta": e.meta})
        if not rows:
            rows = [{"id": "", "type": t, "params": {}, "meta": {}} for t in app.plugins.models.names()]
    else:
        from vlc_harness.paths import default_data_root
        from vlc_harness.run.select import select_benchmarks

        root = Path(data_root) if data_root else default_data_root()
        entries = list(registry.benchmarks.values()) or select_benchmarks(
            registry, app.plugins, app.plugins.benchmarks.names()
        )
        for e in entries:
            cls = app.plugins.benchmarks.get(e.type).cls
            bench = cls(e.params, root)
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


@cli.command()
@click.option("-b", "--benchmark", "benchmark", required=True, help="Registry id or benchmark type.")
@click.option("--format", "fmt", type=click.Choice(["jsonl"]), default="jsonl")
@click.option("--limit", type=click.IntRange(min=1), default=None, help="First N instances per category.")
@registry_option
@data_root_option
@pass_app
def instances(
    app: App, benchmark: str, fmt: str, limit: int | None, registries: tuple[str, ...], data_root: str | None
) -> None:
    """Print a benchmark's instances: id, category, data version, images, texts, gold."""
    from vlc_harness.paths import default_data_root
    from vlc_harness.run.prepare import prepare
    from vlc_harness.run.select import select_benchmarks

    registry = app.registry(registries, required=False)
    (entry,) = select_benchmarks(registry, app.plugins, [benchmark])
    root = Path(data_root) if data_root else default_data_root()
    prepared = prepare(entry, app.plugins.benchmarks, root, limit)
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


cli.add_command(cache)
cli.add_command(store_group)


@cli.command()
@click.option("--format", "fmt", type=click.Choice(["table", "json"]), default="table")
@pass_app
def plugins(app: App, fmt: str) -> None:
    """Show each loaded plugin: its version and the model and benchmark types (or commands) it adds."""
    infos = app.plugins.info()
    if fmt == "json":
        click.echo(json.dumps([info.__dict__ for info in infos], indent=2))
        return
    for info in infos:
        what = [f"models: {', '.join(info.models)}"] if info.models else []
        what += [f"benchmarks: {', '.join(info.benchmarks)}"] if info.benchmarks else []
        what += ["commands"] if "register_commands" in info.hooks else []
        shown = "; ".join(what) or ("(no types)" if info.hooks else "(helper module, no hooks)")
        click.echo(f"{info.name:<48} {info.version or '-':<8} {shown}")


def build_cli() -> click.Group:
    """The click group with every plugin's commands added (``register_commands``: the core's
    ``data`` and ``verify``, the leaderboard's ``show`` and ``render``, third parties')."""
    from vlc_harness.plugins import get_plugins

    get_plugins().pm.hook.register_commands(cli=cli)
    return cli


def main(argv: list[str] | None = None) -> None:
    """Console entry point: build the CLI, run it, turn user errors into one clear line."""
    try:
        group = build_cli()
        code = group.main(args=argv, prog_name="vlc-harness", standalone_mode=False)
        if isinstance(code, int) and code:
            sys.exit(code)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except click.exceptions.Abort:
        click.echo("Aborted.", err=True)
        sys.exit(130)
    except UserError as exc:
        click.echo(f"Error: {exc.message}", err=True)
        if exc.hint:
            click.echo(f"Hint: {exc.hint}", err=True)
        sys.exit(2)
    except PluginError as exc:
        click.echo(f"Plugin error: {exc}", err=True)
        sys.exit(2)
    except HarnessError as exc:
        click.echo(f"Error: {exc}", err=True)
        sys.exit(1)
