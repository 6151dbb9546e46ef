"""SugarCrepe example data: two generated cases per subset (synthetic captions).

In the upstream layout with stand-in images on COCO-style names (nothing from the dataset
itself). The conformance example and the tests write it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from vlc_harness.testing import write_standin_images
from vlc_harness_builtins.benchmarks.sugarcrepe import SUBSETS
from vlc_harness_builtins.testing.benchmark_examples import Example, benchmark_example


def write_example(root: Path) -> dict[str, Any]:
    """Write two generated cases per subset and their stand-in images under ``root``; returns the params."""
    colours = ["red", "blue", "green", "yellow"]
    (root / "sugarcrepe").mkdir(parents=True, exist_ok=True)
    for i, subset in enumerate(SUBSETS):
        records = {
            str(k): {
                "filename": f"{i:06d}{k:06d}.jpg",
                "caption": f"a {colours[k]} square",
                "negative_caption": f"a {colours[(k + 1 + i) % 4]} square",
            }
            for k in range(2)
        }
        (root / "sugarcrepe" / f"{subset}.json").write_text(json.dumps(records))
        write_standin_images([r["filename"] for r in records.values()], root / "coco" / "val2017", (32, 24))
    return {"version": "custom"}


@benchmark_example("sugarcrepe")
def example(cls: type, tmp_path: Path) -> Example:
    """Two generated cases per subset (synthetic captions) and stand-in images."""
    root = tmp_path / "sugarcrepe_example"
    return write_example(root), root
