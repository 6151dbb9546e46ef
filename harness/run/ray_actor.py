"""The Ray executor: each model worker is a Ray actor that may run on any node of a cluster.

The actor builds the model once (from its plugin class, params, run options and the run's
configuration), loads it on its first job and streams the job's events back to the driver,
which owns every store write: one writer whatever the store (SQLite included), no database
credentials on the workers, and exactly the bookkeeping of the local executor (only events that
reached the driver are stored, so a lost node costs at most the batch it had open). Workers
read image files by path: every node needs the data root at the same path (a shared filesystem)
and the same Python environment.

An actor asks for one GPU when the cluster has GPUs, else one CPU ``slot`` of ``cores // N``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any

from vlc_harness.config import RunConfig
from vlc_harness.errors import InputError, WorkerFailed, model_reason_of
from vlc_harness.models import Model
from vlc_harness.reasons import Reason
from vlc_harness.run.jobs import Job

_ACTOR: Any = None


def connect(address: str | None, workers: int | None) -> list[str]:
    """Start or join Ray (``address``: ``auto``, ``ray://host:10001``, or ``None`` for a local
    instance) and return one device slot per worker: a GPU each, else ``workers`` CPU slots."""
    try:
        import ray
    except ImportError as error:
        from vlc_harness.errors import UserError

        raise UserError(
            f"--executor ray needs Ray, which this environment lacks ({error})",
            hint="pip install 'vlc-harness[ray]', or run with --executor local",
        ) from None

    if not ray.is_initialized():
        ray.init(address=address, include_dashboard=False, log_to_driver=False, ignore_reinit_error=True)
    gpus = int(ray.cluster_resources().get("GPU", 0))
    if gpus:
        return ["cuda"] * (workers or gpus)
    return ["cpu"] * (workers or 1)


def _actor_class() -> Any:
    """The Ray actor class, defined on first use so that importing this module needs no Ray."""
    global _ACTOR
    if _ACTOR is None:
        import ray

        @ray.remote(max_restarts=0, max_task_retries=0)
        class ModelActor:
            """One model, built once on a Ray worker; jobs stream their events back."""

            def __init__(
                self, locator: dict[str, Any], params: dict[str, Any], run: dict[str, Any], config: RunConfig
            ) -> None:
                from vlc_harness.models import build_model
                from vlc_harness.params import build
                from vlc_harness.plugins import resolve_model

                cls = resolve_model(locator)
                self.model = build_model(cls, build(cls.Params, params), build(cls.Run, run), config)
                self.loaded = False

            def compute(self, job: Job) -> Iterator[Any]:
                from vlc_harness.run.compute import load_model, run_job

                if not self.loaded:
                    yield load_model(self.model)
                    self.loaded = True
                yield from run_job(self.model, job)

            def close(self) -> None:
                self.model.close()

        _ACTOR = ModelActor
    return _ACTOR


class RayWorker:
    """A model worker running as a Ray actor (the same interface as a local worker)."""

    def __init__(
        self, cls: type[Model], params: Any, run: Any, label: str, config: RunConfig, device: str, threads: int | None
    ) -> None:
        from vlc_harness.plugins import class_locator

        self.label = label
        self.timeout_s = float(getattr(run, "timeout_s", 900.0))
        options: dict[str, Any] = {"num_gpus": 1} if device.startswith("cuda") else {"num_cpus": threads or 1}
        if threads:
            env = {k: str(threads) for k in ("OMP_NUM_THREADS", "MKL_NUM_THREADS")}
            options["runtime_env"] = {"env_vars": env}
        actor = _actor_class().options(**options)
        self._actor = actor.remote(class_locator(cls), dataclasses.asdict(params), dataclasses.asdict(run), config)

    def _get(self, ref: Any) -> Any:
        import ray

        try:
            return ray.get(ref, timeout=self.timeout_s)
        except ray.exceptions.GetTimeoutError:
            raise WorkerFailed(
                f"{self.label}: no progress for {self.timeout_s:.0f} s (timeout_s)", Reason.TIMEOUT
            ) from None
        except ray.exceptions.RayError as exc:  # a task's error carries the model's exception as its cause
            cause = getattr(exc, "cause", None) or exc
            text = str(cause) if isinstance(cause, InputError) else f"{type(exc).__name__}: {str(exc).splitlines()[0]}"
            raise WorkerFailed(f"{self.label}: {text}", model_reason_of(cause)) from None

    def load(self) -> None:
        """Nothing ahead of time: the actor loads the model on its first job."""

    def compute(self, job: Job) -> Iterator[Any]:
        """Yield the job's events as the actor produces them (each within ``timeout_s``)."""
        import ray

        stream = self._actor.compute.options(num_returns="streaming").remote(job)
        while True:
            ready, _ = ray.wait([stream], timeout=self.timeout_s)
            if not ready:
                raise WorkerFailed(f"{self.label}: no progress for {self.timeout_s:.0f} s (timeout_s)", Reason.TIMEOUT)
            try:
                ref = next(stream)
            except StopIteration:
                return
            yield self._get(ref)

    def close(self) -> None:
        """Close the model and end the actor."""
        import ray

        try:
            ray.get(self._actor.close.remote(), timeout=30)
        except Exception:  # the actor may already be gone (it failed); ending it is what matters
            pass
        ray.kill(self._actor, no_restart=True)
