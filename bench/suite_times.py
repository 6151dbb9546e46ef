"""The test suite's time per file, from a pytest junit XML (``--junitxml``), slowest first.

Each row is the seconds the file's tests took (setup, call and teardown summed over its tests,
as junit records them; under pytest-xdist that is time on the workers, not wall time), its test
count and its path. With ``--before OLD.xml`` each row also shows the file's seconds in the older
run and the ratio; a file moved since is matched by its name when the name is unique.

    python -m pytest -q --junitxml=after.xml
    python bench/suite_times.py after.xml [--before before.xml] [--top 15]
"""

from __future__ import annotations

import argparse
import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import PurePosixPath


def file_of(classname: str) -> str:
    """``tests.run.test_x`` or ``tests.run.test_x.TestClass`` as ``tests/run/test_x.py``."""
    parts = classname.split(".")
    while parts and not parts[-1].startswith("test_"):  # a test class (or a parametrized module's suffix)
        parts.pop()
    return "/".join(parts or classname.split(".")) + ".py"


def per_file(path: str) -> dict[str, tuple[float, int]]:
    """``{file: (seconds, tests)}`` of one junit XML."""
    seconds: dict[str, float] = defaultdict(float)
    counts: dict[str, int] = defaultdict(int)
    for case in ET.parse(path).getroot().iter("testcase"):
        name = file_of(case.get("classname", ""))
        seconds[name] += float(case.get("time", 0) or 0)
        counts[name] += 1
    return {name: (seconds[name], counts[name]) for name in seconds}


def suite_seconds(path: str) -> float:
    """The wall time pytest recorded for the whole run (the ``testsuite`` element's ``time``)."""
    root = ET.parse(path).getroot()
    suite = root if root.tag == "testsuite" else root.find("testsuite")
    return float(suite.get("time", 0)) if suite is not None else 0.0


def match(name: str, older: dict[str, tuple[float, int]]) -> tuple[float, int] | None:
    """The file's row in ``older``: the same path, else the one file with the same name (a moved file)."""
    if name in older:
        return older[name]
    same = [row for other, row in older.items() if PurePosixPath(other).name == PurePosixPath(name).name]
    return same[0] if len(same) == 1 else None


def table(after: dict[str, tuple[float, int]], before: dict[str, tuple[float, int]] | None, top: int | None) -> str:
    """The rows, slowest first (``top``: only that many)."""
    rows = sorted(after.items(), key=lambda kv: (-kv[1][0], kv[0]))[:top]
    lines = []
    for name, (secs, count) in rows:
        line = f"{secs:8.1f} {count:5d} {name}"
        if before is not None:
            old = match(name, before)
            line = (
                f"{secs:8.1f} {count:5d}  was {old[0]:7.1f} {old[1]:5d}  x{secs / old[0] if old[0] else 0:5.2f}  {name}"
                if old
                else f"{secs:8.1f} {count:5d}  was       -     -          {name}"
            )
        lines.append(line)
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("junit", help="a pytest --junitxml file")
    parser.add_argument("--before", help="an older run's junit XML, to compare with")
    parser.add_argument("--top", type=int, default=None, help="only the N slowest files")
    args = parser.parse_args()
    after = per_file(args.junit)
    before = per_file(args.before) if args.before else None
    total = sum(s for s, _ in after.values())
    print(f"{len(after)} files, {sum(c for _, c in after.values())} tests, {total:.1f} s in tests")
    print(f"wall (pytest's own clock): {suite_seconds(args.junit):.1f} s", end="")
    print(f", before {suite_seconds(args.before):.1f} s" if args.before else "")
    print(table(after, before, args.top))


if __name__ == "__main__":
    main()
