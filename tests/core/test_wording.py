"""Counted nouns in agreement (`vlc_harness.wording`) and the averaging texts that use them."""

from __future__ import annotations

import pytest

from vlc_harness.metrics.aggregate import Macro
from vlc_harness.wording import plural, plural_of, singular_of


def test_regular_nouns_go_both_ways():
    for one, many in [("category", "categories"), ("subset", "subsets"), ("day", "days"), ("sub-type", "sub-types")]:
        assert plural_of(one) == many and singular_of(many) == one
    assert plural(1, "seed") == "1 seed" and plural(0, "seed") == "0 seeds"


def test_a_phrase_has_no_guessed_singular():
    with pytest.raises(ValueError, match="name its singular"):
        singular_of("attribute pairs with at least 25 cases")


def test_macro_counts_its_members_in_agreement():
    one = Macro(what="attribute pairs with at least 25 cases", one="attribute pair with at least 25 cases")
    assert one._node("m", "all", "s", ["a_b"], one.what).averaging == (
        "macro: unweighted mean over 1 attribute pair with at least 25 cases"
    )
    assert one._node("m", "all", "s", ["a", "b"], one.what).averaging == (
        "macro: unweighted mean over 2 attribute pairs with at least 25 cases"
    )
    assert Macro()._node("m", "all", "s", ["x"], "categories").averaging == "macro: unweighted mean over 1 category"


def test_a_macro_over_a_phrase_must_declare_its_singular():
    with pytest.raises(ValueError, match="declare its singular as one="):
        Macro(what="attribute pairs with at least 25 cases")
