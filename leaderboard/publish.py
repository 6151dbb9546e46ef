"""Publishing a site from the board's data (:class:`~vlc_leaderboard.board_data.BoardData`): what ``render``
does once it has everything it reads, whether from the store or from a board bundle.

The site is built in a staging folder beside ``--out``, carrying the published site's frozen releases,
and swapped in only when its manifest keeps every value the published one holds
(:mod:`vlc_leaderboard.site_manifest`, :mod:`vlc_leaderboard.staging`): otherwise exit 5
(``ExitCode.RENDER_REFUSED``) with ``--out`` untouched, unless ``--allow-shrink``. The published site is
``--out`` itself, or ``--previous DIR``: a copy of the published site (the nightly's render job has the
last deployed site, not a folder it publishes into), whose ``manifest.json`` is checked against and whose
``releases/`` are carried over. Nothing here reads a store, a registry or a plugin.
"""

from __future__ import annotations

import datetime as dt
import functools
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

from vlc_harness.errors import UserError
from vlc_harness.exit_codes import ExitCode
from vlc_leaderboard.board import Board, assemble_board
from vlc_leaderboard.board_data import BoardData
from vlc_leaderboard.fanout import JOBS_ENV, default_jobs

LISTED = 20
"""At most this many refused cells are named, one a line; the rest are counted."""
EPOCH = "SOURCE_DATE_EPOCH"
"""The reproducible-builds clock: when set, the live index's "last checked" time (and a release's date)."""


def wall_clock() -> dt.datetime:
    """Now, in UTC (``$SOURCE_DATE_EPOCH`` when set): the live index's "last checked" time."""
    fixed = os.environ.get(EPOCH)
    if fixed:
        try:
            return dt.datetime.fromtimestamp(int(fixed), dt.timezone.utc)
        except ValueError:
            raise UserError(f"{EPOCH}={fixed!r} is not a whole number of seconds") from None
    return dt.datetime.now(dt.timezone.utc)


@dataclass(frozen=True)
class Target:
    """Where and how a site is published."""

    site: Path
    """``--out``: the folder the new site replaces."""
    previous: Path | None = None
    """The published site to check against and carry releases from (``None``: :attr:`site` itself)."""
    release: str | None = None
    templates: tuple[Path, ...] = ()
    allow_shrink: bool = False
    jobs: int = 1
    """Worker processes for the per-benchmark work (:mod:`vlc_leaderboard.fanout`; 1: all in this process)."""


def site_options(f: Any) -> Any:
    """The options of where and how a site is published (``render`` and ``render_bundle`` alike), handed to the
    command as one :class:`Target`, its ``where`` argument."""
    options = [
        click.option(
            "--out", type=click.Path(file_okay=False), default="site", show_default=True, help="Output folder."
        ),
        click.option(
            "--previous",
            type=click.Path(file_okay=False, exists=True),
            default=None,
            help="The published site to check against and carry frozen releases from, when --out is not it "
            "(the nightly's render job: the last deployed site). Must hold manifest.json.",
        ),
        click.option("--release", default=None, help="Also freeze a copy as site/releases/NAME (never overwritten)."),
        click.option(
            "--templates", "templates", multiple=True, type=click.Path(file_okay=False), help="Override templates."
        ),
        click.option(
            "--allow-shrink",
            is_flag=True,
            help="Publish even when the new site loses published values or changes one whose fingerprints and data "
            "version did not change (default: refuse, exit 5, the published site untouched).",
        ),
        click.option(
            "--jobs",
            type=click.IntRange(min=1),
            default=default_jobs,
            show_default="the CPUs this process may use",
            envvar=JOBS_ENV,
            show_envvar=True,
            help="Worker processes for the per-benchmark work (each benchmark's outcomes read, its downloads and "
            "instance browser files written); 1: all in this process. The site is the same bytes either way.",
        ),
    ]

    @functools.wraps(f)  # the options declared below this decorator (click's __click_params__) come along
    def command(
        *args: Any,
        out: str,
        previous: str | None,
        release: str | None,
        templates: tuple[str, ...],
        allow_shrink: bool,
        jobs: int,
        **kwargs: Any,
    ) -> Any:
        return f(*args, where=site_target(out, previous, release, templates, allow_shrink, jobs), **kwargs)

    for option in reversed(options):
        command = option(command)
    return command


def site_target(
    out: str, previous: str | None, release: str | None, templates: tuple[str, ...], shrink: bool, jobs: int = 1
) -> Target:
    """Where and how the site is published, from the options."""
    paths = tuple(Path(t) for t in templates)
    return Target(Path(out), Path(previous) if previous else None, release, paths, shrink, jobs)


