"""What every data source shares: the base class, several sources as one, the image folder, content digests."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from vlc_harness.datafiles import DataFile, ImageArchive, verify_files

CUSTOM = "custom"
"""The version name of unpinned data read from wherever it was put (fixtures, subsets, other copies)."""


class DataSource:
    """Where a benchmark's data comes from: the files, the data version that names them, checking them and
    fetching them.

    A benchmark returns one from :meth:`~vlc_harness.benchmarks.Benchmark.data_source`; its
    ``data_version``, ``data_files()``, ``check_data()`` and ``fetch()`` then come from it. ``root`` is the
    data root (relative paths are under it); ``what`` names the benchmark in messages.
    """

    def __init__(self, root: Path, what: str) -> None:
        self.root = Path(root)
        self.what = what

    def path(self, relative: str | Path) -> Path:
        """A path under the data root (an absolute one as it is)."""
        return self.root / relative

    @property
    def data_version(self) -> str:
        """The name of the data read (part of every cell record and of the instance manifest)."""
        raise NotImplementedError

    def data_files(self) -> list[DataFile]:
        """The pinned files (recorded in each cell's provenance)."""
        return []

    def check(self) -> None:
        """Raise :class:`~vlc_harness.errors.DataUnavailable` naming what is missing or altered."""
        verify_files(self.root, self.data_files(), self.what)

    def fetch(self, progress: bool = True) -> list[str]:
        """Download what is downloadable (one report line per item)."""
        from vlc_harness.datafetch import fetch_files

        return fetch_files(self.root, self.data_files(), progress)


class Sources(DataSource):
    """Several sources as one (pinned annotations and an export, say): the first names the data version; the
    files, checks and fetches are all of theirs, in order."""

    def __init__(self, *parts: DataSource) -> None:
        super().__init__(parts[0].root, parts[0].what)
        self.parts = parts

    @property
    def data_version(self) -> str:
        """The first source's."""
        return self.parts[0].data_version

    def data_files(self) -> list[DataFile]:
        """Every source's pinned files."""
        return [f for part in self.parts for f in part.data_files()]

    def check(self) -> None:
        """Every source's check, in order."""
        for part in self.parts:
            part.check()

    def fetch(self, progress: bool = True) -> list[str]:
        """Every source's fetch, in order."""
        return [line for part in self.parts for line in part.fetch(progress)]


@dataclass(frozen=True)
class ImageFolder:
    """Where a benchmark's images are read from, where to get them, and the archives that provide them.

    ``data fetch --images`` downloads the ``archives``; when some images cannot be downloaded
    (``manual``), it prints the ``hint`` instead. A run shows the hint when no image is present.
    """

    path: Path
    hint: str = ""
    archives: tuple[ImageArchive, ...] = ()
    manual: bool = False


def files_digest(files: Iterable[tuple[str, Path]], missing: bytes = b"", seed: bytes = b"") -> str:
    """The first 12 hex digits of sha256 over ``seed``, then each name followed by its file's bytes
    (``missing`` for an absent file): how an unpinned data version names the files it read."""
    h = hashlib.sha256(seed)
    for name, path in files:
        h.update(name.encode() + (path.read_bytes() if path.is_file() else missing))
    return h.hexdigest()[:12]


def file_digest(path: Path) -> str:
    """The first 12 hex digits of a file's sha256 (cached per machine), or ``missing``."""
    from vlc_harness.hashing import sha256_file

    return sha256_file(path)[:12] if path.is_file() else "missing"
