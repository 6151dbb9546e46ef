"""Averaging texts as metric engine 2 wrote them: engine 3's intended rewording (issue 28 item 13), undone.

Engine 3 changed no value, n or tie count: it counts a Macro's members in agreement ("1 category",
not "1 categorie") and words each word-order tag's value on its own. Tests that compare cells or
records made under engine 2 with today's map today's texts back with :func:`reworded_back` and then
compare byte for byte, so any other change still fails them.
"""

from __future__ import annotations

import functools
import re
from typing import Any

BEFORE_ENGINE = "2"
"""The metric engine version the snapshot was made under (engine 3 only rewords averaging texts)."""
OLD_WORD_ORDER = (
    "micro: mean over the instances whose captions are the same words in another string (same-words), "
    "the same string (identical-text) or neither (different-words)"
)
OLD_SINGULARS = {
    "relation (ARO's symmetric relations excluded)": "relations (ARO's symmetric relations excluded)",
    "REPLACE sub-split": "REPLACE sub-split",
    "form (REPLACE, SWAP)": "forms (REPLACE, SWAP)",
}
"""Engine 3's singular phrases and what engine 2 wrote for them (``what.rstrip("s")``)."""
PAIRS = re.compile(r"attribute pair with at least (?P<n>\d+) cases?")
"""ARO VG-Attribution's singular (engine 2: ``attribute pairs with at least {n} case``)."""
ONE_MEMBER_PREFIX = "macro: unweighted mean over 1 "
ONE_MEMBER = re.compile(re.escape(ONE_MEMBER_PREFIX) + r"(?P<one>[^;:]+?)(?=[;:]|$)")
ONE_CASE = "at least 1 case"
MEAN_OVER = "mean over"


@functools.cache
def word_order_texts() -> tuple[str, ...]:
    """Engine 3's word-order averaging texts: the audit's own, then each tag's."""
    from vlc_harness.metrics.aggregate import AUDIT_TAGS, WordOrder

    audit = WordOrder(tags=lambda inst: ())
    return (audit.averaging(), *(audit.tag_averaging(t) for t in AUDIT_TAGS))


def could_be_reworded(text: str) -> bool:
    """False when :func:`as_engine_2` leaves ``text`` as it is: it holds no word-order text (each says "mean
    over"), no single member ("mean over" too) and no "at least 1 case", and no rewording adds one. Most
    strings of a record (ids, captions, paths) end here, which keeps a 120,000-instance record's walk short."""
    return MEAN_OVER in text or ONE_CASE in text


def as_engine_2(text: str) -> str:
    """An averaging text as engine 2 wrote it: the intended rewording of issue 28 item 13, undone.

    Engine 2 wrote a single member as ``what.rstrip("s")`` ("1 categorie", "1 attribute pairs with
    at least 25 case") and one sentence for every word-order tag; nothing else changed. A cell's
    text joins its aggregations' texts with "; ", so each part is reworded in place."""
    from vlc_harness.wording import plural_of

    if not could_be_reworded(text):
        return text
    for new in word_order_texts():
        text = text.replace(new, OLD_WORD_ORDER)

    def old_single(match: re.Match[str]) -> str:
        one = match["one"]
        pairs = PAIRS.fullmatch(one)
        if pairs:
            return f"macro: unweighted mean over 1 attribute pairs with at least {pairs['n']} case"
        return "macro: unweighted mean over 1 " + OLD_SINGULARS.get(one, plural_of(one).rstrip("s"))

    text = re.sub(re.escape(ONE_CASE) + r"\b", "at least 1 cases", text)  # engine 2 wrote "1 cases"
    return ONE_MEMBER.sub(old_single, text)


def reworded_back(value: Any) -> Any:
    """``value`` with every averaging text in it as engine 2 wrote it."""
    if isinstance(value, str):
        return as_engine_2(value) if could_be_reworded(value) else value
    if isinstance(value, dict):
        return {k: reworded_back(v) for k, v in value.items()}
    if isinstance(value, list):
        return [reworded_back(v) for v in value]
    return value
