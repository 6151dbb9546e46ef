"""Exceptions that the harness turns into clear messages or cell statuses.

An error that makes a cell ``unavailable`` or ``failed`` carries a reason code
(:class:`~vlc_harness.reasons.Reason`): decided where it is raised (:class:`Unavailable`,
:class:`WorkerFailed`) or read off the exception's type (:func:`reason_of`), never from its text.
"""

from __future__ import annotations

import os
import sys
import traceback
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


class InputError(_Coded):
    """A benchmark's data file or a scores file that cannot be read as its reader expects: bad JSON, CSV or
    UTF-8, a field absent or of the wrong type, a repeated id. The cells that need it fail (reason code
    ``input_malformed``) with one sentence naming :attr:`file`, :attr:`record` (``line 3``, ``key '12'``,
    ``record 4``, or ``the file`` as a whole), :attr:`field` (a field's name, or a part: ``the JSON text``,
    ``the record``), what was :attr:`expected` and, when known, what was :attr:`found`; no traceback
    (``vlc-harness --debug`` shows it). Readers raise it through :mod:`vlc_harness.sources.fields`.
    """

    code = Reason.INPUT_MALFORMED

    def __init__(self, file: str | os.PathLike[str], record: str, field: str, expected: str, found: str = "") -> None:
        self.file, self.record, self.field = str(file), str(record), str(field)
        self.expected, self.found = expected, found
        super().__init__(self.sentence())

    def sentence(self) -> str:
        """``<file>, <record>, field '<field>': expected <expected>, found <found>.`` (a part, such as ``the
        record``, is named as it is; a whole-file problem names the file once)."""
        part = self.field if self.field.startswith("the ") else f"field {self.field!r}"
        where = f"{self.file}, {self.record}" + ("" if part == self.record else f", {part}")
        return f"{where}: expected {self.expected}" + (f", found {self.found}" if self.found else "") + "."

    def __reduce__(self) -> tuple[Any, ...]:  # every attribute survives pickling (a worker's error)
        return type(self), (self.file, self.record, self.field, self.expected, self.found)


DEBUG_ENV = "VLC_HARNESS_DEBUG"
"""Set (to anything but ``""`` or ``0``) by ``vlc-harness --debug``: tracebacks are shown for errors that are
otherwise one sentence (input errors), here and in the model workers, which inherit it."""


def debugging() -> bool:
    """True under ``vlc-harness --debug`` (or :data:`DEBUG_ENV` set)."""
    return os.environ.get(DEBUG_ENV, "") not in ("", "0")


def show_traceback(exc: BaseException) -> None:
    """Print ``exc``'s traceback to stderr when :func:`debugging` (once: ``exc.traceback_shown``); nothing
    otherwise."""
    if debugging() and not getattr(exc, "traceback_shown", False):
        traceback.print_exception(type(exc), exc, exc.__traceback__, file=sys.stderr)
        exc.traceback_shown = True  # type: ignore[attr-defined]


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
