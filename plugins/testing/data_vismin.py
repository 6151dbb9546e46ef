"""VisMin example data: generated samples per category (invented captions).

In the upstream layout with stand-in images (nothing from the dataset itself). The conformance
example and the tests write it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from vlc_harness.testing import write_standin_images
from vlc_harness_builtins.benchmarks.vismin import ROWS
from vlc_harness_builtins.testing.benchmark_examples import Example, benchmark_example


def write_example(root: Path, per_category: int = 2) -> list[dict[str, Any]]:
    """Write a generated VisMin folder in the exported schema (invented captions, stand-in images)."""
    folder = root / "vismin"
    changes = {
        "object": ("a dog sits on the sofa", "a cat sits on the sofa"),
        "attribute": ("a red car parked by the road", "a blue car parked by the road"),
        "counting": ("two apples on a plate", "three apples on a plate"),
        "relation": ("a lamp to the left of a chair", "a lamp to the right of a chair"),
    }
    rows = []
    for category, (a, b) in changes.items():
        for k in range(per_category):
            key = f"{category[:3]}{k}"
            rows.append(
                {
                    "id": key,
                    "text_0": f"{a}, scene {k}",
                    "text_1": f"{b}, scene {k}",
                    "image_0": f"{key}_0.png",
                    "image_1": f"{key}_1.png",
                    "category": category,
                }
            )
    folder.mkdir(parents=True, exist_ok=True)
    (folder / ROWS).write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    write_standin_images([r[k] for r in rows for k in ("image_0", "image_1")], folder / "images", (32, 32))
    return rows


@benchmark_example("vismin")
def example(cls: type, tmp_path: Path) -> Example:
    """Two generated samples per category (invented captions) with stand-in images."""
    root = tmp_path / "vismin_example"
    write_example(root, per_category=2)
    return {"version": "custom"}, root
