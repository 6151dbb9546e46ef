"""``vlc-harness cache``: what the score store holds (``stats``) and forgetting a model (``forget``)."""

from __future__ import annotations

from collections import Counter
from typing import Any

import click

from vlc_harness.cli.options import UPGRADE_COMMAND, App, pass_app, registry_option, store_option


@click.group("cache")
def cache_group() -> None:
    """Inspect or prune the score store."""


@cache_group.command("stats")
@store_option
@pass_app
def cache_stats(app: App, store_url: str | None) -> None:
    """Row counts per table, scores per model fingerprint, and the cells whose metrics are stale."""
    store = app.store(store_url)
    stats = store.stats()
    click.echo(f"store: {store.engine.url.render_as_string(hide_password=True)}")
    click.echo(f"schema version: {stats['schema'].get('schema_version')}")
    for table, n in stats["tables"].items():
        click.echo(f"{table:<10} {n}")
    for m in stats["models"]:
        click.echo(f"  model {m['fingerprint']} {m['type']:<14} {m['scores']} scores")
    stale = app.stale_cells(store)
    click.echo(f"stale cells: {len(stale)}" + (f" (`{UPGRADE_COMMAND}` rebuilds them)" if stale else ""))


@cache_group.command("forget")
@click.option("-m", "--model", "model", required=True, help="Registry id or inline spec, as given to run.")
@click.option("--scores", is_flag=True, help="Also its stored scores and answers (every cell built on them goes too).")
@click.option("--yes", "-y", is_flag=True, help="Remove without asking.")
@registry_option
@store_option
@pass_app
def cache_forget(
    app: App, model: str, scores: bool, yes: bool, registries: tuple[str, ...], store_url: str | None
) -> None:
    """Remove a model's cells, so the next run builds them again from its stored scores.

    With --scores its scores and answers go too (a model fingerprint's rows, for the fingerprints
    of its cells and the one its entry has now), so the next run computes them again; the cells
    of other model ids built on the same scores are removed with them.
    """
    store = app.store(store_url)
    fingerprints: set[str] = set()
    if scores:
        fingerprints = {c.fingerprint for c in store.model_cells(model)}
        current = current_fingerprint(app, registries, model, store)
        if current is not None:
            fingerprints.add(current)
    cells = store.model_cells(model, fingerprints)
    planned = store.forget([c.id for c in cells if c.id is not None], fingerprints, dry_run=True)
    if not any(planned.values()):
        click.echo(f"nothing stored for model {model!r}")
        return
    click.echo(describe(model, cells, fingerprints, planned))
    if not yes:
        click.confirm("Remove them?", abort=True)
    done = store.forget([c.id for c in cells if c.id is not None], fingerprints)
    click.echo("removed " + _counts(done))


def current_fingerprint(app: App, registries: tuple[str, ...], model: str, store: Any) -> str | None:
    """The fingerprint ``model`` (a registry id or inline spec) has now, or ``None`` when it
    cannot be resolved here (not in the registry, weights not at hand)."""
    from vlc_harness.fingerprint import fingerprint_content, model_fingerprint
    from vlc_harness.run.select import select_models
    from vlc_harness.stack import StackSource, model_stack

    try:
        registry = app.store_registry(registries, store)[0]
        (entry,) = select_models(registry, app.plugins, [model])
        cls = app.plugins.models.get(entry.type).cls
        identity = cls(entry.params, entry.run).identify()
    except Exception:  # a stored model that cannot be resolved is forgotten by its cells' fingerprints
        return None
    stack = model_stack(cls, StackSource.installed(registry.packages))  # as a run here would fingerprint it
    content = fingerprint_content(entry.type, entry.params_dict(), identity, cls.scoring_version, stack)
    return model_fingerprint(content)


def describe(model: str, cells: list[Any], fingerprints: set[str], counts: dict[str, int]) -> str:
    """What ``forget`` is about to remove, one line per kind."""
    own = [c for c in cells if c.model_id == model]
    lines = [f"model {model}: {len(own)} cells ({', '.join(sorted({c.benchmark_id for c in own})) or 'none'})"]
    others = Counter(c.model_id for c in cells if c.model_id != model)
    if others:
        lines.append(
            "cells of other model ids on the same scores: " + ", ".join(f"{m} ({n})" for m, n in others.items())
        )
    if fingerprints:
        lines.append(f"scores of fingerprint(s) {', '.join(sorted(f[:12] for f in fingerprints))}")
    lines.append("to remove: " + _counts(counts))
    return "\n".join(lines)


def _counts(counts: dict[str, int]) -> str:
    return ", ".join(f"{n} {table}" for table, n in counts.items() if n) or "nothing"
