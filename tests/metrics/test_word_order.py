"""The word-order audit: values over the instances whose negative holds the positive's words in
another string (``same-words``), apart from the duplicates whose negative is the positive string
itself (``identical-text``), counted on the real data where ../shared/data has it."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from vlc_harness.benchmarks import InstanceScores
from vlc_harness.metrics.word_order import TOKEN, audit_tag, identical_text, same_words, word_bag
from vlc_harness.params import build
from vlc_harness.sources import gc_paused
from vlc_harness.types import ImageSource, Instance
from vlc_harness_builtins.benchmarks.bivlc import BiVLC
from vlc_harness_builtins.benchmarks.hard_positives import HardPositives
from vlc_harness_builtins.benchmarks.sugarcrepe import SugarCrepe
from vlc_harness_builtins.benchmarks.vl_checklist import VLCheckList
from vlc_harness_builtins.benchmarks.winoground import Winoground


def test_same_words_ignores_order_case_and_punctuation():
    assert same_words("A dog chases a cat.", "a cat chases a DOG")
    assert not same_words("a dog chases a cat", "a dog chases the cat")
    assert not same_words("a dog", "a dog dog")  # a multiset, not a set


ALPHABET = [*map(chr, range(128)), "\u212a", "\u0130", "é", "ß", "\u00a0", "\u3000", "\u2028", "Ａ"]
"""Every ASCII character, and letters and spaces outside it (the Kelvin sign lower-cases to an ASCII k)."""


def test_word_bag_finds_the_tokens_the_pattern_finds():
    """An ASCII caption is split by a translation table (twice as fast); its tokens are still the pattern's."""
    rng = random.Random(36)
    texts = ["".join(rng.choices(ALPHABET, k=rng.randrange(0, 24))) for _ in range(3000)]
    texts += ["A dog, chases\ta CAT!", "\u212aelvin", "x\u0130y", " ", "", "a_b-c.d"]
    for text in texts:
        assert word_bag(text) == sorted(TOKEN.findall(text.lower())), repr(text)


def test_identical_text_is_the_same_string_once_stripped_and_comes_before_same_words():
    assert identical_text(" a red cup", "a red cup\n")
    assert not identical_text("a red cup", "A red cup")  # a different string: scores may differ
    assert audit_tag("a red cup", ["a red cup "]) == "identical-text"
    assert audit_tag("a red cup", ["A red cup"]) == "same-words"
    assert audit_tag("a red cup", ["a cup red", "a red cup"]) == "identical-text"
    assert audit_tag("a red cup", ["a blue cup"]) == "different-words"


def bag_scores(instances):
    """An order-insensitive scorer: each caption's score depends on its words only."""
    return [
        InstanceScores(i, np.array([[float(sum(map(len, word_bag(t)))) for t in i.texts]] * len(i.images)))
        for i in instances
    ]


def audit(bench, metric: str) -> dict[str, tuple[int, int, float]]:
    """Per audit tag: (n, ties, value) of ``metric`` under the order-insensitive scorer."""
    with gc_paused():  # VL-CheckList: 123,234 instances and their scores, ~1M objects built in one go
        values = bench.compute(bag_scores(bench.load_instances()))
    tags = ("identical-text", "same-words", "different-words")
    return {v.category: (v.n, v.ties, v.value) for v in values if v.metric == metric and v.category in tags}


@pytest.mark.slow  # the real files of ../shared/data
def test_hard_positives_same_word_pairs_are_all_identical_strings(shared_data):
    bench = HardPositives(build(HardPositives.Params, {"forms": "replace"}), shared_data)
    counts = audit(bench, "orig_accuracy")
    assert counts["identical-text"] == (15, 15, 0.0)  # every one ties, and a tie is wrong
    assert "same-words" not in counts and counts["different-words"][0] == 27443 - 15


@pytest.mark.slow  # the real files of ../shared/data
def test_vl_checklist_has_111_identical_of_its_113_same_word_pairs(shared_data):
    bench = VLCheckList(build(VLCheckList.Params, {}), shared_data)
    counts = audit(bench, "i2t_accuracy")
    assert counts["identical-text"] == (111, 111, 0.0)
    assert counts["same-words"][:2] == (2, 2)  # a real swap: the order-insensitive scorer ties
    assert counts["different-words"][0] == 123234 - 113


