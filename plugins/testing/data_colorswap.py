"""ColorSwap example data: generated examples (invented captions).

In the upstream layout with stand-in images (nothing from the dataset itself). The conformance
example and the tests write it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from vlc_harness.testing import write_standin_images
from vlc_harness_builtins.testing.benchmark_examples import Example, benchmark_example


def write_example(root: Path, n: int = 6, split: str = "test") -> list[dict[str, Any]]:
    """Write a generated ColorSwap folder in the authors' schema (invented captions, stand-in images)."""
    folder = root / "colorswap"
    colours = ["red", "blue", "green", "yellow", "white", "black"]
    objects = [("umbrella", "dress"), ("cup", "plate"), ("car", "door"), ("hat", "scarf")]
    sources = ["midjourney", "dalle3", "stable_diffusion"]
    records: list[dict[str, Any]] = []
    for i in range(n):
        a, b = colours[i % 6], colours[(i + 3) % 6]
        x, y = objects[i % 4]
        records.append(
            {
                "id": 10 * i + 3,
                "caption_1": f"someone holding a {a} {x} wearing a {b} {y}",
                "caption_2": f"someone holding a {b} {x} wearing a {a} {y}",
                "image_1": f"images/img_{10 * i + 3}_1.png",
                "image_2": f"images/img_{10 * i + 3}_2.png",
                "image_source": sources[i % 3],
                "caption_source": "human" if i % 2 else "gpt-4",
            }
        )
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{split}.json").write_text(json.dumps(records, indent=1), encoding="utf-8")
    write_standin_images(
        [Path(r[k]).name for r in records for k in ("image_1", "image_2")], folder / "images", (32, 32)
    )
    return records


@benchmark_example("colorswap")
def example(cls: type, tmp_path: Path) -> Example:
    """Six generated examples (invented captions) with stand-in images."""
    root = tmp_path / "colorswap_example"
    write_example(root, 6)
    return {"version": "custom"}, root
