"""``vlc-harness plan``: a dry run of ``run`` (which cells are complete, what the others need, the
estimated cost), and with ``--diff REF`` which cells another git revision's grid lacks or
fingerprints differently. Nothing is computed and the store is only read."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from vlc_harness.cli.options import App, data_root_option, pass_app, registry_option, store_option

MAX_REASON = 240


@click.command("plan")
@click.option("--all", "run_all", is_flag=True, help="Every model on every benchmark of the registry.")
@click.option("-m", "--model", "models", multiple=True, help="Registry id, or an inline spec TYPE:key=value,...")
@click.option("-b", "--benchmark", "benchmarks", multiple=True, help="Registry id or benchmark type.")
@click.option("--limit", type=click.IntRange(min=1), default=None, help="As run --limit: first N per category.")
@click.option(
    "--diff",
    "ref",
    default=None,
    metavar="REF",
    help="Also compare with the grid of git revision REF (a branch, tag or commit): added cells and cells "
    "whose fingerprint changed, each revision's plugins evaluating its own registry files.",
)
@click.option(
    "--identify-all",
    is_flag=True,
    help="Identify every model, even one none of whose cells can run here (slower: its library's imports and "
    "hub probes); --diff implies it.",
)
@click.option("--format", "fmt", type=click.Choice(["table", "json"]), default="table", show_default=True)
@registry_option
@store_option
@data_root_option
@pass_app
def plan_command(
    app: App,
    run_all: bool,
    models: tuple[str, ...],
    benchmarks: tuple[str, ...],
    limit: int | None,
    ref: str | None,
    identify_all: bool,
    fmt: str,
    registries: tuple[str, ...],
    store_url: str | None,
    data_root: Path,
) -> None:
    """Show what `run` would do with the same selection, computing nothing.

    Per cell: complete (stored, reused as it is) or compute, with the pairs, texts or questions
    it lacks; unknown where the model's identity cannot be had here (weights neither cached nor
    reachable: the work shown is an upper bound); unavailable, skipped or failed as a run would
    record it. API models with prices in their run section get an estimated cost; every model an
    estimate of its GPU time, measured or scaled from its parameter count, with the night's total.
    Benchmark data is checked first: a model none of whose cells can run is not identified. The
    store is opened read-only (a missing store file is not created). Exits 0.
    """
    from vlc_harness.cli.planview import plan_grid, plan_json, read_only_store
    from vlc_harness.config import RunConfig
    from vlc_harness.paths import default_store_url
    from vlc_harness.run.select import select_grid

    config = RunConfig(data_root=data_root, limit=limit)
    registry = app.registry(registries, required=run_all)
    chosen_models, chosen_benchmarks = select_grid(registry, app.plugins, run_all, list(models), list(benchmarks))
    store, note = read_only_store(store_url or default_store_url())
    try:
        everyone = identify_all or ref is not None  # a diff compares fingerprints
        result = plan_grid(app.plugins, store, chosen_models, chosen_benchmarks, config, everyone)
    finally:
        store.close()
    result.store_note = note
    out: dict[str, Any] = plan_json(result)
    if ref is not None:
        from vlc_harness.cli.planview_diff import base_grid, diff_grids

        specs = {"models": list(models), "benchmarks": list(benchmarks)}
        base = base_grid(ref, [Path(f) for f in registry.files], specs, data_root, limit)
        out["diff"] = diff_grids(result.grid, base, ref)
    if fmt == "json":
        click.echo(json.dumps(out, indent=2, ensure_ascii=False))
        return
    for line in table_lines(out):
        click.echo(line)


def table_lines(out: dict[str, Any]) -> list[str]:
    """The plan (and its diff) as aligned text."""
    from vlc_harness.cli.planview import work_text
    from vlc_harness.cli.planview_gpu import gpu_lines

    diff = out.get("diff")
    changes = {(c["model"], c["benchmark"]): c for c in (diff or {}).get("cells", [])}
    fingerprints = {m["id"]: m["fingerprint"] for m in out["models"]}
    header = ["model", "fingerprint", "benchmark", "status", "work", "cost", "gpu"]
    header += ["vs " + diff["ref"]] if diff else []
    rows = []
    for c in out["cells"]:
        row = [
            c["model"],
            fingerprints.get(c["model"], "")[:12],
            c["benchmark"],
            c["status"] + (f" ({c['stored_status']})" if c.get("stored_status") not in (None, "ok") else ""),
            work_text(c["work"], c["unit"], c["status"])
            + (f" ({c['requests']:,} requests)" if c["requests"] is not None and c["work"] else ""),
            c["cost"],
            c["gpu"],
        ]
        if diff:
            row.append("?" if diff.get("error") else _change_text(changes.get((c["model"], c["benchmark"]))))
        rows.append(row)
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(str(v).ljust(w) for v, w in zip(r, widths)).rstrip() for r in [header, *rows]]
    lines += _reasons(out["cells"])
    counts: dict[str, int] = {}
    for c in out["cells"]:
        counts[c["status"]] = counts.get(c["status"], 0) + 1
    lines.append("cells: " + ", ".join(f"{n} {s}" for s, n in sorted(counts.items())))
    for m in out["models"]:
        if m["work"]:
            cost = f", cost {m['cost']}" if m["cost"] != "-" else ""
            bound = "at most " if m["unknown"] else ""
            gpu = f", GPU {m['gpu']} ({m['gpu_basis']})" if m["gpu_kind"] != "none" else ""
            lines.append(f"model {m['id']}: {bound}{m['work']:,} {m['unit']} to compute (shared ones once){cost}{gpu}")
    if out.get("gpu"):
        lines += gpu_lines(out["gpu"])
    skipped = [m["id"] for m in out["models"] if m.get("not_identified")]
    if skipped:
        lines.append(f"note: {len(skipped)} models not identified (no fingerprint): none of their cells can run here")
    if out.get("store_note"):
        lines.append(f"note: {out['store_note']}")
    if diff:
        lines += _diff_summary(diff)
    return lines


def _reasons(cells: list[dict[str, Any]]) -> list[str]:
    """One line per distinct reason, naming the cells it covers."""
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for c in cells:
        if c["reason"] and c["status"] != "complete":
            groups.setdefault((c["status"], c["reason"].splitlines()[0]), []).append(c)
    lines = []
    for (status, reason), group in groups.items():
        models, benchmarks = {c["model"] for c in group}, {c["benchmark"] for c in group}
        if len(group) == 1:
            who = f"{group[0]['model']} x {group[0]['benchmark']}"
        elif len(benchmarks) == 1:
            who = f"{len(models)} models x {group[0]['benchmark']}"
        elif len(models) == 1:
            who = f"{group[0]['model']} x {len(benchmarks)} benchmarks"
        else:
            who = f"{len(group)} cells"
        lines.append(f"  {status} {who}: {reason if len(reason) <= MAX_REASON else reason[: MAX_REASON - 3] + '...'}")
    return lines


def _change_text(change: dict[str, Any] | None) -> str:
    if change is None:
        return "unchanged"
    if change["change"] == "unknown":
        return "unknown"  # why: once, under the table
    return change["change"] + (f": {', '.join(change['why'])}" if change.get("why") else "")


def _diff_summary(diff: dict[str, Any]) -> list[str]:
    counts: dict[str, int] = {}
    for c in diff["cells"]:
        counts[c["change"]] = counts.get(c["change"], 0) + 1
    lines = [
        f"vs {diff['ref']} ({diff['commit'][:12]}): "
        + (", ".join(f"{n} {s}" for s, n in sorted(counts.items())) or "no cell added or changed")
    ]
    for why in sorted({w for c in diff["cells"] if c["change"] == "unknown" for w in c["why"]}):
        lines.append(f"  unknown: {why}")
    for c in diff["removed"]:
        lines.append(f"  removed: {c['model']} x {c['benchmark']}")
    if diff.get("error"):
        lines.append(f"  the grid of {diff['ref']} could not be evaluated: {diff['error']}")
    return lines
