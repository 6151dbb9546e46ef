"""``vlc-harness render``: build the static site from the store's cells and the registry.

The site is built in a staging folder beside ``--out`` and swapped in only when its manifest keeps
every value the published one holds (:mod:`vlc_leaderboard.site_manifest`, :mod:`vlc_leaderboard.staging`):
otherwise render exits 5 (``ExitCode.RENDER_REFUSED``) with the published site untouched, unless ``--allow-shrink``.
"""

from __future__ import annotations

import datetime as dt
import sys
from pathlib import Path
from typing import Any

import click

from vlc_harness import hookimpl
from vlc_harness.cli import App, data_root_option, pass_app, registry_option, store_option
from vlc_harness.exit_codes import ExitCode

LISTED = 20
"""At most this many refused cells are named, one a line; the rest are counted."""


def wall_clock() -> dt.datetime:
    """Now, in UTC: the live index's "last checked" time (tests replace it)."""
    return dt.datetime.now(dt.timezone.utc)


@click.command()
@click.option("--out", type=click.Path(file_okay=False), default="site", show_default=True, help="Output folder.")
@click.option("--release", default=None, help="Also freeze a copy as site/releases/NAME (never overwritten).")
@click.option("--templates", "templates", multiple=True, type=click.Path(file_okay=False), help="Override templates.")
@click.option(
    "--include-adhoc",
    is_flag=True,
    help="Also publish models and benchmarks run without a registry entry (inline specs); default: registry only.",
)
@click.option(
    "--allow-shrink",
    is_flag=True,
    help="Publish even when the new site loses published values or changes one whose fingerprints and data "
    "version did not change (default: refuse, exit 5, the published site untouched).",
)
@store_option
@registry_option
@data_root_option
@pass_app
def render(
    app: App,
    out: str,
    release: str | None,
    templates: tuple[str, ...],
    include_adhoc: bool,
    allow_shrink: bool,
    store_url: str | None,
    registries: tuple[str, ...],
    data_root: Path,
) -> None:
    """Render index, benchmark and model pages: the registry's entries (--include-adhoc: also
    one-off runs); only complete cells are published. Refuses while a cell it would publish holds
    stale metrics (older metric code): `vlc-harness store upgrade` rebuilds them first.

    The site is built beside --out and replaces it whole, and only when it keeps every published
    value: a value lost, or changed while its model fingerprint, benchmark fingerprint and data version
    stayed, exits 5 and leaves --out as it was (--allow-shrink publishes it anyway)."""
    from vlc_harness.errors import UserError
    from vlc_harness.provenance import run_provenance
    from vlc_harness.results import StoredResults
    from vlc_leaderboard.board import build_board
    from vlc_leaderboard.downloads import write_downloads
    from vlc_leaderboard.instances import instance_results
    from vlc_leaderboard.site import render_site
    from vlc_leaderboard.site_manifest import site_manifest
    from vlc_leaderboard.site_size import site_size
    from vlc_leaderboard.staging import check_replaceable, disk_error, recover, staging_folder, swap_in

    site = Path(out).resolve()
    try:
        recovered = recover(site)
    except ValueError as exc:
        hint = f"move the one to publish to {site} and the others elsewhere, then render again"
        raise UserError(str(exc), hint=hint) from None
    except OSError as exc:
        raise UserError(disk_error(exc, site) or f"cannot put right what a killed render left: {exc}") from None
    for line in recovered:
        click.echo(line)
    try:
        check_replaceable(site)
    except ValueError as exc:
        raise UserError(str(exc), hint="pass --out with a new folder, or a site render wrote before") from None
    registry = app.registry(registries, store_url)
    provenance = run_provenance([]) | {"registry_digest": registry.digest()}
    store = app.store(store_url)
    results = StoredResults(store)
    try:
        cells = results.cells(include_incomplete=True, with_replicates=True)
        runs = {c.run_id: results.run(c.run_id) for c in cells if c.run_id is not None}
        if not include_adhoc and not registry.models:
            raise UserError(
                "render publishes the registry's entries, and no registry names a model",
                hint="pass --registry FILE, or --include-adhoc to publish every model in the store",
            )
        board = build_board(cells, registry, app.plugins, include_adhoc=include_adhoc)
        _refuse_stale(board, app.stale_cells(store, data_root))
        instances = instance_results(board, results, data_root)
        try:
            with staging_folder(site) as staging:
                try:
                    written = render_site(
                        board,
                        staging,
                        provenance,
                        release,
                        [Path(t) for t in templates],
                        runs=_public(runs),
                        downloads=lambda target: write_downloads(board, target, results, data_root),
                        instances=instances,
                        checked=wall_clock(),
                    )
                except (FileExistsError, ValueError) as exc:
                    raise UserError(str(exc).replace(str(staging), str(site))) from None
                _check_manifest(site, site_manifest(board), allow_shrink, after_kill=bool(recovered))
                swap_in(staging, site)
        except OSError as exc:
            message = disk_error(exc, site)
            if message is None:
                raise
            raise UserError(message, hint="free space, or make the folder writable, then render again") from None
    finally:
        store.close()
    published = sum(cv.published for row in board.rows for cv in row.cells.values())
    size = site_size(site)
    click.echo(
        f"wrote {len(written)} pages to {out}: {len(board.rows)} models, {len(board.benchmarks)} benchmarks, "
        f"{published} published cells; {size.describe()}"
    )
    if size.warning():
        click.echo(f"warning: {size.warning()}", err=True)
    if not registry.benchmarks:
        click.echo(
            "no benchmark in that registry, so the board has no column: pass the published registry first "
            "(--registry PATH/TO/vlc-harness/registry.yaml --registry yours.yaml) or add a benchmark entry",
            err=True,
        )
    elif not include_adhoc:
        adhoc = sorted({c.model_id for c in cells if c.model_id not in registry.models})
        if adhoc:
            click.echo(f"not published (no registry entry; --include-adhoc publishes them): {len(adhoc)} models")


