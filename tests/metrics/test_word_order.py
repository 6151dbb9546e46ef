"""The word-order audit: values over the instances whose negative holds the positive's words."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from vlc_harness.benchmarks import InstanceScores
from vlc_harness.metrics.word_order import same_words, word_bag
from vlc_harness.params import build
from vlc_harness.types import ImageSource, Instance
from vlc_harness_builtins.benchmarks.sugarcrepe import SugarCrepe
from vlc_harness_builtins.benchmarks.winoground import Winoground


def test_same_words_ignores_order_case_and_punctuation():
    assert same_words("A dog chases a cat.", "a cat chases a DOG")
    assert not same_words("a dog chases a cat", "a dog chases the cat")
    assert not same_words("a dog", "a dog dog")  # a multiset, not a set


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


def test_2x2_benchmarks_audit_their_two_captions(tmp_path):
    from vlc_harness_builtins.benchmarks.winoground import write_example

    write_example(tmp_path, 6)
    bench = Winoground(build(Winoground.Params, {"version": "custom"}), tmp_path)
    instances = bench.load_instances()
    results = [InstanceScores(i, np.array([[0.9, 0.1], [0.2, 0.8]])) for i in instances]
    categories = {v.category for v in bench.compute(results) if v.metric == "group_score"}
    expected = any(same_words(*i.texts) for i in instances)
    assert ("same-words" in categories) == expected
    pytest.importorskip("numpy")
