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

    Supported operations: ``crop: [x, y, w, h]`` (pixels, clipped to the image, as ARO crops
    Visual Genome boxes). An unknown operation is an error, never ignored.
    """
    from PIL import Image

    with Image.open(path) as im:
        if im.width * im.height > MAX_PIXELS:
            raise ImageTooLarge(f"{im.width}x{im.height} pixels is over the {MAX_PIXELS:,} limit (decompression bomb?)")
        image = im.convert("RGB")
    for op, arg in (transform or {}).items():
        if op == "crop":
            x, y, w, h = (float(v) for v in arg)
            box = (max(0, round(x)), max(0, round(y)), min(image.width, round(x + w)), min(image.height, round(y + h)))
            if box[2] <= box[0] or box[3] <= box[1]:
                raise ValueError(f"crop box {list(arg)} is empty for a {image.width}x{image.height} image")
            image = image.crop(box)
        else:
            raise ValueError(f"unknown image transform {op!r}")
    return image
