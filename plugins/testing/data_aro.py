"""ARO example data: generated VG-Relation and VG-Attribution files and COCO/Flickr30k-Order captions
with a tag table.

In the upstream layout with stand-in images (nothing from the dataset itself). The conformance
example and the tests write it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from vlc_harness.testing import write_standin_images
from vlc_harness_builtins.benchmarks.pos_tagging import write_table
from vlc_harness_builtins.testing.benchmark_examples import Example, benchmark_example

ORDER_IMAGES = {
    "aro_coco_order": "val2014/COCO_val2014_{:012d}.jpg",
    "aro_flickr30k_order": "flickr30k-images/{:d}.jpg",
}
"""Each Order benchmark's image names, as its Karpathy-style annotation file writes them."""
EXAMPLE_RELATIONS = (("on", 3), ("behind", 2), ("wearing", 2), ("holding", 1), ("near", 2), ("floating above", 1))


EXAMPLE_PAIRS = (("white", "black", 26), ("red", "blue", 3), ("wooden", "metal", 2))


EXAMPLE_OBJECTS = ("dog", "table", "man", "shirt", "cup", "boat", "cat", "chair")


def write_vg_example(root: Path, relation: bool) -> Path:
    """Write a generated VG-Relation or VG-Attribution file (upstream schema) and stand-in images."""
    records: list[dict[str, Any]] = []
    groups: tuple[tuple[str, int] | tuple[str, str, int], ...] = EXAMPLE_RELATIONS if relation else EXAMPLE_PAIRS
    for g, group in enumerate(groups):
        count = group[-1]
        for k in range(count):
            a = EXAMPLE_OBJECTS[(g + k) % len(EXAMPLE_OBJECTS)]
            b = EXAMPLE_OBJECTS[(g + k + 3) % len(EXAMPLE_OBJECTS)]
            rec: dict[str, Any] = {
                "image_path": f"{9_000_000 + 100 * g + k % 2}.jpg",
                "bbox_x": 2 + k % 3,
                "bbox_y": 1,
                "bbox_w": 40,
                "bbox_h": 30 + k % 5,
            }
            if relation:
                rel = group[0]
                rec |= {"relation_name": rel, "true_caption": f"the {a} is {rel} the {b}"}
                rec["false_caption"] = f"the {b} is {rel} the {a}"
            else:
                x, y = group[0], group[1]
                rec |= {"attributes": [x, y], "true_caption": f"the {x} {a} and the {y} {b}"}
                rec["false_caption"] = f"the {y} {a} and the {x} {b}"
            records.append(rec)
    name = "visual_genome_relation.json" if relation else "visual_genome_attribution.json"
    (root / "aro").mkdir(parents=True, exist_ok=True)
    (root / "aro" / name).write_text(json.dumps(records, indent=1), encoding="utf-8")
    write_standin_images({r["image_path"] for r in records}, root / "aro" / "images")
    return root


EXAMPLE_CAPTIONS = (
    ("A small dog sleeping on a red sofa.", "DT JJ NN VBG IN DT JJ NN ."),
    ("Two men riding horses on the beach.", "CD NNS VBG NNS IN DT NN ."),
    ("A cat.", "DT NN ."),
    ("The tall man holds an old umbrella near the door.", "DT JJ NN VBZ DT JJ NN IN DT NN ."),
    ("A bowl of fruit on a wooden table.", "DT NN IN NN IN DT JJ NN ."),
    ("Green bus", "JJ NN"),
)


def example_tag_entries() -> list[tuple[str, list[tuple[str, str]], list[str]]]:
    """The generated captions with hand-written PTB tags; words split as NLTK would split them."""
    out = []
    for caption, tags in EXAMPLE_CAPTIONS:
        tokens = caption.replace(".", " .").split()
        tagged = list(zip(tokens, tags.split()))
        assert len(tagged) == len(tokens)
        out.append((caption, tagged, tokens))
    return out


def write_order_example(root: Path, annotation_file: str, image_pattern: str, images_dir: str) -> dict[str, Any]:
    """Write a generated Karpathy-style file, its tag table and stand-in images; returns the params."""

    captions = [c for c, _ in EXAMPLE_CAPTIONS]
    annotations: list[dict[str, Any]] = [
        {"image": image_pattern.format(100 + k), "caption": captions[2 * k : 2 * k + 2]}
        for k in range(len(captions) // 2)
    ]
    (root / "karpathy").mkdir(parents=True, exist_ok=True)
    (root / "karpathy" / annotation_file).write_text(json.dumps(annotations, indent=1), encoding="utf-8")
    write_table(root / "karpathy" / "order_tags.json", example_tag_entries())
    for ann in annotations:
        image = Path(ann["image"])
        write_standin_images([image.name], root / images_dir / image.parent)
    return {"version": "custom", "tagger": "table:karpathy/order_tags.json", "seeds": [0, 1]}


@benchmark_example("aro_vg_relation")
def vg_relation_example(cls: type, tmp_path: Path) -> Example:
    """Generated relation cases (one symmetric relation among them) and stand-in images."""
    root = tmp_path / "aro_vgr_example"
    write_vg_example(root, relation=True)
    return {"version": "custom"}, root


@benchmark_example("aro_vg_attribution")
def vg_attribution_example(cls: type, tmp_path: Path) -> Example:
    """Generated attribution cases (one pair above the 25-case threshold) and stand-in images."""
    root = tmp_path / "aro_vga_example"
    write_vg_example(root, relation=False)
    return {"version": "custom"}, root


@benchmark_example("aro_coco_order", "aro_flickr30k_order")
def order_example(cls: Any, tmp_path: Path) -> Example:
    """Generated captions with a tag table (no spaCy needed) and stand-in images (COCO- or Flickr30k-Order)."""
    root = tmp_path / f"{cls.type_name}_example"
    image = ORDER_IMAGES[cls.type_name]
    return write_order_example(root, cls.annotation_file, image, cls.Params().images_dir), root
