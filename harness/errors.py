"""Exceptions that the harness turns into clear messages or cell statuses.

An error that makes a cell ``unavailable`` or ``failed`` carries a reason code
(:class:`~vlc_harness.reasons.Reason`): decided where it is raised (:class:`Unavailable`,
:class:`WorkerFailed`) or read off the exception's type (:func:`reason_of`), never from its text.
"""

from __future__ import annotations

import sys
from typing import Any

from vlc_harness.reasons import Reason


class HarnessError(Exception):
    """Base class of every error the harness raises on purpose."""


class UserError(HarnessError):
    """Bad input from the user: printed as one line plus a hint, without a traceback."""

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return self.message if not self.hint else f"{self.message} (hint: {self.hint})"


class RegistryError(UserError):
    """A registry file (or inline model spec) is malformed."""


class PluginError(HarnessError):
    """A plugin is broken: duplicate ids, unknown hooks, a bad registration."""


class StoreError(UserError):
    """The score store cannot be opened safely (corrupt, foreign, or from a newer harness)."""


class _Coded(HarnessError):
    """An error that carries a reason code: the class's own, unless the raise site names one."""

    code: Reason = Reason.OTHER

    def __init__(self, message: str = "", code: str | None = None) -> None:
        super().__init__(message)
        if code is not None:
            self.code = Reason(code)  # type: ignore[call-arg]  # a lookup by value; mypy reads __new__

    def __reduce__(self) -> tuple[Any, ...]:  # the code survives pickling (a Ray worker's error)
        return type(self), (str(self), self.code)


class Unavailable(_Coded):
    """Something a cell needs cannot be had here: data files missing or weights not downloadable.

    A cell that raises this gets the status ``unavailable`` with this message as its reason and
    :attr:`code` as its reason code (``code=`` at the raise site, else the subclass's).
    """


class DataUnavailable(Unavailable):
    """Benchmark data files are missing or do not match their pinned checksum."""

    code = Reason.DATA_MISSING


class WeightsUnavailable(Unavailable):
    """Model weights are not present locally and cannot be downloaded now."""

    code = Reason.WEIGHTS_MISSING


class ScoreError(HarnessError):
    """A model returned something that is not a finite score."""


class WorkerFailed(_Coded):
    """A model's worker raised, died, or stopped making progress (its cells fail, the run goes on).

    :attr:`code` says why (``Reason.TIMEOUT``, ``Reason.WORKER_DIED``, or what the model raised, by
    :func:`reason_of`)."""

    code = Reason.WORKER_ERROR


def model_reason_of(exc: BaseException, default: Reason = Reason.WORKER_ERROR) -> Reason:
    """The reason code of an exception a model raised (identifying, loading or scoring): as
    :func:`reason_of`, except that missing data is the model's own (``model_data_missing``: the files
    it is fitted on), never the benchmark's, whose data is checked before any model runs."""
    code = reason_of(exc, default)
    return Reason.MODEL_DATA_MISSING if code == Reason.DATA_MISSING else code


def reason_of(exc: BaseException, default: Reason = Reason.WORKER_ERROR) -> Reason:
    """The reason code of an exception, by its type: the code it carries (:class:`Unavailable`,
    :class:`WorkerFailed`), out of memory (``MemoryError``, torch's or Ray's ``OutOfMemoryError``),
    a non-finite score, an HTTP 401/403 of an API client; else ``default``."""
    if isinstance(exc, _Coded):
        return exc.code
    if isinstance(exc, MemoryError) or _is_out_of_memory(exc):
        return Reason.OUT_OF_MEMORY
    if isinstance(exc, ScoreError):
        return Reason.SCORE_ERROR
    if getattr(exc, "status_code", None) in (401, 403):  # openai.AuthenticationError, PermissionDeniedError
        return Reason.AUTH
    return default


def _is_out_of_memory(exc: BaseException) -> bool:
    """torch's CUDA out-of-memory error, or Ray's (a node's memory monitor killed the worker);
    neither package is imported here: an error of theirs can only exist once they are."""
    for module, path in (("torch", ("cuda", "OutOfMemoryError")), ("ray", ("exceptions", "OutOfMemoryError"))):
        found: Any = sys.modules.get(module)
        for name in path:
            found = getattr(found, name, None)
        if isinstance(found, type) and isinstance(exc, found):
            return True
    return False


class CellUnusable(HarnessError):
    """A cell that gives no values: ``failed``, ``unavailable`` or ``skipped`` (raised by
    :meth:`vlc_harness.api.Results.value`; its message names the model, benchmark, status and why)."""

    def __init__(self, model_id: str, benchmark_id: str, status: str, error: str | None) -> None:
        self.model_id, self.benchmark_id, self.status, self.error = model_id, benchmark_id, status, error
        super().__init__(f"{model_id} on {benchmark_id}: the cell is {status}: {error or 'no reason recorded'}")
