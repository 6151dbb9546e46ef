"""What to do about the cells of a run that have no number, by their reason codes: the advice of
``run``'s exit paragraph (:func:`vlc_harness.run.summary.exit_reason`), so that a run whose every cell
failed on non-finite scores is told to fix the model, not to fetch data and weights it already has.
Each code's fix lives in the reason table itself (:attr:`vlc_harness.reasons.Reason.fix`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from vlc_harness.reasons import Reason
from vlc_harness.store import CellRecord


def fixes_for(cells: Iterable[CellRecord], k: int = 3) -> str:
    """The fixes of the most frequent reason codes among ``cells`` (each once, the commonest first), as
    one sentence; the plain advice to read the messages when no cell has a known code."""
    counts = Counter(c.reason_code for c in cells if c.reason_code)
    seen: list[str] = []
    for code, _ in counts.most_common():
        reason = Reason._value2member_map_.get(str(code))
        fix = reason.fix if isinstance(reason, Reason) else None
        if fix and fix not in seen:
            seen.append(fix)
    if not seen:
        return "Read the cells' messages (`vlc-harness show`)"
    text = "; ".join(seen[:k])
    return text[0].upper() + text[1:]
