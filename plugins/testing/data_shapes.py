"""Shapes example data: a small generated data root (the benchmark's own generator).

The conformance example and the tests write it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from vlc_harness_builtins.benchmarks.shapes import Shapes, ShapesParams
from vlc_harness_builtins.testing.benchmark_examples import Example, benchmark_example


def write_example(
    root: Path, n_scenes: int = 6, image_size: int = 32, seed: int = 0, parts: str = "all"
) -> tuple[dict[str, Any], Path]:
    """Generate a small shapes data root; returns ``(params, data_root)`` for ``Shapes`` or a run.

    Other tests use it as a fixture: ``parts="2x2"`` gives a small 2 images x 2 captions
    benchmark (image-to-text and text-to-image) with real, distinct images.
    """
    params = {"seed": seed, "n_scenes": n_scenes, "image_size": image_size, "parts": parts}
    from vlc_harness.params import build

    Shapes(build(ShapesParams, params), root).check_data()
    return params, root


@benchmark_example("shapes")
def example(cls: type, tmp_path: Path) -> Example:
    """Six scenes of 32 px: every kind, a few instances each."""
    return write_example(tmp_path / "shapes_example")
