"""Thumbnails of the images a benchmark declares redistributable (``images_redistributable``): the image
as the model saw it (its crop applied), at most :data:`THUMB_SIDE` pixels on its long side, as PNG.

The bytes are a function of the image file, its transform and Pillow's encoder alone (no timestamp, no
metadata), and the file is named by their digest, so the same store and data render the same files.
"""

from __future__ import annotations

import functools
import hashlib
import io
from pathlib import Path

from vlc_harness.types import ImageSource

THUMB_SIDE = 160
"""The long side of a thumbnail, in pixels (a smaller image keeps its size: never upscaled)."""


def thumbnail(source: ImageSource) -> tuple[str, bytes]:
    """``(file name, PNG bytes)`` of the thumbnail of ``source``; the name is the bytes' sha256 prefix."""
    data = _encoded(str(source.path), source.transform_spec(), _mtime(source.path))
    return f"{hashlib.sha256(data).hexdigest()[:16]}.png", data


def _mtime(path: Path) -> int:
    return path.stat().st_mtime_ns


@functools.lru_cache(maxsize=4096)
def _encoded(path: str, transform: str, mtime: int) -> bytes:
    """The PNG bytes (cached per file, transform and modification time: a release's copy reuses them)."""
    import json

    from PIL import Image

    from vlc_harness.images import load_image

    image = load_image(path, json.loads(transform) if transform else None)
    image.thumbnail((THUMB_SIDE, THUMB_SIDE), Image.Resampling.LANCZOS)
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", optimize=False, compress_level=9)
    return buffer.getvalue()
