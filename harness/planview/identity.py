"""What a grid's cells depend on besides the store: each model's identity (its fingerprint, or why
it cannot be had here) and each benchmark's data version, instance manifest and metrics version.

``plan --format json`` carries these (:mod:`vlc_harness.planview.document`), and ``plan --diff``
compares them between two revisions, each summarised by its own code
(:mod:`vlc_harness.planview.revision`).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from vlc_harness.config import RunConfig
from vlc_harness.errors import Unavailable
from vlc_harness.fingerprint import content_addressed, fingerprint_content, model_fingerprint
from vlc_harness.models import Identity, Model
from vlc_harness.registry import BenchmarkEntry, ModelEntry
from vlc_harness.stack import StackSource, model_stack, scoring_names
from vlc_harness.types import canonical_json

UNKNOWN = "unknown"
NO_FINGERPRINT = "-"
"""The fingerprint shown for a model that was not identified (no cell of it can run, or its package is missing)."""
NOT_IDENTIFIED = "not identified: no cell of this model can run here (its benchmarks' data is missing, or skipped)"


@dataclass
class ModelFingerprint:
    """One model's fingerprint, or why it cannot be had here (``unknown``: identify() raised
    :class:`~vlc_harness.errors.Unavailable`, e.g. weights neither cached nor reachable)."""

    id: str
    type: str
    declared: str | None
    """sha256 of what the entry and the plugin declare (type, params by content, scoring version,
    protocol): comparable even when the weights' identity is unknown; ``None`` without a plugin."""
    identity: Identity | None = None
    fingerprint: str | None = None
    unknown: str | None = None
    error: Exception | None = None
    """What identify() raised (an :class:`Unavailable` for ``unknown``, anything else: failed)."""
    not_identified: str | None = None
    """Why identify() was not called (no cell of the model can run here), else ``None``."""
    stack: dict[str, Any] | None = None
    """The scoring stack it is fingerprinted with (:func:`~vlc_harness.stack.model_stack`, from the
    pins); ``None`` without a plugin."""
    unpinned: list[str] | None = None
    """Its scoring distributions that no pin covers (their installed versions are used)."""

    @property
    def failed(self) -> str | None:
        """What identify() raised when it is not :class:`Unavailable` (a plugin's bug), in one line."""
        if self.error is None or self.unknown:
            return None
        return f"{type(self.error).__name__}: {self.error}"

    @property
    def weights(self) -> Any:
        """The weights' identity, where identify() gave one."""
        return self.identity.weights if self.identity else None


def declared_identity(entry: ModelEntry, cls: type[Model], stacks: StackSource) -> ModelFingerprint:
    """What the entry and the plugin declare, and its scoring stack from ``stacks``, without building or
    identifying the model (cheap)."""
    declared = {
        "type": entry.type,
        "params": content_addressed(entry.params_dict()),
        "scoring_version": cls.scoring_version,
        "protocol": getattr(cls, "protocol", ""),
    }
    found = ModelFingerprint(entry.id, entry.type, hashlib.sha256(canonical_json(declared).encode()).hexdigest())
    found.stack, found.unpinned = model_stack(cls, stacks), stacks.unpinned(scoring_names(cls))
    return found


def identify_model(
    entry: ModelEntry, cls: type[Model], config: RunConfig, stacks: StackSource
) -> tuple[ModelFingerprint, Model]:
    """The model built from its entry (not loaded) and given ``config``, and its identity, resolved once."""
    found = declared_identity(entry, cls, stacks)
    model = cls(entry.params, entry.run)
    model.run_config = config
    try:
        found.identity = model.identify()
    except Unavailable as exc:
        found.unknown, found.error = str(exc), exc
    except Exception as exc:  # a plugin's bug: its cells fail, the plan goes on
        found.error = exc
    else:
        assert found.stack is not None
        content = fingerprint_content(entry.type, entry.params_dict(), found.identity, cls.scoring_version, found.stack)
        found.fingerprint = model_fingerprint(content)
    return found, model


class LazyIdentity:
    """Gives :func:`~vlc_harness.run.plan.plan_model` the model's identity (its :meth:`identify`): the
    model is built and identified on the first call (once), so a model none of whose cells can run here is never
    identified (no import of its library, no hub probe)."""

    def __init__(self, entry: ModelEntry, cls: type[Model], config: RunConfig, stacks: StackSource) -> None:
        self._args = (entry, cls, config, stacks)
        self.found = declared_identity(entry, cls, stacks)
        self.found.not_identified = NOT_IDENTIFIED
        self.model: Model | None = None

    def identify(self) -> Identity:
        """The model's identity, resolved on the first call; raises what identify() raised."""
        if self.model is None:
            self.found, self.model = identify_model(*self._args)
        if self.found.error is not None:
            raise self.found.error
        if self.found.identity is None:
            raise TypeError(f"{self.found.type}: identify() returned None, not an Identity")
        return self.found.identity


def benchmark_record(entry: BenchmarkEntry, prepared: Any) -> dict[str, Any]:
    """What the cells of a benchmark depend on besides the model; ``None`` where its data is not here."""
    from vlc_harness.metrics.cell import bootstrap_samples, metrics_version

    record: dict[str, Any] = {
        "id": entry.id,
        "type": entry.type,
        "declared": hashlib.sha256(canonical_json([entry.type, entry.params_dict()]).encode()).hexdigest(),
        "data_version": None,
        "manifest": None,
        "metrics_version": None,
        "unavailable": prepared.unavailable or prepared.load_error,
    }
    benchmark = prepared.benchmark
    if benchmark is not None:
        try:
            record["data_version"] = benchmark.data_version
            record["metrics_version"] = metrics_version(benchmark, bootstrap_samples())
        except Exception:  # a benchmark that cannot say is compared by its params alone
            pass
    if prepared.ready:
        record["manifest"] = prepared.manifest_hash
    return record


__all__ = [
    "NOT_IDENTIFIED",
    "NO_FINGERPRINT",
    "UNKNOWN",
    "LazyIdentity",
    "ModelFingerprint",
    "benchmark_record",
    "declared_identity",
    "identify_model",
]
