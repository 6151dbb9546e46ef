"""The run's cost budget (``--max-cost``): what API models may still spend, one at a time."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from vlc_harness.models import Usage


class RunBudget:
    """USD a run may spend on paid requests (``None``: no limit).

    With a limit, paid models run one at a time, so two never spend the same remainder: each is
    given what is left (:meth:`allowance`) and what it spent is added when it ends.
    """

    def __init__(self, max_cost: float | None) -> None:
        self.max_cost = max_cost
        self.spent = 0.0
        self._lock = threading.Lock()

    @contextmanager
    def spending(self, paid: bool) -> Iterator[float | None]:
        """Hold the budget for one model's job; yields its allowance (``None``: unlimited)."""
        if not paid or self.max_cost is None:
            yield None
            return
        with self._lock:
            yield max(0.0, self.max_cost - self.spent)

    def add(self, usage: Usage) -> None:
        """Count what a model spent."""
        self.spent += usage.cost_usd or 0.0

    def stopped_message(self, reason: str | None) -> str | None:
        """The cell error line for a model that stopped before exceeding the budget."""
        if not reason:
            return None
        limit = f" ${self.max_cost:g}" if self.max_cost is not None else ""
        return (
            f"stopped before exceeding --max-cost{limit}: {reason}; the requests not sent are not stored "
            "(rerun, with a larger --max-cost, to send them)"
        )
