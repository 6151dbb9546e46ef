"""Exceptions that the harness turns into clear messages or cell statuses."""

from __future__ import annotations


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


class Unavailable(HarnessError):
    """Something a cell needs cannot be had here: data files missing or weights not downloadable.

    A cell that raises this gets the status ``unavailable`` with this message as its reason.
    """


class DataUnavailable(Unavailable):
    """Benchmark data files are missing or do not match their pinned checksum."""


class WeightsUnavailable(Unavailable):
    """Model weights are not present locally and cannot be downloaded now."""


class ScoreError(HarnessError):
    """A model returned something that is not a finite score."""


class WorkerFailed(HarnessError):
    """A model's worker raised, died, or stopped making progress (its cells fail, the run goes on)."""


class CellUnusable(HarnessError):
    """A cell that gives no values: ``failed``, ``unavailable`` or ``skipped`` (raised by
    :meth:`vlc_harness.api.Results.value`; its message names the model, benchmark, status and why)."""

    def __init__(self, model_id: str, benchmark_id: str, status: str, error: str | None) -> None:
        self.model_id, self.benchmark_id, self.status, self.error = model_id, benchmark_id, status, error
        super().__init__(f"{model_id} on {benchmark_id}: the cell is {status}: {error or 'no reason recorded'}")
