"""The word-order audit: does a hard negative hold exactly the positive caption's words?

Captions are compared as multisets of lower-cased alphanumeric tokens ("A dog chases a cat." and
"a cat chases a dog" hold the same words). A pair whose two strings are the same after stripping
surrounding whitespace is ``identical-text``, not a word-order swap: scores are keyed by exact
text, so such a pair always ties and the audit would measure duplicate captions (hard positives'
15 same-word pairs and 111 of VL-CheckList's 113 are such duplicates). ``same-words`` is the same
multiset of words in a different string; ``different-words`` the rest.

This is computed at metric time from the instance texts, never stored in ``gold`` (gold feeds the
instance manifest); about 1.8 microseconds per caption, one pass per cell (no cache: VL-CheckList's
246,000 captions would hold ~100 MB).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from vlc_harness.metrics.aggregate import DIFFERENT_WORDS, IDENTICAL_TEXT, SAME_WORDS

TOKEN = re.compile(r"[a-z0-9]+")
SEPARATORS = {c: " " for c in range(128) if not chr(c).isdigit() and not ("a" <= chr(c) <= "z")}
"""Every ASCII character but ``[a-z0-9]``, to a space: what splits an ASCII caption into :data:`TOKEN`'s tokens."""


def word_bag(text: str) -> list[str]:
    """The caption's lower-cased alphanumeric tokens, sorted (a multiset)."""
    lower = text.lower()
    if lower.isascii():  # the same tokens as TOKEN finds, about twice as fast
        return sorted(lower.translate(SEPARATORS).split())
    return sorted(TOKEN.findall(lower))


def same_words(a: str, b: str) -> bool:
    """True when two captions hold the same words, whatever their order."""
    return word_bag(a) == word_bag(b)


def identical_text(a: str, b: str) -> bool:
    """True when two captions are the same string once surrounding whitespace is stripped."""
    return a.strip() == b.strip()


def audit_tag(gold: str, competitors: Sequence[str]) -> str:
    """``identical-text`` when a competitor is the gold string itself, else ``same-words`` when one
    holds the gold's words in another order, else ``different-words``."""
    stripped = gold.strip()  # identical_text, the gold stripped once (loops: a cell tags every instance)
    for other in competitors:
        if other.strip() == stripped:
            return IDENTICAL_TEXT
    bag = word_bag(gold)
    for other in competitors:
        if word_bag(other) == bag:
            return SAME_WORDS
    return DIFFERENT_WORDS


def pairwise_tag(instance: Any, gold: str, against: str | None) -> list[str]:
    """The audit tag of the gold text against its competitor(s) (see :func:`audit_tag`)."""
    texts = instance.texts
    if against is not None and against not in instance.gold:
        return []  # not an instance of this family (a benchmark mixing instance shapes)
    g = int(instance.gold.get(gold, 0))
    if against is not None:
        return [audit_tag(texts[g], [texts[int(instance.gold[against])]])]
    return [audit_tag(texts[g], [text for j, text in enumerate(texts) if j != g])]


def caption_pair_tag(instance: Any) -> list[str]:
    """For a 2x2 instance: the audit tag of its two captions."""
    if len(instance.texts) != 2:
        return []
    return [audit_tag(instance.texts[0], [instance.texts[1]])]
