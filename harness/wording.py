"""Counted nouns in agreement, for every sentence the harness and the board write.

``plural(1, "subset")`` is ``1 subset``; ``plural(3, "category")`` is ``3 categories``. A phrase whose
head noun is not its last word names both forms: ``plural(n, "attribute pair with at least 25 cases",
"attribute pairs with at least 25 cases")``.
"""

from __future__ import annotations

VOWELS = "aeiou"


def plural_of(word: str) -> str:
    """The plural of one English noun by the regular rule: ``category`` to ``categories``, else ``+s``."""
    if word.endswith("y") and word[-2:-1] not in VOWELS:
        return word[:-1] + "ies"
    return word + "s"


def singular_of(word: str) -> str:
    """The singular of one regular plural noun (``categories``, ``sub-types``); a phrase is refused,
    because its head noun need not be its last word (declare the singular instead)."""
    if not word or any(c.isspace() for c in word) or not word.endswith("s"):
        raise ValueError(f"{word!r} is not one regular plural noun: name its singular explicitly")
    if word.endswith("ies") and len(word) > 3 and word[-4] not in VOWELS:
        return word[:-3] + "y"
    return word[:-1]


def plural(count: int, one: str, many: str | None = None) -> str:
    """``count`` and the noun in agreement: ``1 benchmark``, ``2 benchmarks``, ``3 categories``.

    ``many`` is the plural where the regular rule (:func:`plural_of`) is wrong."""
    if count == 1:
        return f"{count} {one}"
    return f"{count} {plural_of(one) if many is None else many}"
