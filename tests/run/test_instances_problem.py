"""What makes a plugin's instances unusable (``vlc_harness.run.prepare.instances_problem``): the pair check
is skipped only for the default pairs, which are in range by construction."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from vlc_harness.run.prepare import instances_problem
from vlc_harness.types import ImageSource, Instance, every_pair


def instance(key: str = "a/0", pairs: tuple[tuple[int, int], ...] | None = None) -> Instance:
    return Instance(key, "a", (ImageSource(Path("x.jpg")),), ("pos", "neg"), {"positive": 0}, pairs)


@dataclass(frozen=True)
class WidePairs(Instance):
    """A plugin's instance type that widens the pairs it needs past its texts."""

    def needed_pairs(self) -> tuple[tuple[int, int], ...]:
        return ((0, 0), (0, 5))


def test_default_pairs_pass_and_given_pairs_are_checked():
    assert instance().needed_pairs() is every_pair(1, 2)
    assert instances_problem("b", [instance(), instance("a/1", ((0, 1),))]) is None
    for bad in (((0, 2),), ((1, 0),), ((0, -1),), ((0,),), (("0", 1),), ((True, 0),)):
        problem = instances_problem("b", [instance(), instance("a/1", bad)])
        assert problem == "benchmark b instance 'a/1' needs a pair outside its images and texts", bad


def test_a_subclass_that_needs_other_pairs_is_checked_too():
    wide = WidePairs("a/1", "a", (ImageSource(Path("x.jpg")),), ("pos", "neg"))
    assert instances_problem("b", [instance(), wide]) == (
        "benchmark b instance 'a/1' needs a pair outside its images and texts"
    )
