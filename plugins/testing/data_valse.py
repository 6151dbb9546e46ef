"""VALSE example data: generated samples per instrument (one not valid).

In the upstream layout with stand-in images (nothing from the dataset itself). The conformance
example and the tests write it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from vlc_harness.testing import write_standin_images
from vlc_harness_builtins.benchmarks.valse import ValseParams, image_folder
from vlc_harness_builtins.testing.benchmark_examples import Example, benchmark_example

SOURCES = {
    "existence": ("visual7w", "test", ("v7w_{}.jpg",)),
    "plurals": ("coco2017", "val", ("{:012d}.jpg",)),
    "counting-hard": ("visual7w", "test", ("v7w_{}.jpg",)),
    "counting-small-quant": ("visual7w", "test", ("v7w_{}.jpg",)),
    "counting-adversarial": ("visual7w", "test", ("v7w_{}.jpg",)),
    "relations": ("coco_2017", "val", ("{:012d}.jpg",)),
    "action-replacement": ("SWiG", "test", ("walking_{}.jpg",)),
    "actant-swap": ("SWiG", "test", ("pushing_{}.jpg",)),
    "coreference-standard": ("VisDial_v1.0", "train", ("COCO_train2014_{:012d}.jpg", "COCO_val2014_{:012d}.jpg")),
    "coreference-hard": ("VisDial_v1.0", "val", ("VisualDialog_val2018_{:012d}.jpg",)),
    "foil-it": ("FOIL dataset", "test", ("COCO_val2014_{:012d}.jpg",)),
}
"""Per instrument: upstream ``dataset`` value, ``original_split`` and its image file name patterns (sample
``k`` takes pattern ``k`` modulo their number: coreference-standard has both COCO 2014 splits, as upstream)."""


def write_example(root: Path, per_instrument: int = 3) -> dict[str, dict[str, Any]]:
    """Write generated upstream-schema files (invented captions; the last sample of each file has
    ``mturk.caption == 1``, not valid) and stand-in images in the default folders."""
    params = ValseParams()
    (root / params.annotations_dir).mkdir(parents=True, exist_ok=True)
    written: dict[str, dict[str, Any]] = {}
    for n, (instrument, (dataset, split, patterns)) in enumerate(SOURCES.items()):
        records = {}
        for k in range(per_instrument):
            key, image = f"{instrument}_{split}_{k}", patterns[k % len(patterns)].format(1000 * n + k)
            records[key] = {
                "dataset": dataset,
                "original_split": split,
                "image_file": image,
                "linguistic_phenomena": instrument,
                "caption": f"There are {k + 2} dogs on the grass.",
                "foil": f"There are {k + 5} dogs on the grass.",
                "classes": str(k + 2),
                "classes_foil": str(k + 5),
                "mturk": {"foil": 0, "caption": 1 if k == per_instrument - 1 else 3 - k % 2, "other": 0},
            }
            write_standin_images([image], root / image_folder(params, records[key]), (24, 24))
        (root / params.annotations_dir / f"{instrument}.json").write_text(json.dumps(records, indent=1))
        written[instrument] = records
    return written


@benchmark_example("valse")
def example(cls: type, tmp_path: Path) -> Example:
    """Three generated samples per instrument (one not valid) with stand-in images."""
    root = tmp_path / "valse_example"
    write_example(root)
    return {"version": "custom"}, root
