"""Pinned benchmark data: the files a data version needs, where to get each, and checking them."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from vlc_harness.errors import DataUnavailable

UNPINNED = "unpinned"
"""The sha256 of a :class:`DataFile` whose upstream publishes no checksum: checked for presence, not content."""


@dataclass(frozen=True)
class DataFile:
    """One pinned data file: where it goes under the data root, its sha256, where to get it."""

    relpath: str
    sha256: str
    url: str


@dataclass(frozen=True)
class ImageArchive:
    """A zip of benchmark images: where to get it and where it goes under the data root."""

    url: str
    relpath: str
    """Folder under the data root the archive is extracted into."""
    expect: str
    """A path (relative to the data root) that exists once the archive is extracted."""


@dataclass(frozen=True)
class PinnedArchive(ImageArchive):
    """An image archive whose upstream publishes its sha256: every download is checked by it. (A plain
    :class:`ImageArchive` has its first download's sha256 recorded in the data root's ``SHA256SUMS``,
    trust on first use, and every later one checked by that.)"""

    sha256: str = ""


def verify_files(data_root: Path, files: list[DataFile], what: str) -> None:
    """Check that each pinned file exists under ``data_root`` with its sha256."""
    from vlc_harness.hashing import sha256_file

    problems = []
    for f in files:
        path = data_root / f.relpath
        if not path.is_file():
            problems.append(f"missing {path} (get {f.url})")
            continue
        digest = sha256_file(path)
        if digest != f.sha256:
            problems.append(f"{path} has sha256 {digest[:12]}..., expected {f.sha256[:12]}... ({f.url})")
    if problems:
        shown = "; ".join(problems[:3]) + (f"; and {len(problems) - 3} more" if len(problems) > 3 else "")
        raise DataUnavailable(f"{what} data is not ready under {data_root}: {shown}")
