"""Exporting Hugging Face datasets into a benchmark's upstream layout, and reading the export back.

For plugins whose data is published as a Hugging Face dataset (BiVLC, ColorSwap, NaturalBench,
VisMin, Winoground): rows with a progress bar, image bytes written as stored (never re-encoded),
files moved into place only once complete; then the exported JSONL read back with errors that
name the line, and the check that an export and its images are all there.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from vlc_harness.datafetch import FetchError
from vlc_harness.errors import DataUnavailable
from vlc_harness.hashing import sha256_file


def short_sha256(path: Path) -> str:
    """The first 12 hex digits of a file's sha256, or ``missing``: how a data version names a file
    that is not pinned by its checksum."""
    return sha256_file(path)[:12] if path.is_file() else "missing"


def write_atomically(path: Path, data: bytes) -> None:
    """Write ``data`` through a ``.partial`` file moved into place, so a reader never sees half a file."""
    partial = path.with_name(path.name + ".partial")
    partial.write_bytes(data)
    partial.replace(path)


def stored_image_bytes(value: dict) -> bytes:
    """The bytes of an image a Hugging Face dataset stores undecoded (``datasets.Image(decode=False)``:
    its ``bytes``, else the file at its ``path``)."""
    return bytes(value["bytes"]) if value.get("bytes") else Path(value["path"]).read_bytes()


def image_suffix(data: bytes) -> str:
    """``.png`` or ``.jpg`` from an image's first bytes (``ValueError`` for anything else)."""
    if data.startswith(b"\x89PNG"):
        return ".png"
    if data.startswith(b"\xff\xd8\xff"):
        return ".jpg"
    raise ValueError("an image that is neither PNG nor JPEG")


def split_rows(split: Any, source: str, progress: bool = True) -> Iterator[tuple[int, Any]]:
    """``(index, row)`` of every row of a downloaded dataset split, with a progress bar while they are exported."""
    from tqdm import tqdm

    bar = tqdm(range(len(split)), desc=f"exporting {source}", unit="row", disable=not progress, file=sys.stderr)
    for k in bar:
        yield k, split[k]


def require_fields(source: str, row: dict, k: int, fields: tuple[str, ...]) -> None:
    """Raise :class:`FetchError` when row ``k`` of a downloaded dataset lacks one of ``fields``."""
    absent = [f for f in fields if f not in row]
    if absent:
        raise FetchError(f"{source} row {k} has no {', '.join(absent)}: the dataset's layout has changed")


def save_stored_image(value: dict, folder: Path, stem: str, where: str) -> str:
    """Write a dataset image's stored bytes (never re-encoded) as ``folder/stem.png|.jpg``; its file name."""
    data = stored_image_bytes(value)
    try:
        name = stem + image_suffix(data)
    except ValueError as exc:
        raise FetchError(f"{where}: {exc}") from None
    write_atomically(folder / name, data)
    return name


def read_jsonl(
    path: Path,
    title: str,
    fields: tuple[str, ...] = (),
    check: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
    key: str | None = None,
) -> list[dict[str, Any]]:
    """The rows of an exported JSONL file (blank lines skipped): each an object with ``fields``,
    then through ``check`` (which raises ``ValueError`` naming what is wrong); ``key`` must be
    unique. Problems raise :class:`DataUnavailable` naming ``title``, the file and the line."""
    rows = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError:
            raise DataUnavailable(f"{title}: line {n} of {path} is not JSON") from None
        absent = [f for f in fields if not isinstance(row, dict) or f not in row]
        if absent:
            raise DataUnavailable(f"{title}: line {n} of {path} lacks {', '.join(absent)}")
        try:
            rows.append(check(row) if check else row)
        except ValueError as exc:
            raise DataUnavailable(f"{title}: line {n} of {path}: {exc}") from None
    if key is not None:
        seen: set[str] = set()
        for row in rows:
            if str(row[key]) in seen:
                raise DataUnavailable(f"{title}: {path} repeats {key} {row[key]!r}")
            seen.add(str(row[key]))
    return rows


def present(path: Path, images: Path, names: list[str]) -> str | None:
    """The report line when an export and every image it names are already there, else ``None``."""
    if all((images / name).is_file() for name in names):
        return f"present  {path} and {len(names)} images"
    return None
