"""One run's configuration: built once (by the CLI from its options, by :func:`vlc_harness.evaluate`
from its arguments), handed to :func:`vlc_harness.run.execute` and on to every model it builds.

This is also the one place where "no data root given" turns into the default one
(:func:`resolve_data_root`): every command, the Python API and each model see the same resolved
folder, whatever ``$VLC_HARNESS_DATA`` says elsewhere.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from vlc_harness.paths import default_data_root

EXECUTORS: dict[str, str | None] = {"local": None, "ray": "ray", "inprocess": None}
"""Where workers run: processes on this machine, Ray actors on a cluster, or this process (no
isolation beyond exceptions: :mod:`vlc_harness.run.executor`); each with the extra it needs installed
(the nightly's hashed lock holds every one: tests/ci/test_nightly_workflow.py)."""


def resolve_data_root(given: str | Path | None) -> Path:
    """The data root: ``given``, else ``$VLC_HARNESS_DATA``, else the user data dir (``<...>/data``).

    Nothing else calls :func:`vlc_harness.paths.default_data_root` (a test checks), so an option
    that names a folder is never overridden by the environment further down.
    """
    return Path(given) if given else default_data_root()


@dataclass(frozen=True)
class RunConfig:
    """How one run runs: where the data is, which instances, where the work goes, what it may spend.

    None of it is fingerprinted (what a model or benchmark computes lives in their params): the
    same grid run with other workers or another executor reuses every stored score. The run's
    provenance records the data root, the limit and the cost cap. A model reads it as
    :attr:`vlc_harness.models.Model.run_config` (its data root, above all); it is sent to worker
    processes and Ray actors with the model, so it holds plain values only (the store is passed
    to :func:`~vlc_harness.run.execute` beside it).
    """

    data_root: Path = field(default_factory=lambda: resolve_data_root(None))
    """Folder holding benchmark data and the files models name by relative path (already resolved)."""
    limit: int | None = None
    """The first N instances per category (cells are ``partial``); ``None``: all."""
    progress: bool = True
    """Progress bars on stderr."""
    workers: int | None = None
    """Worker slots (default: one per visible GPU, else one)."""
    executor: str = "local"
    """``local`` (worker processes here), ``ray`` (Ray actors on a cluster) or ``inprocess`` (models
    built in this process: an exception fails only its model's cells, a segfault or hang ends the run)."""
    ray_address: str | None = None
    """The Ray cluster to join (``None``: start a local Ray instance)."""
    max_cost: float | None = None
    """USD that API models may spend in this run, together (``None``: no cap)."""
    recompute_metrics: bool = False
    """Rebuild stored cells from their stored scores instead of reusing them."""
    stop_at: float | None = None
    """The run's deadline, in seconds since the epoch: no work starts after it, the batches in flight finish
    and are stored (:mod:`vlc_harness.run.deadline`); ``None``: none."""
    argv: tuple[str, ...] | None = None
    """The command line recorded with the run (``None``: this process's ``sys.argv``)."""

    def __post_init__(self) -> None:
        if not isinstance(self.data_root, Path):
            raise TypeError(f"data_root must be a resolved Path (resolve_data_root), not {self.data_root!r}")
        if self.executor not in EXECUTORS:
            raise ValueError(f"executor must be one of {', '.join(EXECUTORS)}, not {self.executor!r}")
        if self.limit is not None and self.limit < 1:
            raise ValueError(f"limit must be at least 1, not {self.limit}")
        if self.workers is not None and self.workers < 1:
            raise ValueError(f"workers must be at least 1, not {self.workers}")
        if self.max_cost is not None and self.max_cost < 0:
            raise ValueError(f"max_cost must not be negative, not {self.max_cost}")
