"""BiVLC example data: generated instances per subset (rows and sources CSVs).

The conformance example and the tests write it.
"""

from __future__ import annotations

import csv
from pathlib import Path

from vlc_harness_builtins.benchmarks.bivlc import ROWS_FILE, SOURCES_FILE, TYPES
from vlc_harness_builtins.testing.benchmark_examples import Example, benchmark_example


def write_example(root: Path, per_subset: int = 2, with_negative_images: bool = True) -> list[str]:
    """Write a generated BiVLC-format data root (captions and stand-in images); returns COCO names.

    Synthetic captions only; the rows keep the CSV columns of the authors' files.
    """
    from PIL import Image

    (root / "bivlc" / "negative_images").mkdir(parents=True, exist_ok=True)
    (root / "coco" / "val2017").mkdir(parents=True, exist_ok=True)
    colours = ["red", "blue", "green", "yellow", "white"]
    rows: list[dict[str, str]] = []
    sources: list[dict[str, str]] = []
    names: list[str] = []
    k = 0
    for s_index, subset in enumerate(s for members in TYPES.values() for s in members):
        kind, sub = subset.split("_")
        for j in range(per_subset):
            name = f"{s_index:06d}{j:06d}.jpg"
            a, b = colours[j % 5], colours[(j + 1 + s_index) % 5]
            caption, negative = f"a {a} {sub} on a {kind} table", f"a {b} {sub} on a {kind} table"
            # an unused case before each used one, as in the real files
            sources.append(_source(len(sources), f"{name[:-4]}x.jpg", f"an unused {a} case", negative, kind, sub))
            # BiVLC re-cased and re-punctuated the captions it kept
            sources.append(_source(len(sources), name, caption + " ", negative.upper(), kind, sub))
            rows.append(
                {
                    "image": "<PIL image>",
                    "caption": caption[0].upper() + caption[1:] + ".",
                    "negative_caption": negative[0].upper() + negative[1:] + ".",
                    "negative_image": "<PIL image>",
                    "type": kind,
                    "subtype": sub,
                }
            )
            Image.new("RGB", (40, 30), (30 * s_index, 100 + 60 * j, 90)).save(root / "coco" / "val2017" / name)
            if with_negative_images:
                Image.new("RGB", (32, 32), (200, 30 * s_index, 40 + 80 * j)).save(
                    root / "bivlc" / "negative_images" / f"{k}.jpg"
                )
            names.append(name)
            k += 1
    _write_csv(root / "bivlc" / ROWS_FILE, rows)
    _write_csv(root / "bivlc" / SOURCES_FILE, sources)
    return names


def _write_csv(path: Path, rows: list[dict[str, str]]) -> None:
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]), quoting=csv.QUOTE_ALL)
        writer.writeheader()
        writer.writerows(rows)


def _source(index: int, filename: str, caption: str, negative: str, kind: str, sub: str) -> dict[str, str]:
    return {
        "filename": filename,
        "caption": caption,
        "negative_caption": negative,
        "type": kind,
        "subtype": sub,
        "index": str(index),
    }


@benchmark_example("bivlc")
def example(cls: type, tmp_path: Path) -> Example:
    """Two generated instances per subset, with stand-in images (full mode)."""
    root = tmp_path / "bivlc_example"
    write_example(root, per_subset=2)
    return {"version": "custom"}, root
