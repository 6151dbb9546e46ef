"""``vlc-harness show``: every metric of the latest complete cells, as a table, JSON or CSV."""

from __future__ import annotations

import csv
import json
import sys
from typing import Any

import click

from vlc_harness import hookimpl
from vlc_harness.cli import App, pass_app, store_option, store_registry_option
from vlc_harness.wording import plural
from vlc_leaderboard.tables import COLUMNS, chance_rows, metric_rows, reference_rows, select_cells


@click.command()
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["table", "json", "csv", "board"]),
    default="table",
    help="board: the site's main table (one row per model, headline metrics, gaps).",
)
@click.option("--partial", is_flag=True, help="Also show partial, failed and unavailable cells.")
@click.option("-m", "--model", "models", multiple=True, help="Only these model ids.")
@click.option("-b", "--benchmark", "benchmarks", multiple=True, help="Only these benchmark ids.")
@click.option("--references", is_flag=True, help="Also print the papers' reported numbers (as the registry selects).")
@store_option
@store_registry_option
@pass_app
def show(
    app: App,
    fmt: str,
    partial: bool,
    models: tuple[str, ...],
    benchmarks: tuple[str, ...],
    references: bool,
    store_url: str | None,
    registries: tuple[str, ...],
) -> None:
    """Print every metric, overall and per category, with n, tie count and status."""
    if fmt == "board":
        _print_board(app, store_url, registries)
        return
    from vlc_harness.results import StoredResults

    store = app.store(store_url)
    app.note_stale(store)
    cells = select_cells(StoredResults(store), include_partial=partial, models=models, benchmarks=benchmarks)
    rows = metric_rows(cells) + chance_rows(cells, app.plugins.benchmarks)
    if references:
        registry, _ = app.store_registry(registries, store)
        selection = {b.id: b.references for b in registry.benchmarks.values()}
        rows += reference_rows(cells, app.plugins.benchmarks, selection)
    if fmt == "json":
        payload = [
            {
                "model": c.model_id,
                "benchmark": c.benchmark_id,
                "status": c.status,
                "complete": c.complete,
                "data_version": c.data_version,
                "fingerprint": c.fingerprint,
                "n_instances": c.n_instances,
                "n_failed": c.n_failed,
                "limit": c.instance_limit,
                "error": c.error,
                "reason_code": c.reason_code,
                "metrics": [{k: v for k, v in m.items() if k != "replicates"} for m in c.metrics],
                "created_at": c.created_at,
            }
            for c in cells
        ]
        extra = [r for r in rows if r["status"] == "reference"]
        click.echo(json.dumps({"cells": payload, "reference": extra}, indent=2))
    elif fmt == "csv":
        writer = csv.DictWriter(sys.stdout, fieldnames=list(COLUMNS), extrasaction="ignore", lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    else:
        _print_table(rows)
    if not cells:
        click.echo("no complete cells yet" + ("" if partial else " (use --partial to see the others)"), err=True)


def _print_table(rows: list[dict[str, Any]]) -> None:
    headers = ["model", "benchmark", "metric", "category", "value", "n", "ties", "status"]
    table = [
        [
            str(r["model"]),
            str(r["benchmark"]),
            str(r["metric"]),
            str(r["category"]),
            "" if r["value"] is None else f"{r['value']:.4f}",
            "" if r["n"] is None else str(r["n"]),
            "" if r["ties"] is None else str(r["ties"]),
            r["status"] + (f": {r['error']}" if r.get("error") else ""),
        ]
        for r in rows
    ]
    widths = [max([len(h)] + [len(row[i]) for row in table]) for i, h in enumerate(headers)]
    click.echo("  ".join(h.ljust(w) for h, w in zip(headers, widths)))
    click.echo("  ".join("-" * w for w in widths))
    for row in table:
        click.echo("  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip())


def _print_board(app: App, store_url: str | None, registries: tuple[str, ...]) -> None:
    """The same main table as the site's index, in its order: Human and Chance rows, then one row per model.

    Without ``--registry``, the registry the store was filled from. A store that holds no cells of
    the registry read is said in one line on stderr, naming the registry it was filled from; then a
    registry given prints no board, and ./registry.yaml taken by default gives way to every stored
    cell (as with no registry)."""
    from vlc_harness.cli.defaults import GIVEN, other_registry_note
    from vlc_harness.registry import Registry
    from vlc_harness.results import StoredResults
    from vlc_leaderboard.board import build_board
    from vlc_leaderboard.site import pct

    store = app.store(store_url)
    try:
        registry, choice = app.store_registry(registries, store)
        other = other_registry_note(choice, registry, store)
        if other and choice.source == GIVEN:
            click.echo(f"note: {other}", err=True)
            return
        if other:
            click.echo(f"note: {other}; showing every stored cell", err=True)
            registry = Registry()
        app.note_stale(store, "shown as stored, without ranks where their resamples differ")
        board = build_board(StoredResults(store).cells(with_replicates=True), registry, app.plugins)
    finally:
        store.close()
    headers = ["model", "mean rank"]
    for col in board.benchmarks:
        headers += [f"{col.id}:{mc.metric}" for mc in col.metrics] + ([f"{col.id}:gap"] if col.gap else [])
    table = [
        ["Human", ""]
        + [x for col in board.benchmarks for x in [pct(m.human) for m in col.metrics] + _gap(col, col.human_gap)],
        ["Chance", ""]
        + [x for col in board.benchmarks for x in [pct(m.chance) for m in col.metrics] + _gap(col, None)],
    ]
    for row in board.rows:
        tag = "" if row.kind == "model" else f" ({row.kind})"
        tag += " (submitted, not reproduced)" if row.meta.get("submitted") else ""
        line = [row.name + tag, _overall(row)]
        for col in board.benchmarks:
            cv = row.cells[col.id]
            for k, mc in enumerate(col.metrics):
                v = cv.values.get(mc.metric) if cv.published else None
                line.append(value_text(v, mc) if v else (cv.status if k == 0 else ""))
            line += _gap(col, cv.gap(col.gap))
        table.append(line)
    widths = [max(len(h), *(len(r[i]) for r in table)) for i, h in enumerate(headers)]
    click.echo("  ".join(h.ljust(w) for h, w in zip(headers, widths)))
    for r in table:
        click.echo("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())


def value_text(v: Any, mc: Any) -> str:
    """A value as the site's index cell shows it: the ties-broken value first where ties dominate (with the
    strict value and the tie share), its rank, and "not above chance" where its interval includes chance."""
    from vlc_leaderboard.site import pct

    text = f"{pct(v.shown)}{f' #{v.rank}' if v.rank else ''}"
    if v.ties_broken_first and v.ties:
        text += f" (ties broken at random; strict {pct(v.value)}, {round(100 * v.tie_share)}% ties)"
    ci = v.shown_ci95
    if mc.chance is not None and ci and (ci[0] <= mc.chance if mc.higher_is_better else ci[1] >= mc.chance):
        text += " not above chance"
    return text


def _overall(row: Any) -> str:
    """The overall column as the index shows it: the mean rank, or how many benchmarks rank the model."""
    o = row.overall
    if o is None:
        return "not ranked"
    if o.by_mean and o.mean_rank is not None:
        return f"{o.mean_rank:.1f}" if o.complete else f"{o.mean_rank:.1f} ({o.k} of {o.of})"
    return f"{o.k} of {plural(o.of, 'benchmark')}"


def _gap(col: Any, gap: float | None) -> list[str]:
    if not col.gap:
        return []
    return ["" if gap is None else f"{100 * gap:+.1f}"]


@hookimpl
def register_commands(cli: click.Group) -> None:
    """Add ``show`` to the command line."""
    cli.add_command(show)
