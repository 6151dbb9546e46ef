"""Repeated code in plugins/ stays rare: pylint's similarity checker (its ``duplicate-code`` check), at six
lines and more, imports and docstrings ignored, finds at most :data:`MAX_PAIRS` pairs of places.

Measured when the benchmarks were composed from data sources (issue 29; the pairs of places sharing a run
of 6+ lines): plugins/ 6 before, 2 after (naturalbench/vismin's export declarations, and the two tiny
generative test checkpoints); harness/ 1 before, 0 after; leaderboard/ 0.
"""

from __future__ import annotations

import contextlib
import io
import re
from math import comb
from pathlib import Path

from vlc_harness.testing import require

REPO = Path(__file__).resolve().parents[2]
MAX_PAIRS = 10
MIN_LINES = 6


def similar_pairs(folder: Path) -> tuple[int, str]:
    """Pairs of places sharing a run of :data:`MIN_LINES` or more lines under ``folder``, and the report."""
    from pylint.checkers.symilar import Symilar

    sim = Symilar(min_lines=MIN_LINES, ignore_docstrings=True, ignore_imports=True)
    for path in sorted(folder.rglob("*.py")):
        with open(path, encoding="utf-8") as f:
            sim.append_stream(str(path.relative_to(folder.parent)), f)
    report = io.StringIO()
    with contextlib.redirect_stdout(report):
        sim.run()
    text = report.getvalue()
    places = [int(m.group(1)) for m in re.finditer(r"^\d+ similar lines in (\d+) files$", text, re.MULTILINE)]
    return sum(comb(n, 2) for n in places), text


def test_plugins_repeat_little_code():
    require("pylint", "pylint (its similarity checker) is not installed")
    pairs, report = similar_pairs(REPO / "plugins")
    assert pairs <= MAX_PAIRS, f"{pairs} pairs of places in plugins/ share {MIN_LINES}+ lines:\n{report}"


def test_the_count_sees_a_planted_repeat(tmp_path):
    require("pylint", "pylint (its similarity checker) is not installed")
    body = "".join(f"    total = total + {k} * value\n" for k in range(MIN_LINES + 1))
    (tmp_path / "pkg").mkdir()
    for name in ("a", "b", "c"):
        (tmp_path / "pkg" / f"{name}.py").write_text(f"def {name}(value):\n    total = 0\n{body}    return total\n")
    pairs, _ = similar_pairs(tmp_path / "pkg")
    assert pairs == 3  # three places, every two of them a pair
