"""One table of exit codes: the README shows it as it is, and precedence keeps the old rule."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

from vlc_harness.exit_codes import PRECEDENCE, ExitCode, worst

README = Path(__file__).resolve().parents[2] / "README.md"


def test_the_readme_table_is_the_code_table():
    text = README.read_text(encoding="utf-8")
    rows = dict(re.findall(r"^\| (\d+) \| (.+) \|$", text, re.M))
    assert rows == {str(int(c)): c.meaning for c in ExitCode}
    order = re.search(r"the first in this order wins: ([\d, ]+) \(", text)
    assert order and [int(c) for c in order.group(1).split(", ")] == [int(c) for c in PRECEDENCE]


def test_every_code_has_a_place_in_the_precedence():
    assert sorted(PRECEDENCE) == sorted(ExitCode)


def test_codes_0_to_5_keep_the_highest_wins_rule_with_usage_first():
    old = [0, 1, 2, 3, 4, 5]
    for n in range(1, len(old) + 1):
        for codes in itertools.combinations(old, n):
            expected = 2 if 2 in codes else max(codes)
            assert worst(codes) == expected, codes
    assert worst([]) == ExitCode.OK
