"""Downloading pinned benchmark data into the data root, and checking what is there.

Every file is checked against its pinned sha256 while it streams in and only then moved into
place, so a partial or altered download never sits where a benchmark would read it.
``VLC_HARNESS_DATA_MIRROR`` (a base URL) fetches ``<mirror>/<host>/<path>`` instead of each
upstream URL, for machines behind a proxy or a local copy.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sys
import urllib.error
import urllib.parse
import urllib.request
import zipfile
from pathlib import Path

from vlc_harness.datafiles import DataFile, ImageArchive
from vlc_harness.errors import HarnessError
from vlc_harness.hashing import sha256_file

ENV_MIRROR = "VLC_HARNESS_DATA_MIRROR"
TIMEOUT_S = 30.0


class FetchError(HarnessError):
    """A download failed or did not match its pinned checksum."""


def mirrored(url: str) -> str:
    """The URL to fetch: the original, or its path under ``$VLC_HARNESS_DATA_MIRROR``."""
    mirror = os.environ.get(ENV_MIRROR)
    if not mirror:
        return url
    parts = urllib.parse.urlsplit(url)
    return f"{mirror.rstrip('/')}/{parts.netloc}{parts.path}"


def download(url: str, dest: Path, sha256: str | None = None, progress: bool = True) -> str:
    """Stream ``url`` to ``dest`` (via a temporary file), checking ``sha256`` when given."""
    from tqdm import tqdm

    source = mirrored(url)
    dest.parent.mkdir(parents=True, exist_ok=True)
    partial = dest.with_name(dest.name + ".partial")
    digest = hashlib.sha256()
    try:
        with urllib.request.urlopen(source, timeout=TIMEOUT_S) as response, open(partial, "wb") as out:
            total = int(response.headers.get("Content-Length") or 0) or None
            with tqdm(
                total=total,
                unit="B",
                unit_scale=True,
                desc=dest.name,
                disable=not progress,
                file=sys.stderr,
                leave=False,
            ) as bar:
                while chunk := response.read(1 << 20):
                    out.write(chunk)
                    digest.update(chunk)
                    bar.update(len(chunk))
    except (urllib.error.URLError, OSError, TimeoutError) as exc:
        partial.unlink(missing_ok=True)
        reason = getattr(exc, "reason", None) or exc
        raise FetchError(f"cannot download {source}: {reason}") from None
    got = digest.hexdigest()
    if sha256 is not None and got != sha256:
        partial.unlink(missing_ok=True)
        raise FetchError(f"{source} has sha256 {got}, expected {sha256}; not saved")
    partial.replace(dest)
    return got


def fetch_files(data_root: Path, files: list[DataFile], progress: bool = True) -> list[str]:
    """Download each pinned file that is missing or altered; one line of report per file."""
    lines = []
    for f in files:
        dest = data_root / f.relpath
        if dest.is_file() and sha256_file(dest) == f.sha256:
            lines.append(f"present  {dest}")
            continue
        download(f.url, dest, f.sha256, progress)
        lines.append(f"fetched  {dest}")
    return lines


def fetch_archive(data_root: Path, archive: ImageArchive, progress: bool = True) -> str:
    """Download and extract an image archive unless what it provides is already present.

    Archives are not pinned by checksum: every image is identified by its own sha256 when used.
    """
    if (data_root / archive.expect).exists():
        return f"present  {data_root / archive.expect}"
    name = Path(urllib.parse.urlsplit(archive.url).path).name
    zip_path = data_root / "downloads" / name
    if not zip_path.is_file():
        download(archive.url, zip_path, None, progress)
    target = data_root / archive.relpath
    target.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(zip_path) as zf:
        for member in zf.infolist():
            out = (target / member.filename).resolve()
            if not str(out).startswith(str(target.resolve())):
                raise FetchError(f"{zip_path} contains an unsafe path {member.filename!r}")
        zf.extractall(target)
    if not (data_root / archive.expect).exists():
        raise FetchError(f"{zip_path} did not provide {archive.expect}")
    shutil.rmtree(data_root / "downloads", ignore_errors=True)
    return f"fetched  {target} (from {archive.url})"
