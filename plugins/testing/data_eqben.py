"""EqBen example data: generated examples per subset (invented captions, one .npy frame pair).

In the upstream layout with stand-in images (nothing from the dataset itself). The conformance
example and the tests write it.
"""

from __future__ import annotations

import json
from pathlib import Path

from vlc_harness.testing import standin_image, write_standin_images
from vlc_harness_builtins.benchmarks.eqben import MINI_DIR, MINI_FILE, SUBSETS, convert_npy_frames
from vlc_harness_builtins.testing.benchmark_examples import Example, benchmark_example


def write_example(root: Path, per_subset: int = 2) -> list[dict[str, str]]:
    """Write a generated EqBen-Mini-format folder (all_select.json schema) with stand-in images.

    YouCook2 frames are written as BGR ``.npy`` arrays, as upstream stores them, and converted.
    Returns the records.
    """
    import numpy as np

    folder = root / "eqben" / MINI_DIR
    images = folder / "images"
    colours = ["red", "blue", "green", "yellow", "white"]
    records = []
    for s, subset in enumerate(SUBSETS):
        for k in range(per_subset):
            a, b = colours[(s + k) % 5], colours[(s + k + 2) % 5]
            ext = "npy" if subset == "eqbenyoucook2" else "png"
            rec = {
                "image0": f"{subset}/clip{k}/frame_0.{ext}",
                "image1": f"{subset}/clip{k}/frame_1.{ext}",
                "caption0": f"a person puts the {a} cup on the {b} table",
                "caption1": f"a person takes the {a} cup off the {b} table",
            }
            records.append(rec)
            for key in ("image0", "image1"):
                path = images / rec[key]
                if ext == "npy":
                    path.parent.mkdir(parents=True, exist_ok=True)
                    rgb = np.asarray(standin_image(rec[key], (24, 16)))
                    np.save(path, np.ascontiguousarray(rgb[:, :, [2, 1, 0]]))
                else:
                    write_standin_images([path.name], path.parent, (24, 16))
    folder.mkdir(parents=True, exist_ok=True)
    (folder / MINI_FILE).write_text(json.dumps(records, indent=1), encoding="utf-8")
    convert_npy_frames(images, records)
    return records


@benchmark_example("eqben")
def example(cls: type, tmp_path: Path) -> Example:
    """Two generated examples per subset (invented captions, stand-in images, one .npy frame pair)."""
    root = tmp_path / "eqben_example"
    write_example(root, per_subset=2)
    return {"version": "custom"}, root
