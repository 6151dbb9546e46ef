"""Repeated code in plugins/ stays rare: at most :data:`MAX_PAIRS` pairs of places share a run of
:data:`MIN_LINES` or more lines, the rule of pylint's ``duplicate-code`` check (``min-similarity-lines=6``,
docstrings, comments, imports and blank lines ignored, surrounding whitespace stripped).

The count is done here rather than by pylint's ``Symilar``: pylint is no dependency of the project, its
checker took over two minutes on plugins/ on this machine, and pylint 4.1 reports a run shared by three
files as one pair. A pair of places is a maximal run of equal lines at two positions (two files, or two
spots of one file); a run shared by ``k`` places makes ``k * (k - 1) / 2`` pairs.

Measured with this count (issue 29): plugins/ 13 pairs at e659813 (before the plugin layer was reworked),
6 after; harness/ 2 and 2; leaderboard/ 0 and 0.
"""

from __future__ import annotations

import ast
import io
import tokenize
from collections import defaultdict
from itertools import combinations
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
MAX_PAIRS = 10
MIN_LINES = 6

Place = tuple[str, int]
"""A file and the index of a line among its code lines."""


def code_lines(source: str) -> list[str]:
    """The lines that count: stripped, without blank lines, comments, docstrings and imports."""
    tree = ast.parse(source)
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            skipped.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr):
            value = body[0].value
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                skipped.update(range(body[0].lineno, (body[0].end_lineno or body[0].lineno) + 1))
    comments = {
        tok.start[0]: tok.start[1]
        for tok in tokenize.generate_tokens(io.StringIO(source).readline)
        if tok.type == tokenize.COMMENT
    }
    out = []
    for number, line in enumerate(source.splitlines(), start=1):
        if number in skipped:
            continue
        if number in comments:
            line = line[: comments[number]]
        if line.strip():
            out.append(line.strip())
    return out


def similar_pairs(folder: Path) -> tuple[int, list[str]]:
    """Pairs of places under ``folder`` sharing a run of :data:`MIN_LINES`+ lines, and one line per run."""
    lines = {str(p.relative_to(folder.parent)): code_lines(p.read_text(encoding="utf-8")) for p in folder.rglob("*.py")}
    windows: dict[tuple[str, ...], list[Place]] = defaultdict(list)
    for name, code in sorted(lines.items()):
        for i in range(len(code) - MIN_LINES + 1):
            windows[tuple(code[i : i + MIN_LINES])].append((name, i))
    runs: dict[tuple[Place, ...], None] = {}
    for places in windows.values():
        for a, b in combinations(places, 2):
            if a[0] == b[0] and abs(a[1] - b[1]) < MIN_LINES:
                continue  # a run overlapping itself (e.g. repeated identical lines) is one place
            before_a, before_b = (a[0], a[1] - 1), (b[0], b[1] - 1)
            if before_a[1] >= 0 and before_b[1] >= 0 and _same_window(lines, before_a, before_b):
                continue  # not where the shared run starts: counted at its start
            runs[(a, b)] = None
    report = [f"{a[0]}:{a[1]} ~ {b[0]}:{b[1]}: {lines[a[0]][a[1]]!r}" for a, b in runs]
    return len(runs), report


def _same_window(lines: dict[str, list[str]], a: Place, b: Place) -> bool:
    wa, wb = lines[a[0]][a[1] : a[1] + MIN_LINES], lines[b[0]][b[1] : b[1] + MIN_LINES]
    return len(wa) == MIN_LINES and wa == wb


def test_plugins_repeat_little_code():
    pairs, report = similar_pairs(REPO / "plugins")
    assert pairs <= MAX_PAIRS, f"{pairs} pairs of places in plugins/ share {MIN_LINES}+ lines:\n" + "\n".join(report)


def test_the_count_sees_a_planted_repeat(tmp_path):
    body = "".join(f"    total = total + {k} * value  # step {k}\n" for k in range(MIN_LINES + 1))
    (tmp_path / "pkg").mkdir()
    for name in ("a", "b", "c"):
        (tmp_path / "pkg" / f"{name}.py").write_text(
            f'"""Module {name}."""\nimport os\n\n\ndef {name}(value):\n    """{name}."""\n    total = 0\n{body}'
            "    return total\n"
        )
    pairs, report = similar_pairs(tmp_path / "pkg")
    assert pairs == 3, report  # one run in three places: every two of them a pair


def test_the_count_ignores_what_pylint_ignores_and_short_runs(tmp_path):
    (tmp_path / "pkg").mkdir()
    doc = '    """' + "\n".join(f"    doc line {k}" for k in range(MIN_LINES + 2)) + '"""\n'
    imports = "".join(f"import mod{k}\n" for k in range(MIN_LINES + 2))
    short = "".join(f"    x = x + {k}\n" for k in range(MIN_LINES - 1))
    for name in ("a", "b"):
        (tmp_path / "pkg" / f"{name}.py").write_text(f"{imports}\n\ndef {name}(x):\n{doc}{short}    return {name!r}\n")
    pairs, report = similar_pairs(tmp_path / "pkg")
    assert pairs == 0, report
