"""Tie rules of comparisons, and the expected credit when ties are broken at random.

A comparison asks whether a gold candidate beats a competitor. The rules a family may declare:

* ``wrong`` (the default, strict ``>``): a tie is lost;
* ``right``: a tie is won (the reference code counts ties as correct);
* ``first-index``: the candidate listed first wins a tie, as an ``argmax`` that returns the first
  maximum does (MMVP's reference code).

Whatever the rule, ``<metric>_ties_half`` reports the expected credit under random tie-breaking:
every strict order of an instance's scores consistent with its ties is equally likely. For one
gold against ``m`` tied competitors that is ``1/(m+1)``; for a 2x2 instance whose four scores are
all equal the group credit is 1/6 (both matched pairs above both mismatched ones: 4 of 24 orders).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable

import numpy as np

TIE_RULES = ("wrong", "right", "first-index")
"""Tie rules of comparison-based families."""
TIE_RULE_WORDS = {
    "wrong": "a tie is wrong (strict >)",
    "right": "a tie counts as correct (reference code)",
    "first-index": "a tie goes to the candidate listed first (reference code's argmax)",
    "half": "a tie counts half",
    "random": "ties broken at random (expected value)",
}
"""The tie rule a metric spec states, in words for readers (a rule not listed is shown as stated)."""


def tie_rule_words(rule: str) -> str:
    """A spec's tie rule in words (:data:`TIE_RULE_WORDS`), else as the spec states it."""
    return TIE_RULE_WORDS.get(rule, rule)


Beats = Callable[[int, int], np.ndarray]
"""``beats(a, b)``: per instance, whether entry ``a`` beats entry ``b`` (entries are columns)."""


def beats(entries: np.ndarray, rule: str) -> Beats:
    """Comparisons of the entry columns of ``entries`` (``[N, E]``) under a tie rule.

    For ``first-index`` the entry with the lower column index wins a tie, so list entries in
    candidate order.
    """
    if rule not in TIE_RULES:
        raise ValueError(f"unknown tie rule {rule!r} (known: {', '.join(TIE_RULES)})")

    def compare(a: int, b: int) -> np.ndarray:
        x, y = entries[:, a], entries[:, b]
        if rule == "wrong":
            return x > y
        if rule == "right":
            return x >= y
        return (x > y) | ((x == y) & (a < b))

    return compare


def any_tie(entries: np.ndarray) -> np.ndarray:
    """Per instance: are two of its entries equal?"""
    if entries.shape[1] < 2:
        return np.zeros(len(entries), dtype=bool)
    ordered = np.sort(entries, axis=1)
    return np.any(ordered[:, 1:] == ordered[:, :-1], axis=1)


def expected_under_random_ties(entries: np.ndarray, verdicts: Callable[[Beats], list[np.ndarray]]) -> list[np.ndarray]:
    """Per verdict, each instance's expected credit when its ties are broken uniformly at random.

    ``verdicts(beats)`` returns boolean arrays (one per metric) from strict comparisons. Instances
    without a tie get the strict verdicts; the others average the verdicts over every strict
    order of their entries (``E!`` orders, at most 120 for the five candidates of ARO Order).
    """
    strict = [np.asarray(v, dtype=np.float64) for v in verdicts(beats(entries, "wrong"))]
    tied = any_tie(entries)
    if not tied.any():
        return strict
    sub = entries[tied]
    width = entries.shape[1]
    totals = [np.zeros(len(sub)) for _ in strict]
    for order in itertools.permutations(range(width)):
        rank = np.asarray(order)

        def broken(a: int, b: int, rank: np.ndarray = rank) -> np.ndarray:
            x, y = sub[:, a], sub[:, b]
            return (x > y) | ((x == y) & (rank[a] > rank[b]))

        for total, verdict in zip(totals, verdicts(broken)):
            total += verdict
    count = math.factorial(width)
    for values, total in zip(strict, totals):
        values[tied] = total / count
    return strict
