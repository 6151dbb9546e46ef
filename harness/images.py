"""Decoding images and applying canonical transforms (the transform is part of an image's key)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from PIL import Image

MAX_PIXELS = 64_000_000
"""Largest image decoded (width x height). Benchmark images are a few megapixels; a file whose
header claims more is refused before its pixels are read (a decompression bomb)."""


class ImageTooLarge(ValueError):
    """An image header claims more pixels than :data:`MAX_PIXELS`."""


def load_image(path: str | Path, transform: Mapping[str, Any] | None = None) -> Image.Image:
    """Decode an image file to RGB and apply its transform spec.

    Supported operations (``[x, y, w, h]`` in pixels, each edge rounded as Pillow's ``Image.crop``
    rounds it):

    * ``crop``: the box clipped to the image;
    * ``pad_crop``: Pillow's ``Image.crop`` of the box, black outside the image (ARO's crop,
      ``aro_datasets.py:57``). Inside the image both give the same pixels; a loader names
      ``pad_crop`` only for a box past the edge, so the image key of every other box is unchanged.

    An unknown operation is an error, never ignored.
    """
    from PIL import Image

    with Image.open(path) as im:
        if im.width * im.height > MAX_PIXELS:
            raise ImageTooLarge(f"{im.width}x{im.height} pixels is over the {MAX_PIXELS:,} limit (decompression bomb?)")
        image = im.convert("RGB")
    for op, arg in (transform or {}).items():
        if op not in ("crop", "pad_crop"):
            raise ValueError(f"unknown image transform {op!r}")
        left, top, right, bottom = crop_box(arg)
        if op == "crop":
            left, top, right, bottom = max(0, left), max(0, top), min(image.width, right), min(image.height, bottom)
        if right <= left or bottom <= top:
            raise ValueError(f"crop box {list(arg)} is empty for a {image.width}x{image.height} image")
        image = image.crop((left, top, right, bottom))
    return image


def crop_box(arg: Any) -> tuple[int, int, int, int]:
    """``[x, y, w, h]`` as Pillow's ``Image.crop`` reads ``(x, y, x + w, y + h)``: each edge rounded."""
    x, y, w, h = (float(v) for v in arg)
    return round(x), round(y), round(x + w), round(y + h)


def box_inside(arg: Any, size: tuple[int, int]) -> bool:
    """Whether a ``[x, y, w, h]`` box lies within an image of ``size`` (width, height) once rounded."""
    left, top, right, bottom = crop_box(arg)
    return left >= 0 and top >= 0 and right <= size[0] and bottom <= size[1]


def image_size(path: str | Path) -> tuple[int, int] | None:
    """(width, height) from an image file's header, or ``None`` when it cannot be opened."""
    from PIL import Image

    try:
        with Image.open(path) as im:
            return im.size
    except (OSError, ValueError):
        return None
