"""The core metric families' conformance examples: the outcome sets their checks run on.

A testing plugin as a third party's would be (the ``conformance_example`` hook), registered by
:func:`vlc_harness.testing.examples.testing_plugins` whatever is installed. It answers for the
core's own classes only: a subclass (another ``name``, other columns) brings its own example.
Each family has several examples where one shape of instance would leave an option untried
(pairwise accuracy against every text and against one named competitor, and from answers).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from vlc_harness.hookspecs import hookimpl
from vlc_harness.metrics.aggregate import Macro, Micro, PerCategory
from vlc_harness.metrics.answers import QuestionImageGroup
from vlc_harness.metrics.auc import RocAuc
from vlc_harness.metrics.conjunction import AllCorrect
from vlc_harness.metrics.family import Family, FamilyExample
from vlc_harness.metrics.group import TextImageGroup
from vlc_harness.metrics.hard_positive import HardPositive, MeanScore
from vlc_harness.metrics.order import OrderAccuracy
from vlc_harness.metrics.pairwise import PairwiseAccuracy
from vlc_harness.metrics.text_only import TextOnlyTriplet
from vlc_harness.metrics.ties import TIE_RULES
from vlc_harness.types import ImageSource, Instance

CATEGORIES = ("a", "b")
WORDS = ("a red cup", "a cup red", "a red cup", "a blue cup", "a blue plate")
"""Texts drawn at random: the word-order audit sees identical, same-word and different captions."""
AGGREGATE = (PerCategory(), Micro(), Macro("{metric}_macro"))
HP_GOLD = {"original": 0, "positive": 1, "negative": 2}
MakeInstance = Callable[[int, np.random.Generator], Instance]


def _image(k: int) -> tuple[ImageSource, ...]:
    return (ImageSource(Path(f"{k}.png")),)


def _texts(rng: np.random.Generator, n: int) -> tuple[str, ...]:
    return tuple(str(w) for w in rng.choice(WORDS, n))


def one_image(n_texts: int, gold: dict[str, Any]) -> MakeInstance:
    """Instances of 1 image and ``n_texts`` random texts, in two categories (``gold["group"]``:
    consecutive pairs of instances share a group key)."""

    def make(k: int, rng: np.random.Generator) -> Instance:
        extra = {"group": f"g{k // 2}"} if "group" in gold else {}
        g = {key: v for key, v in gold.items() if key != "group"} | extra
        return Instance(f"{CATEGORIES[k % 2]}/{k}", CATEGORIES[k % 2], _image(k), _texts(rng, n_texts), g)

    return make


def two_by_two(k: int, rng: np.random.Generator) -> Instance:
    """Winoground's shape: image ``i`` goes with text ``i``."""
    images = (ImageSource(Path(f"{k}a.png")), ImageSource(Path(f"{k}b.png")))
    return Instance(
        f"{CATEGORIES[k % 2]}/{k}", CATEGORIES[k % 2], images, _texts(rng, 2), {"matches": [[0, 0], [1, 1]]}
    )


