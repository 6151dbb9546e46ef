"""Annotation files pinned by sha256 at an upstream commit, or read as they are under version ``custom``."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Literal

from vlc_harness.datafiles import UNPINNED, DataFile, verify_files
from vlc_harness.errors import DataUnavailable
from vlc_harness.sources.base import CUSTOM, DataSource, files_digest


class PinnedFiles(DataSource):
    """Files pinned by sha256, each with the URL it comes from; version ``custom`` reads them unpinned.

    ``files`` maps a key (a subset, an instrument) to its :class:`~vlc_harness.datafiles.DataFile`,
    relative to the data root. Under a pinned ``version`` the data version is that name, every file must
    be present with its sha256 (one pinned ``"unpinned"`` is checked for presence only, and is not
    fetched), and ``data fetch`` downloads them. Under ``custom`` the data version is ``custom-<digest>``
    over each key and its file's bytes (``missing`` for an absent one, after ``seed``), and the check asks
    for ``any`` or ``all`` of the files. ``suffix`` is appended to either (a mode, a filter).
    """

    def __init__(
        self,
        root: Path,
        what: str,
        files: Mapping[str, DataFile],
        version: str,
        *,
        missing: bytes = b"",
        seed: bytes = b"",
        suffix: str = "",
        custom_needs: Literal["any", "all"] = "any",
        noun: str = "file",
    ) -> None:
        super().__init__(root, what)
        self.files = dict(files)
        self.version = version
        self.missing, self.seed, self.suffix = missing, seed, suffix
        self.custom_needs = custom_needs
        self.noun = noun

    @property
    def custom(self) -> bool:
        """True under version ``custom`` (nothing pinned)."""
        return self.version == CUSTOM

    def file(self, key: str) -> Path:
        """The path of one file."""
        return self.path(self.files[key].relpath)

    def present(self) -> list[str]:
        """The keys whose file is present, in order."""
        return [key for key in self.files if self.file(key).is_file()]

    @property
    def data_version(self) -> str:
        """The version's name, or ``custom-<digest of the files>``; then the suffix."""
        if not self.custom:
            return self.version + self.suffix
        digest = files_digest(((key, self.file(key)) for key in self.files), self.missing, self.seed)
        return f"{CUSTOM}-{digest}{self.suffix}"

    def data_files(self) -> list[DataFile]:
        """Every file of a pinned version (none for ``custom``)."""
        return [] if self.custom else list(self.files.values())

    def check(self) -> None:
        """Pinned: each file present with its sha256 (an unpinned one: present). Custom: any or all present."""
        if self.custom:
            self._check_custom()
            return
        verify_files(self.root, [f for f in self.files.values() if f.sha256 != UNPINNED], self.what)
        for f in self.files.values():
            if f.sha256 == UNPINNED and not self.path(f.relpath).is_file():
                raise DataUnavailable(f"{self.what} data is not ready: missing {self.path(f.relpath)} (get {f.url})")

    def _check_custom(self) -> None:
        present = self.present()
        if self.custom_needs == "all" and len(present) < len(self.files):
            absent = [str(self.file(key)) for key in self.files if key not in present]
            raise DataUnavailable(f"{self.what} (custom): missing {', '.join(absent)}")
        if not present:
            folder = os.path.commonpath([str(self.file(key).parent) for key in self.files])
            raise DataUnavailable(f"{self.what} (custom): no {self.noun} under {folder}")

    def fetch(self, progress: bool = True) -> list[str]:
        """Download each pinned file that is missing or altered (nothing for ``custom``)."""
        from vlc_harness.datafetch import fetch_files

        return fetch_files(self.root, [f for f in self.data_files() if f.sha256 != UNPINNED], progress)
