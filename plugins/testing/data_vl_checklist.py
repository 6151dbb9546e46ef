"""VL-CheckList example data: two generated items in each of six corpus files (one Object, Attribute
and Relation each from two sources).

In the upstream layout with stand-in images (nothing from VL-CheckList, whose data states no
license). The conformance example and the tests write it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from vlc_harness.testing import write_standin_images
from vlc_harness_builtins.benchmarks.vl_checklist import CORPUS, IMAGE_ROOTS
from vlc_harness_builtins.testing.benchmark_examples import Example, benchmark_example

CHOSEN = (
    "Attribute/color/vg",
    "Attribute/color/vaw",
    "Relation/action/vg",
    "Relation/action/swig",
    "Object/Size/large/vg_obj",
    "Object/Size/large/swig_agent",
)
"""The corpus files the example writes (categories as VL-CheckList names them)."""


def write_example(root: Path) -> dict[str, Any]:
    """Write the generated corpus files and their stand-in images under ``root``; returns the params."""
    colours = ["red", "blue", "green", "yellow"]
    for n, f in enumerate(c for c in CORPUS if c.category in CHOSEN):
        items = []
        for k in range(2):
            image = f"VG_100K/{n}{k}.jpg" if IMAGE_ROOTS[f.source] == "vg" else f"made_{n}{k}.jpg"
            pos, neg = colours[k], colours[(k + n + 1) % 4]
            items.append([image, {"POS": [f"{pos} square"], "NEG": [f"{neg} square"]}])
            target = root / "images" / IMAGE_ROOTS[f.source] / image
            write_standin_images([target.name], target.parent)
        path = root / "data" / f.relpath
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(items))
    return {"version": "custom", "annotations_dir": "data", "images_dir": "images"}


@benchmark_example("vl_checklist")
def example(cls: type, tmp_path: Path) -> Example:
    """Two generated items in each of six corpus files, stand-in images; nothing from VL-CheckList."""
    root = tmp_path / "vl_checklist_example"
    return write_example(root), root
