"""Test helpers for vlc-harness and for plugin authors (shipped with the package).

The pytest plugin :mod:`vlc_harness.testing.pytest_plugin` is registered through the ``pytest11``
entry point, so any test suite in an environment with vlc-harness installed gets its fixtures.
A plugin package runs the shared conformance checks over every registered type with one line in
a test file::

    from vlc_harness.testing.conformance import *  # noqa: F401,F403
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from PIL import Image

CONFORMANCE_BENCHMARK = "conformance"
CONFORMANCE_VERSION = "1"
CONFORMANCE_INSTANCE = "grid/0"
CONFORMANCE_TEXTS = ("a red square above a blue circle", "a blue square above a red circle")


def in_ci() -> bool:
    """True when the CI environment variable says so (``CI=true``)."""
    return os.environ.get("CI", "").lower() in ("1", "true", "yes")


def require(module: str, reason: str | None = None) -> None:
    """Skip the test when ``module`` cannot be imported; under ``CI=true`` fail instead.

    A missed install step in CI must never pass as green.
    """
    if importlib.util.find_spec(module) is not None:
        return
    message = reason or f"{module} is not installed"
    if in_ci():
        pytest.fail(f"{message} (CI=true: a missing dependency is a failure, not a skip)")
    pytest.skip(message)


def standin_image(name: str, size: tuple[int, int] = (64, 48)) -> Image.Image:
    """A deterministic stand-in image for a file name: distinct names give distinct bytes."""
    from PIL import Image, ImageDraw

    digest = hashlib.sha256(name.encode()).digest()
    image = Image.new("RGB", size, tuple(digest[:3]))
    draw = ImageDraw.Draw(image)
    w, h = size
    for k in range(3):
        x0, y0 = digest[3 + 4 * k] % w, digest[4 + 4 * k] % h
        x1, y1 = x0 + 4 + digest[5 + 4 * k] % (w // 2), y0 + 4 + digest[6 + 4 * k] % (h // 2)
        draw.rectangle([x0, y0, x1, y1], fill=tuple(digest[16 + 3 * k : 19 + 3 * k]))
    return image


def write_standin_images(names: Iterable[str], folder: Path, size: tuple[int, int] = (64, 48)) -> int:
    """Write a stand-in JPEG for each file name under ``folder``; returns how many were written."""
    folder.mkdir(parents=True, exist_ok=True)
    count = 0
    for name in sorted(set(names)):
        path = folder / name
        if not path.exists():
            standin_image(name, size).save(path, quality=90)
            count += 1
    return count


def conformance_grid_lines() -> list[dict[str, object]]:
    """Scores-file lines covering the conformance grid (for the precomputed model's example)."""
    return [
        {
            "benchmark": CONFORMANCE_BENCHMARK,
            "version": CONFORMANCE_VERSION,
            "instance": CONFORMANCE_INSTANCE,
            "image": i,
            "text": j,
            "score": 0.25 * i + 0.5 * j + 0.125,
        }
        for i in range(2)
        for j in range(2)
    ]
