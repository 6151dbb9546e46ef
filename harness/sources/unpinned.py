"""Files no upstream checksum pins (Google Drive, a hub snapshot, a manual download): the data version
names what was read, so scores of two different copies never mix."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Literal

from vlc_harness.datafiles import UNPINNED, DataFile
from vlc_harness.errors import DataUnavailable
from vlc_harness.sources.base import CUSTOM, DataSource, file_digest, files_digest


class UnpinnedFiles(DataSource):
    """Files checked for presence only; the data version is ``<label>-<digest>`` of their content.

    ``files`` maps a key to a path relative to the data root. ``digest`` ``"file"`` (one file) names its
    sha256, ``"names"`` a sha256 over each key and its file's bytes (``-`` for an absent one). The check
    asks for ``all`` the files, or ``any`` of them; ``hint`` says where to get them. A file with a URL in
    ``urls`` is downloaded once by ``data fetch`` (it must be JSON: Google Drive answers a confirmation
    page for large files) and listed in :meth:`data_files` as ``unpinned``; nothing is fetched for
    version ``custom``.
    """

    def __init__(
        self,
        root: Path,
        what: str,
        files: Mapping[str, str | Path],
        label: str,
        *,
        hint: str = "",
        urls: Mapping[str, str] | None = None,
        needs: Literal["all", "any"] = "all",
        digest: Literal["file", "names"] = "file",
        version: str = "",
    ) -> None:
        super().__init__(root, what)
        self.files = dict(files)
        self.label, self.hint = label, hint
        self.urls = dict(urls or {})
        self.needs, self.digest = needs, digest
        self.custom = version == CUSTOM

    def file(self, key: str) -> Path:
        """The path of one file."""
        return self.path(self.files[key])

    def present(self) -> list[str]:
        """The keys whose file is present, in order."""
        return [key for key in self.files if self.file(key).is_file()]

    @property
    def data_version(self) -> str:
        """``<label>-<sha256[:12]>`` of the file (or over the named files), ``missing`` when absent."""
        if self.digest == "file":
            (path,) = (self.file(key) for key in self.files)
            return f"{self.label}-{file_digest(path)}"
        return f"{self.label}-{files_digest(((key, self.file(key)) for key in self.files), missing=b'-')}"

    def data_files(self) -> list[DataFile]:
        """The downloadable files, marked unpinned (none for ``custom``)."""
        if self.custom:
            return []
        return [DataFile(str(self.files[key]), UNPINNED, url) for key, url in self.urls.items()]

    def check(self) -> None:
        """Every file present (``any``: at least one), else what to get."""
        present = self.present()
        absent = [self.file(key) for key in self.files if key not in present]
        if absent and (self.needs == "all" or not present):
            raise DataUnavailable(f"{self.what} data is not ready: missing {absent[0]}; {self.hint}")

    def fetch(self, progress: bool = True) -> list[str]:
        """Download each file with a URL, once (nothing for ``custom``)."""
        if self.custom:
            return []
        return [download_json_once(self.file(key), url, self.hint, progress) for key, url in self.urls.items()]


def download_json_once(dest: Path, url: str, hint: str, progress: bool = True) -> str:
    """Download an unpinned JSON file unless it is there (never again: nothing says a newer one is the
    same data); anything that is not JSON is removed and refused."""
    from vlc_harness.datafetch import FetchError, download
    from vlc_harness.hashing import sha256_file

    if dest.is_file():
        return f"present  {dest} (unpinned: no upstream checksum)"
    download(url, dest, None, progress)
    try:
        json.loads(dest.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        dest.unlink(missing_ok=True)
        raise FetchError(f"{url} did not return the JSON file (a confirmation page?); {hint}") from None
    return f"fetched  {dest} (unpinned: sha256 {sha256_file(dest)[:12]}...)"
