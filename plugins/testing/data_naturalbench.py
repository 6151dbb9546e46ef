"""NaturalBench example data: generated groups (invented questions).

In the upstream layout with stand-in images (nothing from the dataset itself). The conformance
example and the tests write it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from vlc_harness.testing import write_standin_images
from vlc_harness_builtins.benchmarks.naturalbench import OPTIONS, ROWS
from vlc_harness_builtins.testing.benchmark_examples import Example, benchmark_example


def write_example(root: Path, groups: int = 4) -> list[dict[str, Any]]:
    """Write a generated NaturalBench export (invented questions, stand-in images), both question types."""
    rows: list[dict[str, Any]] = []
    for k in range(groups):
        multiple = k % 2 == 1
        yes, no = OPTIONS["multiple_choice" if multiple else "yes_no"]
        option = " Option: A: red; B: blue;" if multiple else ""
        rows.append(
            {
                "Index": k,
                "Image_0": f"{k}_0.png",
                "Image_1": f"{k}_1.png",
                "Question_0": f"Is the ball in scene {k} red?{option}",
                "Question_1": f"Is the ball in scene {k} blue?{option}",
                "Image_0_Question_0": yes,
                "Image_1_Question_0": no,
                "Image_0_Question_1": no,
                "Image_1_Question_1": yes,
                "Question_Type": "multiple_choice" if multiple else "yes_no",
                "Source": "generated",
            }
        )
    folder = root / "naturalbench"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / ROWS).write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    write_standin_images([r[f"Image_{i}"] for r in rows for i in (0, 1)], folder / "images", (32, 32))
    return rows


@benchmark_example("naturalbench")
def example(cls: type, tmp_path: Path) -> Example:
    """Four generated groups (invented questions) with stand-in images."""
    root = tmp_path / "naturalbench_example"
    write_example(root, 4)
    return {"version": "custom"}, root
