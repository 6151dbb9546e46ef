"""What a grid's cells depend on: each model's fingerprint (or why it is unknown here) and each
benchmark's data version, instance manifest and metrics version.

``vlc-harness plan`` builds this for the checkout it runs in; ``plan --diff REF`` also runs this
very file, as a script, with another git revision's code and registry files on the import path
(:mod:`vlc_harness.cli.planview_diff`), so both sides are summarised by the same logic over their
own plugins. It therefore imports only long-standing names of the harness, and hands the models
the run configuration (:mod:`vlc_harness.config`) only where that revision has one.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vlc_harness.errors import Unavailable
from vlc_harness.fingerprint import content_addressed, fingerprint_content, model_fingerprint
from vlc_harness.models import Identity, Model
from vlc_harness.registry import BenchmarkEntry, ModelEntry
from vlc_harness.types import canonical_json

UNKNOWN = "unknown"
NOT_IDENTIFIED = "not identified: no cell of this model can run here (its benchmarks' data is missing, or skipped)"


@dataclass
class ModelIdentity:
    """One model's fingerprint, or why it cannot be had here (``unknown``: identify() raised
    :class:`~vlc_harness.errors.Unavailable`, e.g. weights neither cached nor reachable)."""

    id: str
    type: str
    declared: str
    """sha256 of what the entry and the plugin declare (type, params by content, scoring version,
    protocol): comparable even when the weights' identity is unknown."""
    identity: Identity | None = None
    fingerprint: str | None = None
    unknown: str | None = None
    error: Exception | None = None
    """What identify() raised (an :class:`Unavailable` for ``unknown``, anything else: failed)."""
    not_identified: str | None = None
    """Why identify() was not called (no cell of the model can run here), else ``None``."""

    def record(self) -> dict[str, Any]:
        """The JSON form (``fingerprint`` is ``"unknown"`` when it cannot be had here or was not asked for)."""
        failed = None if self.error is None or self.unknown else f"{type(self.error).__name__}: {self.error}"
        return {
            "id": self.id,
            "type": self.type,
            "declared": self.declared,
            "fingerprint": self.fingerprint or UNKNOWN,
            "weights": self.identity.weights if self.identity else None,
            "unknown": self.unknown,
            "failed": failed,
            "not_identified": self.not_identified,
        }


def declared_identity(entry: ModelEntry, cls: type[Model]) -> ModelIdentity:
    """What the entry and the plugin declare, without building or identifying the model (cheap)."""
    declared = {
        "type": entry.type,
        "params": content_addressed(entry.params_dict()),
        "scoring_version": cls.scoring_version,
        "protocol": getattr(cls, "protocol", ""),
    }
    return ModelIdentity(entry.id, entry.type, hashlib.sha256(canonical_json(declared).encode()).hexdigest())


def identify_model(entry: ModelEntry, cls: type[Model], config: Any = None) -> tuple[ModelIdentity, Model]:
    """The model built from its entry (not loaded) and given ``config`` (a
    :class:`~vlc_harness.config.RunConfig`; ``None`` for a revision without one), and its identity,
    resolved once."""
    found = declared_identity(entry, cls)
    model = cls(entry.params, entry.run)
    if config is not None:
        model.run_config = config
    try:
        found.identity = model.identify()
    except Unavailable as exc:
        found.unknown, found.error = str(exc), exc
    except Exception as exc:  # a plugin's bug: its cells fail, the plan goes on
        found.error = exc
    else:
        content = fingerprint_content(entry.type, entry.params_dict(), found.identity, cls.scoring_version)
        found.fingerprint = model_fingerprint(content)
    return found, model


class LazyIdentity:
    """Stands in for the model in :func:`~vlc_harness.run.plan.plan_model`: the model is built and
    identified on the first identify() (once), so a model none of whose cells can run here is never
    identified (no import of its library, no hub probe)."""

    def __init__(self, entry: ModelEntry, cls: type[Model], config: Any) -> None:
        self._args = (entry, cls, config)
        self.found = declared_identity(entry, cls)
        self.found.not_identified = NOT_IDENTIFIED
        self.model: Model | None = None

    def identify(self) -> Any:
        """The model's identity, resolved on the first call; raises what identify() raised."""
        if self.model is None:
            self.found, self.model = identify_model(*self._args)
        if self.found.error is not None:
            raise self.found.error
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


def grid_record(models: list[ModelIdentity], benchmarks: list[dict[str, Any]]) -> dict[str, Any]:
    """The JSON a diff compares: models and benchmarks by id."""
    return {"models": {m.id: m.record() for m in models}, "benchmarks": {b["id"]: b for b in benchmarks}}


def _select(registry: Any, plugins: Any, specs: list[str], kind: str) -> list[Any]:
    """Entries for the specs this revision knows (an id it lacks is an added cell, not an error)."""
    from vlc_harness.run import select

    pick = select.select_models if kind == "models" else select.select_benchmarks
    if not specs:
        return list(getattr(registry, kind).values())
    out = []
    for spec in specs:
        try:
            out.extend(pick(registry, plugins, [spec]))
        except Exception:  # unknown here: the other side reports it as added
            continue
    return out


def _run_config(data_root: Path, limit: int | None) -> Any:
    """The run configuration models get, where this revision has one (else they read the data root
    from ``$VLC_HARNESS_DATA``, which :mod:`vlc_harness.cli.planview_diff` sets)."""
    try:
        from vlc_harness.config import RunConfig
    except ImportError:
        return None
    return RunConfig(data_root=data_root, limit=limit)


def _identified(entry: ModelEntry, plugins: Any, config: Any) -> ModelIdentity:
    """A model's identity; for an entry whose type's listed package is not installed (no class to
    build), ``unknown`` with the install line (a revision without plugin packages has no such entry)."""
    reason = getattr(entry, "unavailable", "")
    if reason:
        return ModelIdentity(entry.id, entry.type, "", unknown=reason)
    return identify_model(entry, plugins.models.get(entry.type).cls, config)[0]


def main(argv: list[str]) -> int:
    """``python planview_grid.py --out FILE [--registry F]... [-m M]... [-b B]... [--data-root D] [--limit N]``."""
    parser = argparse.ArgumentParser(description="Write the grid's fingerprints as JSON.")
    parser.add_argument("--out", required=True)
    parser.add_argument("--registry", action="append", default=[])
    parser.add_argument("-m", dest="models", action="append", default=[])
    parser.add_argument("-b", dest="benchmarks", action="append", default=[])
    parser.add_argument("--data-root", required=True)
    parser.add_argument("--limit", type=int, default=None)
    args = parser.parse_args(argv)
    from vlc_harness.plugins import get_plugins
    from vlc_harness.registry import Registry, load_registry
    from vlc_harness.run.prepare import prepare

    plugins = get_plugins()
    files = [Path(f) for f in args.registry if Path(f).is_file()]
    registry = load_registry(files, plugins) if files else Registry()
    config = _run_config(Path(args.data_root), args.limit)
    models = [_identified(entry, plugins, config) for entry in _select(registry, plugins, args.models, "models")]
    benchmarks = [
        benchmark_record(entry, prepare(entry, plugins.benchmarks, Path(args.data_root), args.limit))
        for entry in _select(registry, plugins, args.benchmarks, "benchmarks")
    ]
    Path(args.out).write_text(json.dumps(grid_record(models, benchmarks), indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
