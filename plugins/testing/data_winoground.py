"""Winoground example data: generated examples (synthetic captions) and generated tags.

The conformance example and the tests write it.
"""

from __future__ import annotations

import json
from pathlib import Path

from vlc_harness_builtins.benchmarks.winoground import EXAMPLES, TAGS
from vlc_harness_builtins.testing.benchmark_examples import Example, benchmark_example


def write_example(root: Path, n: int = 6) -> None:
    """A generated Winoground-format data root: examples.jsonl, stand-in PNGs and a tags file."""
    from PIL import Image

    folder = root / "winoground"
    (folder / "images").mkdir(parents=True, exist_ok=True)
    collapsed = ["Object", "Relation", "Both"]
    why_hard = [[], ["Visually Difficult"], ["Unusual Text", "Complex Reasoning"]]
    colours = ["red", "blue", "green", "yellow", "white", "black", "purple"]
    records, tags = [], {}
    for i in range(n):
        a, b = colours[i % 7], colours[(i + 2) % 7]
        records.append(
            {
                "id": i,
                "image_0": f"ex_{i}_img_0",
                "image_1": f"ex_{i}_img_1",
                "caption_0": f"a {a} cube left of a {b} ball",
                "caption_1": f"a {b} cube left of a {a} ball",
                "tag": collapsed[i % 3],
                "secondary_tag": "Symbolic" if i % 4 == 3 else "",
                "num_main_preds": 1 + i % 2,
                "collapsed_tag": collapsed[i % 3],
            }
        )
        tags[str(i)] = why_hard[i % 3]
        for k in (0, 1):
            Image.new("RGB", (36, 28), (40 * i % 256, 120 * k, 70)).save(folder / "images" / f"ex_{i}_img_{k}.png")
    (folder / EXAMPLES).write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    (folder / TAGS).write_text(json.dumps(tags), encoding="utf-8")


@benchmark_example("winoground")
def example(cls: type, tmp_path: Path) -> Example:
    """Six generated examples (synthetic captions, stand-in images) and generated tags."""
    root = tmp_path / "winoground_example"
    write_example(root, 6)
    return {"version": "custom"}, root
