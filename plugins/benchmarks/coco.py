"""COCO val2017, the image folder SugarCrepe and BiVLC share (so their images are encoded once)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from vlc_harness.benchmarks import ImageArchive

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


class Val2017Images:
    """Mixin for a benchmark whose images are COCO val2017 under its ``images_dir`` param."""

    params: Any
    type_name: str

    def image_archives(self) -> list[ImageArchive]:
        """COCO val2017 (about 780 MB), unzipped next to ``images_dir``."""
        return val2017_archives(self.params.images_dir)

    def image_dir(self) -> Path:
        """The COCO val2017 folder."""
        return self.path(self.params.images_dir)  # type: ignore[attr-defined]

    def image_hint(self) -> str:
        """Where to get COCO val2017."""
        return val2017_hint(self.type_name)
