"""SugarCrepe++ example data: generated cases per subset (invented captions) on COCO-named images.

In the upstream layout with stand-in images (nothing from the dataset itself). The conformance
example and the tests write it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from vlc_harness.testing import write_standin_images
from vlc_harness_builtins.benchmarks.sugarcrepe_pp import SUBSETS
from vlc_harness_builtins.testing.benchmark_examples import Example, benchmark_example


def write_example(root: Path, per_subset: int = 2) -> dict[str, list[dict[str, Any]]]:
    """Write generated subset files in the upstream schema and stand-in COCO-named images."""
    folder = root / "sugarcrepe_pp"
    folder.mkdir(parents=True, exist_ok=True)
    colours = ["red", "blue", "green", "yellow"]
    written = {}
    for s, subset in enumerate(SUBSETS):
        records: list[dict[str, Any]] = []
        for k in range(per_subset):
            a, b = colours[k % 4], colours[(k + 1 + s) % 4]
            records.append(
                {
                    "id": k,
                    "filename": f"{s:06d}{k:06d}.jpg",
                    "caption": f"A {a} bus parked next to a {b} car.",
                    "caption2": f"Next to a {b} car, a {a} bus is parked.",
                    "negative_caption": f"A {b} bus parked next to a {a} car.",
                }
            )
        (folder / f"{subset}.json").write_text(json.dumps(records, indent=1), encoding="utf-8")
        write_standin_images([r["filename"] for r in records], root / "coco" / "val2017", (32, 24))
        written[subset] = records
    return written


@benchmark_example("sugarcrepe_pp")
def example(cls: type, tmp_path: Path) -> Example:
    """Two generated cases per subset (invented captions) and stand-in images."""
    root = tmp_path / "sugarcrepe_pp_example"
    write_example(root, per_subset=2)
    return {"version": "custom"}, root
