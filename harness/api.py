"""The Python API: :func:`evaluate` one model on benchmarks, with the CLI's semantics.

Usable from a training loop::

    from vlc_harness import evaluate
    res = evaluate("open_clip:arch=ViT-B-32,pretrained=/ckpt/epoch3.pt", ["sugarcrepe"],
                   data_root="/data", store="sqlite:////tmp/scores.sqlite")
    res.value("sugarcrepe", "i2t_accuracy_macro")

A live :class:`~vlc_harness.models.Model` object (the model being trained) runs in this process.
Its scores are cached under its :meth:`~vlc_harness.models.Model.identify` result, so by default
it gets a fresh in-memory store: pass ``store=`` only if ``identify()`` names the exact weights.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vlc_harness.models import Model
from vlc_harness.params import build
from vlc_harness.paths import default_data_root, default_store_url
from vlc_harness.plugins import get_plugins
from vlc_harness.registry import BenchmarkEntry, ModelEntry, Registry, load_registry, parse_inline_model
from vlc_harness.run import execute
from vlc_harness.run.select import select_benchmarks, select_models
from vlc_harness.store import CellRecord, Store, open_store


@dataclass
class Results:
    """The cells an :func:`evaluate` call recorded, with lookups for their metrics."""

    cells: list[CellRecord]

    def cell(self, benchmark_id: str) -> CellRecord:
        """The cell of one benchmark."""
        for c in self.cells:
            if c.benchmark_id == benchmark_id:
                return c
        raise KeyError(f"no cell for benchmark {benchmark_id!r}")

    def value(self, benchmark_id: str, metric: str, category: str = "all") -> float:
        """One metric value (raises KeyError when the cell has no such metric)."""
        for m in self.cell(benchmark_id).metrics:
            if m["metric"] == metric and m["category"] == category:
                return float(m["value"])
        raise KeyError(f"{benchmark_id} has no metric {metric!r} for category {category!r}")

    def to_dict(self) -> list[dict[str, Any]]:
        """JSON-ready summary of every cell."""
        return [
            {
                "model": c.model_id,
                "benchmark": c.benchmark_id,
                "status": c.status,
                "error": c.error,
                "metrics": c.metrics,
            }
            for c in self.cells
        ]


def evaluate(
    model: str | Mapping[str, Any] | ModelEntry | Model,
    benchmarks: Sequence[str | Mapping[str, Any] | BenchmarkEntry],
    *,
    store: str | Store | None = None,
    data_root: str | Path | None = None,
    registry: Sequence[str | Path] = (),
    limit: int | None = None,
    progress: bool = False,
    workers: int | None = None,
) -> Results:
    """Evaluate one model on benchmarks, exactly as ``vlc-harness run`` does.

    :param model: a registry id (with ``registry``), an inline spec ``TYPE:key=value,...``, a
        mapping ``{"type": ..., "params": ..., "run": ...}``, a :class:`ModelEntry`, or a live
        :class:`Model` object (run in this process).
    :param benchmarks: registry ids, benchmark type names (default params), mappings
        ``{"type": ..., "params": ...}`` or :class:`BenchmarkEntry` objects.
    :param store: a SQLAlchemy URL or an open :class:`Store`; default: the user's store (an
        in-memory store for live models).
    """
    plugins = get_plugins()
    reg = load_registry([Path(p) for p in registry], plugins) if registry else Registry()
    live: Model | None = None
    if isinstance(model, Model):
        live = model
        entry = ModelEntry(
            id=getattr(model, "model_id", type(model).__name__),
            type=getattr(type(model), "type_name", type(model).__name__),
            params=model.params,
            run=model.run,
        )
    elif isinstance(model, ModelEntry):
        entry = model
    elif isinstance(model, Mapping):
        cls = plugins.models.get(str(model["type"])).cls
        entry = ModelEntry(
            id=str(model.get("id", model["type"])),
            type=str(model["type"]),
            params=build(cls.Params, model.get("params")),
            run=build(cls.Run, model.get("run")),
            meta=dict(model.get("meta", {})),
        )
    elif ":" in model:
        entry = parse_inline_model(model, plugins)
    else:
        (entry,) = select_models(reg, plugins, [model])
    bench_entries = []
    for b in benchmarks:
        if isinstance(b, BenchmarkEntry):
            bench_entries.append(b)
        elif isinstance(b, Mapping):
            cls = plugins.benchmarks.get(str(b["type"])).cls
            bench_entries.append(
                BenchmarkEntry(str(b.get("id", b["type"])), str(b["type"]), build(cls.Params, b.get("params")))
            )
        else:
            bench_entries.extend(select_benchmarks(reg, plugins, [b]))
    if isinstance(store, Store):
        the_store = store
    else:
        url = store or ("sqlite://" if live is not None else default_store_url())
        the_store = open_store(url)
    root = Path(data_root) if data_root is not None else default_data_root()
    report = execute(
        plugins,
        the_store,
        [entry],
        bench_entries,
        root,
        limit=limit,
        progress=progress,
        registry=reg,
        live_model=live,
        workers=workers,
    )
    return Results(report.cells)
