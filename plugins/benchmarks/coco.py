"""COCO val2017, the image folder SugarCrepe, SugarCrepe++, BiVLC and What'sUp share (so their images are
encoded once)."""

from __future__ import annotations

from pathlib import Path

from vlc_harness.datafiles import ImageArchive
from vlc_harness.sources import ImageFolder

COCO_VAL2017 = "http://images.cocodataset.org/zips/val2017.zip"
MARKER = "000000000139.jpg"
"""The first file of val2017: present once the archive is extracted."""


def val2017_archives(images_dir: str) -> list[ImageArchive]:
    """The val2017 zip (about 780 MB), unzipped next to ``images_dir`` when that is the standard
    ``.../val2017`` folder; none for a custom layout (the user places the images)."""
    images = Path(images_dir)
    if images.is_absolute() or images.name != "val2017":
        return []
    return [ImageArchive(COCO_VAL2017, str(images.parent), str(images / MARKER))]


def val2017_hint(benchmark: str) -> str:
    """Where to get COCO val2017 and where to put it."""
    return (
        f"run `vlc-harness data fetch -b {benchmark} --images`, or download COCO val2017 ({COCO_VAL2017}) and "
        f"unzip it so that <data root>/coco/val2017/{MARKER} exists, or set the benchmark's images_dir param"
    )


def val2017(data_root: Path, images_dir: str, benchmark: str) -> ImageFolder:
    """COCO val2017 under ``images_dir`` (relative to the data root), with its archive and where to get it."""
    return ImageFolder(data_root / images_dir, val2017_hint(benchmark), tuple(val2017_archives(images_dir)))
