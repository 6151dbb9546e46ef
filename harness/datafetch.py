"""Downloading pinned benchmark data into the data root, and checking what is there.

Every file is checked against its pinned sha256 while it streams in and only then moved into
place, so a partial or altered download never sits where a benchmark would read it. An image
archive is fetched over https (an ``http://`` URL is asked for as ``https://``: COCO's are declared
so) and checked against the sha256 its upstream publishes where there is one (a
:class:`~vlc_harness.datafiles.PinnedArchive`); where there is none (COCO publishes none), the
first download's is recorded in the data root's ``SHA256SUMS`` (``sha256sum``'s format, the archive
named by where it is downloaded: ``./downloads/val2017.zip``) and every later download is checked
against it: trust on first use. No archive member may land outside the folder it is extracted into.
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

from vlc_harness.datafiles import DataFile, ImageArchive, PinnedArchive
from vlc_harness.errors import HarnessError
from vlc_harness.hashing import sha256_file

ENV_MIRROR = "VLC_HARNESS_DATA_MIRROR"
TIMEOUT_S = 30.0
SUMS = "SHA256SUMS"
"""The data root's checksums file, where archives no upstream pins are recorded on first download."""


class FetchError(HarnessError):
    """A download failed or did not match its pinned checksum."""


class ChecksumMismatch(FetchError):
    """A download's sha256 is not the one expected: nothing was saved."""


def mirrored(url: str) -> str:
    """The URL to fetch: the original, or its path under ``$VLC_HARNESS_DATA_MIRROR``."""
    mirror = os.environ.get(ENV_MIRROR)
    if not mirror:
        return url
    parts = urllib.parse.urlsplit(url)
    return f"{mirror.rstrip('/')}/{parts.netloc}{parts.path}"


def download(url: str, dest: Path, sha256: str | None = None, progress: bool = True) -> str:
    """Stream ``url`` to ``dest`` (via a temporary file), checking ``sha256`` when given
    (:class:`ChecksumMismatch`, nothing saved)."""
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
        raise ChecksumMismatch(f"{source} has sha256 {got}, expected {sha256}; not saved")
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

    The archive is checked against its pinned sha256, else against the one its first download
    recorded in ``SHA256SUMS`` (recorded now when there is none yet); an archive already in
    ``downloads/`` is checked the same way before it is used. Members are checked before anything is
    extracted: each must land inside the target folder. Each image is identified by its own sha256
    when used.
    """
    if (data_root / archive.expect).exists():
        return f"present  {data_root / archive.expect}"
    url = over_https(archive.url)
    name = Path(urllib.parse.urlsplit(url).path).name
    zip_path = data_root / "downloads" / name
    key = f"./downloads/{name}"
    pinned = archive.sha256 if isinstance(archive, PinnedArchive) else None
    expected = pinned or recorded_sha256(data_root, key)
    pinned_by = "its published checksum" if pinned else f"recorded on first download in {data_root / SUMS}"
    if zip_path.is_file():
        got = sha256_file(zip_path)
        if expected is not None and got != expected:
            raise FetchError(
                f"{zip_path} has sha256 {got}, expected {expected} ({pinned_by}); not extracted, kept for inspection"
            )
    else:
        try:
            got = download(url, zip_path, expected, progress)
        except ChecksumMismatch as exc:
            raise ChecksumMismatch(f"{exc} (the expected one: {pinned_by})") from None
    target = data_root / archive.relpath
    target.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(zip_path) as zf:
        check_members(zf, target, zip_path)
        zf.extractall(target)
    if not (data_root / archive.expect).exists():
        raise FetchError(f"{zip_path} did not provide {archive.expect}")
    if expected is None:
        record_sha256(data_root, key, got)
        checked = f"sha256 {got} recorded on first download in {data_root / SUMS}: later downloads must match it"
    else:
        checked = f"sha256 verified, {pinned_by}"
    shutil.rmtree(data_root / "downloads", ignore_errors=True)
    return f"fetched  {target} (from {url}; {checked})"


def over_https(url: str) -> str:
    """``url`` with ``http://`` asked for as ``https://`` (an archive never comes over plain http)."""
    parts = urllib.parse.urlsplit(url)
    return urllib.parse.urlunsplit(parts._replace(scheme="https")) if parts.scheme == "http" else url


def check_members(zf: zipfile.ZipFile, folder: Path, zip_path: Path) -> None:
    """Refuse an archive with a member that would land outside ``folder`` (``../x``, an absolute path,
    ``../<folder>-evil/x``: a string prefix of ``folder`` is no proof of being inside it)."""
    root = folder.resolve()
    for member in zf.infolist():
        if not (root / member.filename).resolve().is_relative_to(root):
            raise FetchError(f"{zip_path} contains an unsafe path {member.filename!r}; nothing was extracted")


def recorded_sha256(data_root: Path, name: str) -> str | None:
    """The sha256 ``SHA256SUMS`` in ``data_root`` records for ``name`` (``./downloads/x.zip``), if any."""
    path = data_root / SUMS
    if not path.is_file():
        return None
    for line in path.read_text(encoding="utf-8").splitlines():
        digest, _, recorded = line.partition("  ")
        if recorded.strip() == name and len(digest) == 64:
            return digest.lower()
    return None


def record_sha256(data_root: Path, name: str, digest: str) -> None:
    """Add ``name``'s sha256 to ``SHA256SUMS`` in ``data_root`` (``sha256sum``'s format)."""
    path = data_root / SUMS
    before = path.read_text(encoding="utf-8") if path.is_file() else ""
    if before and not before.endswith("\n"):
        before += "\n"
    partial = path.with_name(SUMS + ".partial")
    partial.write_text(f"{before}{digest}  {name}\n", encoding="utf-8")
    partial.replace(path)
