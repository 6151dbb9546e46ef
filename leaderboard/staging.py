"""Building a site beside the published one and swapping it in whole.

``render --out SITE`` writes into a fresh folder next to SITE (same parent, so the same filesystem
and the swap is two renames), carrying SITE's frozen releases over as hard links (copies where the
filesystem has none). Only once the new site is complete and its manifest passed the check does it
replace SITE: the old folder is renamed aside, the new one renamed in, the old one deleted; a failed
rename puts the old one back. A build that fails or is refused leaves SITE as it was and the staging
folder removed.

A render killed on the way leaves hidden folders beside SITE: ``.SITE.staging-*`` (a build) and,
killed between the two renames, ``.SITE.old-*`` (the published site, set aside) with no SITE at all.
:func:`recover` runs before anything else: it renames the set-aside site back (releases and manifest
with it, so the lost-cell check compares against it), removes builds and set-aside copies a finished
swap left, and refuses to guess between two set-aside sites. A disk that is full or read-only is one
sentence (:func:`disk_error`), never a traceback; the published site stays as it was.
"""

from __future__ import annotations

import errno
import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from vlc_harness.faults import fault_point

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
def staging_folder(site: Path, releases_from: Path | None = None) -> Iterator[Path]:
    """A new folder beside ``site`` holding ``site``'s releases (``releases_from``: that published site's
    instead); removed on exit unless swapped in."""
    site.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{site.name}.staging-", dir=site.parent))
    source = (releases_from or site) / RELEASES
    staging.chmod(0o755)  # mkdtemp makes it private (0700): a site is published for anyone to read
    try:
        if source.is_dir():
            _carry(source, staging / RELEASES)
        yield staging
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)


def _carry(source: Path, target: Path) -> None:
    """Copy the folder ``source`` to ``target``, each file by :func:`_link_or_copy` (an error is raised
    as it is, its number kept: ``shutil.copytree`` would gather them into one without)."""
    target.mkdir(parents=True)
    for path in sorted(source.rglob("*")):
        copy = target / path.relative_to(source)
        if path.is_dir():
            copy.mkdir(exist_ok=True)
        else:
            _link_or_copy(path, copy)


def _link_or_copy(source: Path, target: Path) -> None:
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
    fault_point("render.swapped-aside")
    try:
        os.rename(staging, site)
    except BaseException:
        os.rename(aside, site)
        raise
    shutil.rmtree(aside, ignore_errors=True)


def leftovers(site: Path, kind: str) -> list[Path]:
    """The ``.SITE.<kind>-*`` folders beside ``site`` (``kind``: ``old`` or ``staging``), by name."""
    if not site.parent.is_dir():
        return []
    return sorted(p for p in site.parent.glob(f".{site.name}.{kind}-*") if p.is_dir())


def recover(site: Path) -> list[str]:
    """Put right what a killed render left beside ``site``; one line per thing done.

    With no ``site`` and one set-aside site, that one is the last site published whole: it is renamed
    back. With ``site`` present, a set-aside site is what a finished swap had not yet deleted. Builds
    are never published as they are: removed. Two set-aside sites and no ``site``: ``ValueError``
    (which one was published last cannot be told), and nothing is touched.
    """
    lines = []
    old = leftovers(site, "old")
    if not site.exists() and len(old) > 1:
        raise ValueError(
            f"{site} is missing and {len(old)} set-aside sites of killed renders lie beside it "
            f"({', '.join(p.name for p in old)}); which was published last cannot be told"
        )
    if not site.exists() and old:
        os.rename(old[0], site)
        lines.append(f"restored {site} from {old[0].name}, set aside by a render killed during its swap")
        old = []
    for folder in old:
        shutil.rmtree(folder)
        lines.append(f"removed {folder.name}, a published site a finished swap had not yet deleted")
    for folder in leftovers(site, "staging"):
        shutil.rmtree(folder)
        lines.append(f"removed {folder.name}, the build of a render that did not finish")
    return lines


DISK_ERRORS = {
    errno.ENOSPC: "no space left on the device",
    errno.EDQUOT: "the disk quota is exceeded",
    errno.EROFS: "the file system is read-only",
    errno.EACCES: "permission denied",
    errno.EPERM: "permission denied",
    errno.EIO: "an input/output error",
    errno.EFBIG: "a file would be over the size limit",
}
"""The ``OSError`` numbers that mean the disk, not render, is at fault, in words."""


def disk_error(exc: OSError, site: Path) -> str | None:
    """One sentence for a disk error while publishing ``site`` (``None``: ``exc`` is no disk error)."""
    words = DISK_ERRORS.get(exc.errno or 0)
    if words is None:
        return None
    where = f" (at {exc.filename})" if exc.filename else ""
    return f"cannot write the site {site}: {words}{where}; the published site is as it was"
