"""MMVP-VLM example data: generated patterns of 15 pairs (invented statements).

In the upstream layout with stand-in images (nothing from the dataset itself). The conformance
example and the tests write it.
"""

from __future__ import annotations

import csv
from pathlib import Path

from vlc_harness.testing import write_standin_images
from vlc_harness_builtins.benchmarks.mmvp_vlm import IMAGES, PAIRS_PER_PATTERN, PATTERNS, QUESTIONS
from vlc_harness_builtins.testing.benchmark_examples import Example, benchmark_example

TYPES = (
    "Orientation",
    "Presence",
    "State",
    "Quantity",
    "Spatial",
    "Color",
    "Structural_Character",
    "Text",
    "Camera_Perspective",
)
"""Folder names for generated data (the real ``Type`` values are whatever the CSV holds)."""


def write_example(root: Path, patterns: int = len(PATTERNS)) -> Path:
    """Write a generated MMVP-VLM folder: Questions.csv in the upstream schema and stand-in images.

    ``patterns`` blocks of 15 pairs (upstream's positional rule needs full blocks), with invented
    statements; Question IDs run 1, 2, ... as upstream's do.
    """
    folder = root / "mmvp_vlm"
    folder.mkdir(parents=True, exist_ok=True)
    rows = [["Question ID", "Type", "Statement"]]
    states = (("open", "closed"), ("up", "down"), ("lit", "dark"), ("on", "off"), ("red", "blue"))
    qid = 1
    for p in range(patterns):
        kind = TYPES[p]
        names = []
        for k in range(PAIRS_PER_PATTERN):
            a, b = states[k % len(states)]
            rows.append([str(qid), kind, f"the door number {k} is {a}"])
            rows.append([str(qid + 1), kind, f"the door number {k} is {b}"])
            names += [f"{qid}.jpg", f"{qid + 1}.jpg"]
            qid += 2
        write_standin_images(names, folder / IMAGES / kind, (32, 24))
    with open(folder / QUESTIONS, "w", newline="", encoding="utf-8") as f:
        csv.writer(f).writerows(rows)
    return root


@benchmark_example("mmvp_vlm")
def example(cls: type, tmp_path: Path) -> Example:
    """Two generated patterns of 15 pairs (invented statements) and stand-in images."""
    root = tmp_path / "mmvp_vlm_example"
    write_example(root, patterns=2)
    return {"version": "custom"}, root
