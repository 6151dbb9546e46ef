"""A cell's status: the one vocabulary the store, the run, the results API and the board share.

Stored cells are ``ok``, ``partial``, ``failed``, ``unavailable`` or ``skipped``
(:data:`STORED`); the board also shows ``not run`` for a (model, benchmark) with no stored cell.
A :class:`Status` is a ``str``, so it compares equal to what the store holds (``"ok"``) and is
written as its value everywhere (SQL, JSON, f-strings).
"""

from __future__ import annotations

from enum import Enum


class Status(str, Enum):
    """A cell's status, with the sentence the board shows for a cell of that status when its
    reason code has no words of its own (:attr:`reader`)."""

    reader: str

    def __new__(cls, value: str, reader: str) -> Status:
        member = str.__new__(cls, value)
        member._value_ = value
        member.reader = reader
        return member

    def __str__(self) -> str:
        return str(self.value)

    __hash__ = str.__hash__  # equal to its value, so hashed as it: dicts keyed by plain codes find members

    def __format__(self, spec: str) -> str:
        return format(str(self.value), spec)

    OK = "ok", "No published result for this cell."
    PARTIAL = (
        "partial",
        "Only part of the benchmark was scored (a limited or interrupted run), so no number is published.",
    )
    FAILED = "failed", "The evaluation failed on the machine that built this board."
    UNAVAILABLE = (
        "unavailable",
        "Not evaluated: the model's weights or the benchmark's data could not be had on the machine that built "
        "this board.",
    )
    SKIPPED = "skipped", "Not applicable: this model's way of scoring does not apply to this benchmark."
    NOT_RUN = "not run", "This model has not been evaluated on this benchmark yet."

    @property
    def has_number(self) -> bool:
        """``ok`` or ``partial``: the cell holds metric values (a partial one is never published)."""
        return self in (Status.OK, Status.PARTIAL)

    @property
    def loses_a_number(self) -> bool:
        """``failed`` or ``unavailable``: a cell that had a number before and now has this status is lost."""
        return self in (Status.FAILED, Status.UNAVAILABLE)


STORED = (Status.OK, Status.PARTIAL, Status.FAILED, Status.UNAVAILABLE, Status.SKIPPED)
"""Every status a stored cell may have (``not run`` is the board's word for no cell)."""