def labelled(k: int, rng: np.random.Generator) -> Instance:
    """SeeTRUE's shape: one image-text pair and its 0/1 label."""
    return Instance(f"{CATEGORIES[k % 2]}/{k}", CATEGORIES[k % 2], _image(k), ("t",), {"label": (k // 2) % 2})


def order_instance(k: int, rng: np.random.Generator) -> Instance:
    """ARO Order's shape: a caption and four perturbations, some identical to it, per seed."""
    gold = {"identical": [bool(b) for b in rng.integers(0, 2, 4)]}
    return Instance(f"seed{k % 2}/{k}", f"seed{k % 2}", _image(k), _texts(rng, 5), gold)


def _pairwise() -> tuple[FamilyExample, ...]:
    rules: list[Family] = []
    for rule in TIE_RULES:
        rules.append(PairwiseAccuracy(f"acc_{rule}", "gold against every other text", AGGREGATE, tie_rule=rule))
        rules.append(
            PairwiseAccuracy(
                f"orig_{rule}", "c against c_n", AGGREGATE, tie_rule=rule, gold="original", against="negative"
            )
        )
    answers = PairwiseAccuracy("choice", "answers", AGGREGATE)
    return (
        FamilyExample(tuple(rules), one_image(3, {"positive": 0})),
        FamilyExample(tuple(rules), one_image(3, HP_GOLD)),
        FamilyExample((answers,), one_image(2, {"positive": 0}), orders=2),
    )


def _group() -> tuple[FamilyExample, ...]:
    ids = {s: f"{s}_{{}}" for s in ("text", "image", "group", "image0", "image1", "caption0", "caption1")}
    rules = tuple(
        TextImageGroup({s: i.format(rule) for s, i in ids.items()}, AGGREGATE, tie_rule=rule) for rule in TIE_RULES
    )
    return (FamilyExample(rules, two_by_two),)


def _auc() -> tuple[FamilyExample, ...]:
    declared = (
        RocAuc("auc", "continuous"),
        RocAuc("auc_binary", "hard predictions", threshold=0.5),
        RocAuc("auc_micro", "pooled", AGGREGATE),
    )
    return (FamilyExample(declared, labelled),)


def _all_correct() -> tuple[FamilyExample, ...]:
    out: list[Family] = []
    for rule in TIE_RULES:
        base = PairwiseAccuracy(f"acc_{rule}", "per instance", (PerCategory(),), tie_rule=rule)
        key = lambda inst: inst.gold.get("group")  # noqa: E731
        out.append(AllCorrect(f"pair_{rule}", "both", base, key, AGGREGATE, size=2))
        out.append(AllCorrect(f"any_size_{rule}", "all present", base, key, (PerCategory(), Micro())))
    return (FamilyExample(tuple(out), one_image(3, {"positive": 0, "group": True})),)


def _order() -> tuple[FamilyExample, ...]:
    declared = tuple(
        OrderAccuracy(
            f"order_{rule}",
            ("p1", "p2", "p3", "p4"),
            description="the original caption beats its four perturbations",
            pairwise_id=f"pairwise_{rule}",
            identical_id=f"identical_{rule}",
            chance=0.2,
            tie_rule=rule,
        )
        for rule in TIE_RULES
    )
    return (FamilyExample(declared, order_instance),)


def _question_image_group() -> tuple[FamilyExample, ...]:
    ids = {"acc": "acc", "question": "q_acc", "image": "i_acc", "group": "g_acc"}
    return (FamilyExample((QuestionImageGroup(ids),), one_image(1, {}), orders=4),)


EXAMPLES: dict[type[Family], Callable[[], tuple[FamilyExample, ...]]] = {
    PairwiseAccuracy: _pairwise,
    TextImageGroup: _group,
    RocAuc: _auc,
    HardPositive: lambda: (FamilyExample((HardPositive(AGGREGATE),), one_image(3, HP_GOLD)),),
    MeanScore: lambda: (
        FamilyExample(
            tuple(MeanScore(r, AGGREGATE) for r in ("original", "positive", "negative")), one_image(3, HP_GOLD)
        ),
    ),
    OrderAccuracy: _order,
    QuestionImageGroup: _question_image_group,
    AllCorrect: _all_correct,
    TextOnlyTriplet: lambda: (FamilyExample((TextOnlyTriplet(AGGREGATE),), one_image(3, HP_GOLD), text_scores=True),),
}
"""Per core family type, its examples (a test checks every core family has some)."""


@hookimpl
def conformance_example(cls: type, tmp_path: Path) -> tuple[FamilyExample, ...] | None:
    """The examples of a core family class (``cls`` itself, not a subclass); else ``None``."""
    build = EXAMPLES.get(cls) if isinstance(cls, type) and issubclass(cls, Family) else None
    return None if build is None else build()