def test_bivlc_has_227_swaps_and_no_identical_captions(shared_data):
    bench = BiVLC(build(BiVLC.Params, {"mode": "i2t-only"}), shared_data)
    counts = audit(bench, "i2t_only_i_pos2t")
    assert counts["same-words"][:2] == (227, 227) and "identical-text" not in counts
    assert counts["different-words"][0] == 2933 - 227


def test_sugarcrepe_pp_has_2_identical_p1_negative_pairs(shared_data):
    from vlc_harness_builtins.benchmarks.sugarcrepe_pp import SugarCrepePP

    bench = SugarCrepePP(build(SugarCrepePP.Params, {}), shared_data)
    counts = audit(bench, "p1_neg_accuracy")
    assert counts["identical-text"][:2] == (2, 2) and counts["same-words"][0] == 545
    assert "identical-text" not in audit(bench, "p2_neg_accuracy")


def test_sugarcrepe_upstream_has_574_same_word_negatives_all_in_the_swaps(shared_data):
    bench = SugarCrepe(build(SugarCrepe.Params, {"version": "upstream-7511"}), shared_data)
    instances = bench.load_instances()
    # an order-insensitive scorer: each caption's score depends on its words only
    results = [InstanceScores(i, np.array([[float(sum(map(len, word_bag(t)))) for t in i.texts]])) for i in instances]
    values = {(v.metric, v.category): v for v in bench.compute(results)}
    same = values[("i2t_accuracy", "same-words")]
    assert same.n == 574 and values[("i2t_accuracy", "different-words")].n == 7511 - 574
    # on the same-words subset such a scorer can only tie
    assert same.ties == same.n and same.value == 0.0
    assert values[("i2t_accuracy_ties_half", "same-words")].value == pytest.approx(0.5)
    assert ("i2t_accuracy", "identical-text") not in values  # no negative is its caption's own string


def test_the_audit_is_reported_only_when_some_instance_has_the_same_words():
    bench = SugarCrepe(build(SugarCrepe.Params, {}), Path("."))

    def inst(k: int, texts: tuple[str, str]) -> Instance:
        return Instance(f"swap_att/{k}", "swap_att", (ImageSource(Path("x.jpg")),), texts, {"positive": 0})

    different = [InstanceScores(inst(0, ("a red cup", "a blue cup")), np.array([[0.9, 0.1]]))]
    assert not any(v.category == "same-words" for v in bench.compute(different))
    swapped = [
        *different,
        InstanceScores(inst(1, ("a red cup, a blue plate", "a blue cup, a red plate")), np.array([[0.2, 0.8]])),
    ]
    values = {(v.metric, v.category): v for v in bench.compute(swapped)}
    assert (
        values[("i2t_accuracy", "same-words")].value == 0.0 and values[("i2t_accuracy", "different-words")].value == 1.0
    )
    assert values[("i2t_accuracy_ties_half", "same-words")].n == 1
    duplicate = [*swapped, InstanceScores(inst(2, ("a red cup", "a red cup ")), np.array([[0.5, 0.5]]))]
    values = {(v.metric, v.category): v for v in bench.compute(duplicate)}
    assert values[("i2t_accuracy", "identical-text")].n == 1 and values[("i2t_accuracy", "same-words")].n == 1
    only_duplicates = [*different, InstanceScores(inst(3, ("a red cup", "a red cup")), np.array([[0.5, 0.5]]))]
    categories = {v.category for v in bench.compute(only_duplicates)}
    assert "identical-text" in categories and "same-words" not in categories


def test_2x2_benchmarks_audit_their_two_captions(tmp_path):
    from vlc_harness_builtins.testing.data_winoground import write_example

    write_example(tmp_path, 6)
    bench = Winoground(build(Winoground.Params, {"version": "custom"}), tmp_path)
    instances = bench.load_instances()
    results = [InstanceScores(i, np.array([[0.9, 0.1], [0.2, 0.8]])) for i in instances]
    categories = {v.category for v in bench.compute(results) if v.metric == "group_score"}
    expected = any(same_words(*i.texts) and not identical_text(*i.texts) for i in instances)
    assert ("same-words" in categories) == expected
