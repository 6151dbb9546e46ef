"""SeeTRUE example data: three generated sources of 4 pairs each (both labels).

In the upstream CSV layout with stand-in images (nothing from SeeTRUE, whose data states no
license). The conformance example and the tests write it.
"""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

from vlc_harness.testing import write_standin_images
from vlc_harness_builtins.benchmarks.seetrue import COLUMNS
from vlc_harness_builtins.testing.benchmark_examples import Example, benchmark_example


def write_example(root: Path) -> dict[str, Any]:
    """Write the generated CSV and its stand-in images under ``root``; returns the params."""
    (root / "seetrue").mkdir(parents=True, exist_ok=True)
    rows: list[list[Any]] = []
    for s, source in enumerate(("source_a", "source_b", "source_c")):
        for k in range(4):
            name = f"gen_{s}_{k}.png"
            rows.append([name, f"a {('red', 'blue')[k % 2]} square number {k}", k % 2, f"{s}_{k}", source])
    with open(root / "seetrue" / "generated.csv", "w", encoding="utf-8", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(COLUMNS)
        writer.writerows(rows)
    write_standin_images([r[0] for r in rows], root / "seetrue" / "images")
    return {"version": "custom", "csv": "seetrue/generated.csv"}


@benchmark_example("seetrue")
def example(cls: type, tmp_path: Path) -> Example:
    """Three generated sources of 4 pairs each (both labels), stand-in images; nothing from SeeTRUE."""
    root = tmp_path / "seetrue_example"
    return write_example(root), root
