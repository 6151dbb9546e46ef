"""Small registry files that several tests write: the seeded random model on a small generated shapes set."""

from __future__ import annotations

RANDOM_ON_TINY_SHAPES = """
models:
  - id: random
    type: random
    params: {seed: 0}
benchmarks:
  - id: tiny-shapes
    type: shapes
    params: {seed: 0, n_scenes: 20, image_size: 32}
"""
"""The seeded ``random`` model on 20 generated shapes scenes of 32 px: a grid that runs in seconds."""