def _check_manifest(site: Path, new: dict[str, Any], allow_shrink: bool, after_kill: bool = False) -> None:
    """Compare the new site's manifest with the published one; exit 5 on a refusal unless ``allow_shrink``.
    ``after_kill``: leftovers of a killed render were found, so a missing manifest is no proof that
    nothing was published."""
    from vlc_leaderboard.site_manifest import changes, read_manifest, refusals

    try:
        published = read_manifest(site)
    except ValueError as exc:
        lines = [f"unreadable published manifest: {exc}"]
    else:
        if published is None and after_kill:
            lines = [f"no manifest.json in {site}, next to what a killed render left: nothing to check lost cells by"]
        elif published is None:
            click.echo(f"{site} has no manifest.json yet: nothing to compare, every cell is new")
            return
        else:
            lines = [r.line() for r in refusals(published, new)]
        if not lines:
            assert published is not None
            counts = changes(published, new)
            click.echo(
                f"checked against the published manifest: nothing lost, {counts['new']} new values, "
                f"{counts['changed']} changed with a new fingerprint or data version"
            )
            return
    shown = [f"  {line}" for line in lines[:LISTED]] + (
        [f"  ... and {len(lines) - LISTED} more"] if len(lines) > LISTED else []
    )
    if allow_shrink:
        click.echo(f"--allow-shrink: publishing despite {len(lines)} refused cells:", err=True)
        click.echo("\n".join(shown), err=True)
        return
    click.echo(
        f"render refused: the new site would lose published values or change them without a fingerprint or "
        f"data-version change ({len(lines)} cells); {site} is unchanged:",
        err=True,
    )
    click.echo("\n".join(shown), err=True)
    click.echo(
        "Hint: `vlc-harness show --partial` says why a cell has no number; --allow-shrink publishes it anyway",
        err=True,
    )
    sys.exit(ExitCode.RENDER_REFUSED)


def _refuse_stale(board: Any, stale: list[Any]) -> None:
    """A published number must come from the metric code the page describes: refuse to render
    while a cell the board would publish holds metrics older metric code computed."""
    from vlc_harness.cli import UPGRADE_COMMAND
    from vlc_harness.errors import UserError

    ids = {c.id for c in stale}
    shown = [cv.cell for row in board.rows for cv in row.cells.values() if cv.published and cv.cell.id in ids]
    if shown:
        names = ", ".join(f"{c.model_id} x {c.benchmark_id}" for c in shown[:3])
        raise UserError(
            f"{len(shown)} cells the board would publish hold metrics computed by older metric code ({names}"
            + (", ..." if len(shown) > 3 else "")
            + ")",
            hint=f"run `{UPGRADE_COMMAND}` with their data at hand, or `vlc-harness cache forget` them",
        )


def _public(runs: dict[int, dict[str, Any]]) -> dict[int, dict[str, Any]]:
    """Run provenance without what a public page should not show (host names, command lines)."""
    hidden = {"host", "argv"}
    return {k: {key: v for key, v in prov.items() if key not in hidden} for k, prov in runs.items()}


@hookimpl
def register_commands(cli: click.Group) -> None:
    """Add ``render``."""
    cli.add_command(render)
