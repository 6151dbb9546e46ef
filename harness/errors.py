"""Exceptions that the harness turns into clear messages or cell statuses, and the reason codes
a cell without a number carries.

A cell that is ``failed``, ``unavailable``, ``partial`` or ``skipped`` stores a reason code (one of
:data:`REASONS`) next to its human text. The code is decided where the error is raised (an
:class:`Unavailable` or :class:`WorkerFailed` carries one) or from the exception's type
(:func:`reason_of`), never by reading the text; the board words each code for readers.
"""

from __future__ import annotations

import sys
from typing import Any

# why data or weights cannot be had here (``unavailable``; also a worker's ``failed`` when it loads)
DATA_MISSING = "data_missing"
"""Benchmark data files are missing, malformed or not as pinned (:class:`DataUnavailable`)."""
WEIGHTS_MISSING = "weights_missing"
"""Model weights are not present locally and cannot be downloaded now (:class:`WeightsUnavailable`)."""
GATED = "gated"
"""The weights' hub repository does not exist or is gated (needs an accepted licence and a token)."""
WEIGHTS_MISMATCH = "weights_mismatch"
"""The weights at hand are not the ones the entry pins (another sha256)."""
VERSION_TOO_OLD = "version_too_old"
"""An installed package is older than the model needs (or absent from a version gate)."""
PACKAGE_MISSING = "package_missing"
"""A package the model or benchmark needs is not installed, or does not import here."""
AUTH = "auth"
"""An API refused the credentials (HTTP 401/403), or no API key is set."""
# why a worker failed (``failed``)
OUT_OF_MEMORY = "out_of_memory"
"""The model ran out of memory (CUDA or host)."""
TIMEOUT = "timeout"
"""The worker made no progress for ``run.timeout_s`` and was stopped."""
WORKER_DIED = "worker_died"
"""The worker process died (a signal, an exit) without reporting an error."""
WORKER_ERROR = "worker_error"
"""The model raised an error of no more specific kind while loading or scoring."""
MODEL_ERROR = "model_error"
"""The model's plugin failed before any work (``identify()`` raised)."""
BENCHMARK_ERROR = "benchmark_error"
"""The benchmark's plugin failed to load its instances (a bug, duplicate instance ids)."""
# why instances could not be scored (``failed``)
INSTANCES_FAILED = "instances_failed"
"""Some instances could not be scored, for more than one kind of reason."""
SCORES_MISSING = "scores_missing"
"""A submitted scores file has no score for the pairs (a precomputed model)."""
SCORE_ERROR = "score_error"
"""The model returned a score that is not a finite number."""
IMAGE_ERROR = "image_error"
"""An image the instances need is missing or cannot be decoded."""
PAIR_ERROR = "pair_error"
"""The model reported a pair as having no score (:class:`~vlc_harness.models.PairError`)."""
NOT_COMPUTED = "not_computed"
"""A score or answer was never computed (the worker stopped before it)."""
# why a cell is partial or skipped
LIMITED = "limited"
"""``--limit`` was given: only part of the benchmark was scored."""
REQUEST_FAILED = "request_failed"
"""API requests failed (network, rate limit, malformed replies); a rerun asks them again."""
BUDGET_SPENT = "budget_spent"
"""The ``--max-cost`` budget stopped the requests."""
NOT_APPLICABLE = "not_applicable"
"""The model's protocol does not apply to the benchmark (``skipped``)."""
OTHER = "other"
"""No more specific code: a third party's :class:`Unavailable`, or an old cell whose text named
no known cause (see :mod:`vlc_harness.store.migrations`)."""

REASONS = frozenset(
    {
        DATA_MISSING,
        WEIGHTS_MISSING,
        GATED,
        WEIGHTS_MISMATCH,
        VERSION_TOO_OLD,
        PACKAGE_MISSING,
        AUTH,
        OUT_OF_MEMORY,
        TIMEOUT,
        WORKER_DIED,
        WORKER_ERROR,
        MODEL_ERROR,
        BENCHMARK_ERROR,
        INSTANCES_FAILED,
        SCORES_MISSING,
        SCORE_ERROR,
        IMAGE_ERROR,
        PAIR_ERROR,
        NOT_COMPUTED,
        LIMITED,
        REQUEST_FAILED,
        BUDGET_SPENT,
        NOT_APPLICABLE,
        OTHER,
    }
)
"""Every reason code a stored cell may carry."""


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

    code = OTHER

    def __init__(self, message: str = "", code: str | None = None) -> None:
        super().__init__(message)
        if code is not None:
            self.code = code

    def __reduce__(self) -> tuple[Any, ...]:  # the code survives pickling (a Ray worker's error)
        return type(self), (str(self), self.code)


class Unavailable(_Coded):
    """Something a cell needs cannot be had here: data files missing or weights not downloadable.

    A cell that raises this gets the status ``unavailable`` with this message as its reason and
    :attr:`code` as its reason code (``code=`` at the raise site, else the subclass's).
    """


class DataUnavailable(Unavailable):
    """Benchmark data files are missing or do not match their pinned checksum."""

    code = DATA_MISSING


class WeightsUnavailable(Unavailable):
    """Model weights are not present locally and cannot be downloaded now."""

    code = WEIGHTS_MISSING


class ScoreError(HarnessError):
    """A model returned something that is not a finite score."""


class WorkerFailed(_Coded):
    """A model's worker raised, died, or stopped making progress (its cells fail, the run goes on).

    :attr:`code` says why (:data:`TIMEOUT`, :data:`WORKER_DIED`, or what the model raised, by
    :func:`reason_of`)."""

    code = WORKER_ERROR


def reason_of(exc: BaseException, default: str = WORKER_ERROR) -> str:
    """The reason code of an exception, by its type: the code it carries (:class:`Unavailable`,
    :class:`WorkerFailed`), out of memory (``MemoryError``, torch's or Ray's ``OutOfMemoryError``),
    a non-finite score, an HTTP 401/403 of an API client; else ``default``."""
    if isinstance(exc, _Coded):
        return exc.code
    if isinstance(exc, MemoryError) or _is_out_of_memory(exc):
        return OUT_OF_MEMORY
    if isinstance(exc, ScoreError):
        return SCORE_ERROR
    if getattr(exc, "status_code", None) in (401, 403):  # openai.AuthenticationError, PermissionDeniedError
        return AUTH
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
