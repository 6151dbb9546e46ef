"""What'sUp example data: generated items of all six subsets (invented objects).

In the upstream layout with stand-in images (nothing from the dataset itself). The conformance
example and the tests write it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from vlc_harness.testing import write_standin_images
from vlc_harness_builtins.benchmarks.whatsup import FILES
from vlc_harness_builtins.testing.benchmark_examples import Example, benchmark_example

CONTROLLED_PREPOSITIONS = {
    "controlled_a": ("on", "under", "left_of", "right_of"),
    "controlled_b": ("in-front_of", "behind", "left_of", "right_of"),
}


def _phrase(prep: str) -> str:
    return {"left_of": "to the left of", "right_of": "to the right of", "in-front_of": "in front of"}.get(prep, prep)


def write_example(root: Path, pairs: int = 2) -> dict[str, list[Any]]:
    """Write generated files of all six subsets in the upstream schemas, and stand-in images."""
    folder = root / "whatsup"
    folder.mkdir(parents=True, exist_ok=True)
    objects = (("mug", "plate"), ("book", "box"), ("cup", "bowl"))
    data: dict[str, list[Any]] = {}
    for subset, images_dir in (("controlled_a", "controlled_images"), ("controlled_b", "controlled_clevr")):
        preps = CONTROLLED_PREPOSITIONS[subset]
        records: list[Any] = []
        for a, b in objects[:pairs]:
            for prep in preps:
                options = [f"A {a} {_phrase(p)} a {b}" for p in (prep, *[q for q in preps if q != prep])]
                records.append({"image_path": f"data/{images_dir}/{a}_{prep}_{b}.jpeg", "caption_options": options})
        write_standin_images([Path(r["image_path"]).name for r in records], folder / images_dir, (24, 24))
        data[subset] = records
    qa = {
        "coco_one_obj": [("A dog on the left", "A dog on the right"), ("A cat on the top", "A cat on the bottom")],
        "coco_two_obj": [
            ("A dog to the left of a car", "A dog to the right of a car"),
            ("A lamp above a bed", "A lamp below a bed"),
        ],
        "gqa_one_obj": [("A bird on the right", "A bird on the left"), ("A sign on the bottom", "A sign on the top")],
        "gqa_two_obj": [
            ("A man in front of a bus", "A man behind a bus"),
            ("A hat on top of a box", "A hat under a box"),
        ],
    }
    for n, (subset, items) in enumerate(qa.items()):
        records = [[139 + 1000 * n + k, caption, foil] for k, (caption, foil) in enumerate(items)]
        if subset.startswith("coco"):
            write_standin_images([f"{str(r[0]).zfill(12)}.jpg" for r in records], root / "coco" / "val2017", (24, 24))
        else:
            write_standin_images([f"{r[0]}.jpg" for r in records], folder / "vg_images", (24, 24))
        data[subset] = records
    for subset, records in data.items():
        (folder / FILES[subset][0]).write_text(json.dumps(records, indent=1), encoding="utf-8")
    return data


@benchmark_example("whatsup")
def example(cls: type, tmp_path: Path) -> Example:
    """Generated items for all six subsets (invented objects) with stand-in images."""
    root = tmp_path / "whatsup_example"
    write_example(root)
    return {"version": "custom"}, root
