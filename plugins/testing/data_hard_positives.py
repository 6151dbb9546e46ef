"""Hard positives example data: generated REPLACE and SWAP cases in the upstream schemas.

In the upstream layout with stand-in images (nothing from the dataset itself). The conformance
example and the tests write it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from vlc_harness.testing import write_standin_images
from vlc_harness_builtins.benchmarks.hard_positives import ORIGINAL, REPLACE_FILES, SWAP_FILE, SWAPPED
from vlc_harness_builtins.testing.benchmark_examples import Example, benchmark_example


def write_example(root: Path, forms: str = "replace+swap") -> Path:
    """Write generated REPLACE and/or SWAP files (upstream schemas) and stand-in images."""
    base = root / "hard_positives"
    if forms != "swap":
        words = {
            "replace_att": [
                ("walking", "strolling", "jumping"),
                ("brown", "chestnut", "blue"),
                ("small", "little", "huge"),
            ],
            "replace_rel": [("next to", "near", "far from"), ("on", "on top of", "under"), ("in", "within", "out of")],
        }
        nouns = ("elephant", "grass", "dog", "table")
        names: set[str] = set()
        for category, triples in words.items():
            orig, swapped = [], []
            for k in range(4):
                word, synonym, antonym = triples[k % len(triples)]
                noun, other = nouns[k], nouns[(k + 1) % len(nouns)]
                image_id = str(8_000_000 + 10 * len(names) + k)
                path = f"data/VG_100K{'_2' if k % 2 else ''}/{image_id}.jpg"
                names.add(path)
                if category == "replace_att":
                    c, cp, cn = f"{word} {noun}", f"{synonym} {noun}", f"{antonym} {noun}"
                else:
                    c, cp, cn = f"{noun} {word} {other}", f"{noun} {synonym} {other}", f"{noun} {antonym} {other}"
                orig.append({"image_id": image_id, "true_caption": c, "false_caption": cn, "image_path": path})
                swapped.append({"image_id": image_id, "true_caption": cp, "false_caption": cn, "image_path": path})
            for folder, records in ((ORIGINAL, orig), (SWAPPED, swapped)):
                (base / folder).mkdir(parents=True, exist_ok=True)
                (base / folder / REPLACE_FILES[category]).write_text(json.dumps(records, indent=1), encoding="utf-8")
        for path in names:
            rel = Path(path).relative_to(ORIGINAL)
            write_standin_images([rel.name], root / "visual_genome" / rel.parent)
    if forms != "replace":
        write_swap_example(base, root / "aro" / "images")
    return root


def write_swap_example(base: Path, images: Path, count: int = 5) -> None:
    """Generated SWAP cases: ARO VG-Attribution records and their conjunct-swapped hard positives."""
    attrs = (("crouched", "open", "cat", "door"), ("brown", "gray", "hair", "tie"), ("white", "red", "plane", "sky"))
    orig: list[dict[str, Any]] = []
    swapped: list[dict[str, Any]] = []
    for k in range(count):
        a1, a2, o1, o2 = attrs[k % len(attrs)]
        rec = {
            "image_path": f"{7_000_000 + k}.jpg",
            "bbox_x": 3,
            "bbox_y": 2 + k % 2,
            "bbox_w": 50,
            "bbox_h": 40,
            "attributes": [a1, a2],
            "true_caption": f"the {a1} {o1} and the {a2} {o2}",
            "false_caption": f"the {a2} {o1} and the {a1} {o2}",
        }
        orig.append(rec)
        swapped.append(rec | {"true_caption": f"the {a2} {o2} and the {a1} {o1}"})
    for folder, records in ((ORIGINAL, orig), (SWAPPED, swapped)):
        (base / folder).mkdir(parents=True, exist_ok=True)
        (base / folder / SWAP_FILE).write_text(json.dumps(records, indent=1), encoding="utf-8")
    write_standin_images([r["image_path"] for r in orig], images)


@benchmark_example("hard_positives")
def example(cls: type, tmp_path: Path) -> Example:
    """Generated REPLACE and SWAP cases in the upstream schemas, with stand-in images."""
    root = tmp_path / "hard_positives_example"
    write_example(root)
    return {"version": "custom"}, root
