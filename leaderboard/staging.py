"""Building a site beside the published one and swapping it in whole.

``render --out SITE`` writes into a fresh folder next to SITE (same parent, so the same filesystem
and the swap is two renames), carrying SITE's frozen releases over as hard links (copies where the
filesystem has none). Only once the new site is complete and its manifest passed the check does it
replace SITE: the old folder is renamed aside, the new one renamed in, the old one deleted; a failed
rename puts the old one back. A build that fails or is refused leaves SITE as it was and the staging
folder removed.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

RELEASES = "releases"
SITE_MARKERS = ("manifest.json", "index.html")
"""A folder holding either of these is a rendered site ``render`` may replace."""


def check_replaceable(site: Path) -> None:
    """Refuse (``ValueError``) to replace a folder that is neither absent, empty, nor a rendered site:
    ``--out`` names the folder render owns, and a swap deletes what it held."""
    if site.exists() and not site.is_dir():
        raise ValueError(f"{site} exists and is not a folder")
    if site.is_dir() and any(site.iterdir()) and not any((site / m).exists() for m in SITE_MARKERS):
        raise ValueError(
            f"{site} is not empty and holds no rendered site (no {' or '.join(SITE_MARKERS)}); "
            "render replaces its --out folder whole, so name a new or empty folder"
        )


@contextmanager
def staging_folder(site: Path) -> Iterator[Path]:
    """A new folder beside ``site`` holding ``site``'s releases; removed on exit unless swapped in."""
    site.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{site.name}.staging-", dir=site.parent))
    try:
        if (site / RELEASES).is_dir():
            shutil.copytree(site / RELEASES, staging / RELEASES, copy_function=_link_or_copy)
        yield staging
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)


def _link_or_copy(source: str, target: str) -> None:
    """A frozen release's file is never written again: share it by a hard link where the filesystem can."""
    try:
        os.link(source, target)
    except OSError:
        shutil.copy2(source, target)


def swap_in(staging: Path, site: Path) -> None:
    """Replace ``site`` with ``staging``: old aside, new in, old deleted; on a failed rename the old stays."""
    if not site.exists():
        os.rename(staging, site)
        return
    aside = Path(tempfile.mkdtemp(prefix=f".{site.name}.old-", dir=site.parent))
    aside.rmdir()  # a free name beside ``site``; rename needs the target absent
    os.rename(site, aside)
    try:
        os.rename(staging, site)
    except BaseException:
        os.rename(aside, site)
        raise
    shutil.rmtree(aside, ignore_errors=True)