def prepare(target: Target) -> bool:
    """Before anything is read: put right what a killed render left beside ``--out`` (saying what it did) and
    refuse an ``--out`` render may not replace, or a ``--previous`` that is no published site. Whether a
    killed render's leftovers were found."""
    from vlc_leaderboard.staging import check_replaceable, disk_error, recover

    site = target.site.resolve()
    if target.previous is not None and not (target.previous / "manifest.json").is_file():
        raise UserError(
            f"--previous {target.previous} holds no manifest.json: it is not a published site",
            hint="pass the last published site (docs/maintainers.md says where the nightly gets it), or leave "
            "--previous out on a first publication",
        )
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
    return bool(recovered)


def publish(data: BoardData, target: Target, checked: dt.datetime, recovered: bool = False) -> tuple[Board, list[Path]]:
    """Render ``data`` into ``target`` (see the module docstring; :func:`prepare` first, which says whether a
    killed render's leftovers were found: ``recovered``); the board and the pages written."""
    from vlc_leaderboard.downloads import ScoresFiles, write_downloads
    from vlc_leaderboard.fanout import Workers
    from vlc_leaderboard.site import render_site
    from vlc_leaderboard.site_manifest import site_manifest
    from vlc_leaderboard.staging import disk_error, staging_folder, swap_in

    site = target.site.resolve()
    previous = target.previous.resolve() if target.previous is not None else None
    board = assemble_board(data.facts)
    _refuse_stale(board, data.stale)
    try:
        with staging_folder(site, releases_from=previous) as staging:
            # each cell's records are read once: the instance browser's arrays and its scores file from one read,
            # each benchmark's in one of the workers
            workers = Workers(target.jobs, data.after_fork)
            scores = ScoresFiles(board, staging, data.outcomes)
            try:
                written = render_site(
                    board,
                    staging,
                    data.provenance,
                    target.release,
                    list(target.templates),
                    runs=data.runs,
                    downloads=lambda out: write_downloads(board, out, data.outcomes, scores, workers),
                    instances=data.instances,
                    checked=checked,
                    thumbnails=data.thumbnails,
                    fill=scores,
                    workers=workers,
                )
            except (FileExistsError, ValueError) as exc:
                raise UserError(str(exc).replace(str(staging), str(site))) from None
            after_kill = recovered and previous is None
            _check_manifest(previous or site, site_manifest(board), target.allow_shrink, after_kill, out=site)
            swap_in(staging, site)
    except OSError as exc:
        message = disk_error(exc, site)
        if message is None:
            raise
        raise UserError(message, hint="free space, or make the folder writable, then render again") from None
    return board, written


def summary(board: Board, written: list[Path], out: str) -> None:
    """Say what was published (stdout) and warn of a site over its size budget (stderr)."""
    from vlc_leaderboard.site_size import site_size

    published = sum(cv.published for row in board.rows for cv in row.cells.values())
    size = site_size(Path(out).resolve())
    click.echo(
        f"wrote {len(written)} pages to {out}: {len(board.rows)} models, {len(board.benchmarks)} benchmarks, "
        f"{published} published cells; {size.describe()}"
    )
    if size.warning():
        click.echo(f"warning: {size.warning()}", err=True)


def _check_manifest(
    site: Path, new: dict[str, Any], allow_shrink: bool, after_kill: bool = False, out: Path | None = None
) -> None:
    """Compare the new site's manifest with the one published at ``site``; exit 5 on a refusal unless
    ``allow_shrink``, ``out`` (default: ``site``) untouched. ``after_kill``: leftovers of a killed render were
    found, so a missing manifest is no proof that nothing was published."""
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
        f"data-version change ({len(lines)} cells); {out or site} is unchanged:",
        err=True,
    )
    click.echo("\n".join(shown), err=True)
    click.echo(
        "Hint: `vlc-harness show --partial` says why a cell has no number; --allow-shrink publishes it anyway",
        err=True,
    )
    sys.exit(ExitCode.RENDER_REFUSED)


def _refuse_stale(board: Board, stale: set[int]) -> None:
    """A published number must come from the metric code the page describes: refuse to render
    while a cell the board would publish holds metrics older metric code computed."""
    from vlc_harness.cli.options import UPGRADE_COMMAND

    shown = [
        cv.cell
        for row in board.rows
        for cv in row.cells.values()
        if cv.published and cv.cell is not None and cv.cell.id in stale
    ]
    if shown:
        names = ", ".join(f"{c.model_id} x {c.benchmark_id}" for c in shown[:3])
        raise UserError(
            f"{len(shown)} cells the board would publish hold metrics computed by older metric code ({names}"
            + (", ..." if len(shown) > 3 else "")
            + ")",
            hint=f"run `{UPGRADE_COMMAND}` with their data at hand, or `vlc-harness cache forget` them",
        )
