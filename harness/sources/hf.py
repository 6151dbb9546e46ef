"""Hugging Face dataset splits: loading one with its images undecoded, and writing rows and image bytes as stored.

For benchmarks whose data is published as a Hugging Face dataset (BiVLC, ColorSwap, NaturalBench,
VisMin, Winoground): ``datasets`` (``pip install 'vlc-harness[data]'``) is imported only when a split is
loaded; image bytes are written as stored (never re-encoded), files moved into place only once complete.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vlc_harness.datafetch import FetchError


@dataclass(frozen=True)
class HfSplit:
    """One split of a Hugging Face dataset, and how to load it.

    ``revision`` pins a hub commit; ``images`` are the image columns, loaded undecoded (their stored bytes);
    ``on_disk`` names the folder of a ``save_to_disk`` dataset inside a hub snapshot (opened with
    ``datasets.load_from_disk``, as VisMin's own code does); ``gated`` says what to do when the dataset is
    gated (accept its terms, log in).
    """

    dataset: str
    split: str
    revision: str | None = None
    images: tuple[str, ...] = ()
    on_disk: str | None = None
    gated: str = ""

    @property
    def name(self) -> str:
        """The dataset, with its revision's first 7 digits when one is pinned."""
        return f"{self.dataset}@{self.revision[:7]}" if self.revision else self.dataset

    def load(self, what: str, progress: bool = True, snapshot_dir: Path | None = None) -> Any:
        """The split, its image columns undecoded; a missing library or a failed load is a :class:`FetchError`."""
        try:
            import datasets

            if self.on_disk is not None:
                import huggingface_hub  # noqa: F401
        except ImportError:
            raise FetchError(
                f"{what} comes from the Hugging Face dataset {self.dataset}, which needs `datasets`: "
                "pip install 'vlc-harness[data]'"
            ) from None
        if not progress:
            datasets.disable_progress_bars()
        try:
            split = self._load(datasets, snapshot_dir)
        except Exception as exc:  # gated, offline, not found: the hub and datasets raise many types
            gated = f". {self.gated}" if self.gated else ""
            raise FetchError(f"cannot load {self.name} ({self.split}): {type(exc).__name__}: {exc}{gated}") from None
        for column in self.images:
            split = split.cast_column(column, datasets.Image(decode=False))
        return split

    def _load(self, datasets: Any, snapshot_dir: Path | None) -> Any:
        if self.on_disk is None:
            pinned = {"revision": self.revision} if self.revision else {}
            return datasets.load_dataset(self.dataset, split=self.split, **pinned)
        from huggingface_hub import snapshot_download

        local = snapshot_download(
            self.dataset, repo_type="dataset", revision=self.revision, local_dir=str(snapshot_dir)
        )
        return datasets.load_from_disk(str(Path(local) / self.on_disk))[self.split]


def download_snapshot(dataset: str, revision: str, folder: Path, what: str) -> None:
    """Download a hub dataset repository at a pinned commit into ``folder`` (``huggingface_hub``, imported
    here); a missing library or a failed download is a :class:`FetchError`."""
    try:
        from huggingface_hub import snapshot_download
    except ImportError:
        raise FetchError(
            f"{what} comes from the Hugging Face dataset {dataset}, which needs huggingface_hub: "
            "pip install 'vlc-harness[data]'"
        ) from None
    try:
        snapshot_download(dataset, repo_type="dataset", revision=revision, local_dir=str(folder))
    except Exception as exc:  # the hub raises many types (offline, not found, HTTP)
        raise FetchError(f"cannot download {dataset}@{revision[:7]}: {type(exc).__name__}: {exc}") from None


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


def require_fields(source: str, row: dict, k: int, fields: Iterable[str]) -> None:
    """Raise :class:`FetchError` when row ``k`` of a downloaded dataset lacks one of ``fields``."""
    absent = [f for f in fields if f not in row]
    if absent:
        raise FetchError(f"{source} row {k} has no {', '.join(absent)}: the dataset's layout has changed")


def save_stored_image(value: dict, folder: Path, stem: str, where: str, suffix: str | None = None) -> str:
    """Write a dataset image's stored bytes (never re-encoded) as ``folder/stem`` with ``suffix``, else
    ``.png`` or ``.jpg`` as its bytes say; its file name."""
    data = stored_image_bytes(value)
    try:
        name = stem + (suffix or image_suffix(data))
    except ValueError as exc:
        raise FetchError(f"{where}: {exc}") from None
    write_atomically(folder / name, data)
    return name


def present(path: Path, images: Path, names: list[str]) -> str | None:
    """The report line when an export and every image it names are already there, else ``None``."""
    if all((images / name).is_file() for name in names):
        return f"present  {path} and {len(names)} images"
    return None
