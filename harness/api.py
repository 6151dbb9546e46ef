"""The Python API: :func:`evaluate` one model on benchmarks, with the CLI's semantics.

Usable from a training loop::

    from vlc_harness import evaluate
    res = evaluate("open_clip:arch=ViT-B-32,pretrained=/ckpt/epoch3.pt", ["sugarcrepe"],
                   data_root="/data", store="sqlite:////tmp/scores.sqlite")
    res.value("sugarcrepe", "i2t_accuracy_macro")   # CellUnusable (saying why) if the cell failed
    res.status("sugarcrepe"), res.error("sugarcrepe")

A plain script needs no ``if __name__ == "__main__":`` guard: workers are ``python -m
vlc_harness.run.worker`` processes, which never import the calling script, and a model class
defined in the script itself (which a worker could not import) runs in this process instead.

A live :class:`~vlc_harness.models.Model` object (the model being trained) runs in this process.
Its scores are cached under its :meth:`~vlc_harness.models.Model.identify` result, so by default
it gets a fresh in-memory store: pass ``store=`` only if ``identify()`` names the exact weights.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vlc_harness.config import RunConfig, resolve_data_root
from vlc_harness.errors import CellUnusable
from vlc_harness.models import Model
from vlc_harness.params import build
from vlc_harness.paths import default_store_url
from vlc_harness.plugins import get_plugins
from vlc_harness.registry import BenchmarkEntry, ModelEntry, Registry, load_registry, parse_inline_model
from vlc_harness.results import stored_value
from vlc_harness.run import execute
from vlc_harness.run.select import select_benchmarks, select_models
from vlc_harness.store import CellRecord, Store, open_store

_MAIN_MODULES = ("__main__", "__mp_main__")


@dataclass
class Results:
    """The cells an :func:`evaluate` call recorded, one per benchmark, with lookups by benchmark.

    A benchmark is named by its cell's id or by the name given to :func:`evaluate` (a type name
    that selected the registry entry with the same params, say). Every cell has a status (``ok``,
    ``partial``, ``failed``, ``unavailable``, ``skipped``; :meth:`status`) and, unless ``ok``, an
    error saying why (:meth:`error`); :meth:`value` reads an ``ok`` or ``partial`` cell and raises
    :class:`~vlc_harness.errors.CellUnusable` for the others. Values are read as stored, through
    the results API (:mod:`vlc_harness.results`), which also gives a stored cell's intervals,
    replicates and per-instance verdicts.
    """

    cells: list[CellRecord]
    names: dict[str, str] = field(default_factory=dict)
    """Benchmark names given to :func:`evaluate` that selected a cell under another id."""

    def cell(self, benchmark_id: str) -> CellRecord:
        """The cell of one benchmark (KeyError naming the cells there are when none matches)."""
        wanted = self.names.get(benchmark_id, benchmark_id)
        for c in self.cells:
            if c.benchmark_id == wanted:
                return c
        known = ", ".join(c.benchmark_id for c in self.cells) or "(none)"
        raise KeyError(f"no cell for benchmark {benchmark_id!r}; cells: {known}")

    def status(self, benchmark_id: str) -> str:
        """The cell's status: ``ok``, ``partial``, ``failed``, ``unavailable`` or ``skipped``."""
        return self.cell(benchmark_id).status

    def error(self, benchmark_id: str) -> str | None:
        """Why the cell is not ``ok`` (failed instances, a worker's traceback, missing data); ``None`` when ok."""
        return self.cell(benchmark_id).error

    def reason_code(self, benchmark_id: str) -> str | None:
        """Why the cell is not ``ok``, as a code (:class:`vlc_harness.reasons.Reason`); ``None`` when ok."""
        return self.cell(benchmark_id).reason_code

    def value(self, benchmark_id: str, metric: str, category: str = "all") -> float:
        """One metric value of an ``ok`` or ``partial`` cell.

        Raises :class:`~vlc_harness.errors.CellUnusable` (model, benchmark, status and why) when
        the cell failed, is unavailable or was skipped, and KeyError listing what there is when
        the cell has no such metric or category.
        """
        c = self.cell(benchmark_id)
        if not c.status.has_number:  # a partial cell (``limit``, failed requests) has values too
            raise CellUnusable(c.model_id, c.benchmark_id, c.status, c.error)
        found = stored_value(c, metric, category)
        if found is not None:
            return found.value
        categories = sorted({str(m["category"]) for m in c.metrics if m["metric"] == metric})
        if categories:
            raise KeyError(f"{c.benchmark_id}: metric {metric!r} has no category {category!r}; it has {categories}")
        metrics = sorted({str(m["metric"]) for m in c.metrics})
        raise KeyError(f"{c.benchmark_id} has no metric {metric!r}; available: {', '.join(metrics) or '(none)'}")

    def to_dict(self) -> list[dict[str, Any]]:
        """JSON-ready summary of every cell."""
        return [
            {
                "model": c.model_id,
                "benchmark": c.benchmark_id,
                "status": c.status,
                "error": c.error,
                "reason_code": c.reason_code,
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
    executor: str = "local",
) -> Results:
    """Evaluate one model on benchmarks, exactly as ``vlc-harness run`` does.

    :param model: a registry id (with ``registry``), an inline spec ``TYPE:key=value,...``, a
        mapping ``{"type": ..., "params": ..., "run": ...}``, a :class:`ModelEntry`, or a live
        :class:`Model` object (run in this process).
    :param benchmarks: registry ids, benchmark type names (default params), mappings
        ``{"type": ..., "params": ...}`` or :class:`BenchmarkEntry` objects.
    :param store: a SQLAlchemy URL or an open :class:`Store`; default: the user's store (an
        in-memory store for live models).
    :param executor: where the model runs, as ``run --executor`` says: ``local`` (a worker
        process), ``ray`` or ``inprocess`` (built in this process: no interpreter to start, but
        a segfault or hang ends the call; :mod:`vlc_harness.run.executor`). A live model always
        runs in this process.

    A benchmark type given by name selects the ``registry`` entry of that type with the same
    params, as ``-b`` does; :class:`Results` finds its cell under either name.
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
    bench_entries: list[BenchmarkEntry] = []
    names: dict[str, str] = {}
    for b in benchmarks:
        if isinstance(b, BenchmarkEntry):
            bench_entries.append(b)
        elif isinstance(b, Mapping):
            bench_cls = plugins.benchmarks.get(str(b["type"])).cls
            bench_entries.append(
                BenchmarkEntry(str(b.get("id", b["type"])), str(b["type"]), build(bench_cls.Params, b.get("params")))
            )
        else:
            (selected,) = select_benchmarks(reg, plugins, [b])
            bench_entries.append(selected)
            if selected.id != b:
                names[b] = selected.id
    if live is None:
        model_cls = plugins.models.get(entry.type).cls
        if model_cls.__module__ in _MAIN_MODULES:
            # A worker process imports the model class by module; one defined in the calling script
            # (or a notebook) could only be had by running that script again, so it runs here.
            live = model_cls(entry.params, entry.run)
    if isinstance(store, Store):
        the_store = store
    else:
        url = store or ("sqlite://" if isinstance(model, Model) else default_store_url())
        the_store = open_store(url)
    config = RunConfig(
        data_root=resolve_data_root(data_root), limit=limit, progress=progress, workers=workers, executor=executor
    )
    report = execute(plugins, the_store, [entry], bench_entries, config, registry=reg, live_model=live)
    return Results(report.cells, names)
