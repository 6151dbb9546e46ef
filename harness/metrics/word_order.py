"""The word-order audit: does a hard negative hold exactly the positive caption's words?

Captions are compared as multisets of lower-cased alphanumeric tokens ("A dog chases a cat." and
"a cat chases a dog" hold the same words). This is computed at metric time from the instance
texts, never stored in ``gold`` (gold feeds the instance manifest); about 3 microseconds per
caption, one pass per cell (no cache: VL-CheckList's 246,000 captions would hold ~100 MB).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from vlc_harness.metrics.aggregate import DIFFERENT_WORDS, SAME_WORDS

TOKEN = re.compile(r"[a-z0-9]+")


def word_bag(text: str) -> list[str]:
    """The caption's lower-cased alphanumeric tokens, sorted (a multiset)."""
    return sorted(TOKEN.findall(text.lower()))


def same_words(a: str, b: str) -> bool:
    """True when two captions hold the same words, whatever their order."""
    return word_bag(a) == word_bag(b)


def pairwise_tag(instance: Any, gold: str, against: str | None) -> list[str]:
    """``same-words`` when the gold text and a competitor hold the same words, else ``different-words``."""
    texts = instance.texts
    if against is not None and against not in instance.gold:
        return []  # not an instance of this family (a benchmark mixing instance shapes)
    g = int(instance.gold.get(gold, 0))
    others: Sequence[int] = (
        [int(instance.gold[against])] if against is not None else [j for j in range(len(texts)) if j != g]
    )
    bag = word_bag(texts[g])
    return [SAME_WORDS if any(word_bag(texts[j]) == bag for j in others) else DIFFERENT_WORDS]


def caption_pair_tag(instance: Any) -> list[str]:
    """For a 2x2 instance: ``same-words`` when its two captions hold the same words."""
    if len(instance.texts) != 2:
        return []
    return [SAME_WORDS if same_words(instance.texts[0], instance.texts[1]) else DIFFERENT_WORDS]
