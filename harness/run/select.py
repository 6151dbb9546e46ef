"""Choosing what a run runs: registry ids, registered types and inline specs, and the grid."""

from __future__ import annotations

import difflib

from vlc_harness.errors import RegistryError, UserError
from vlc_harness.plugins import Plugins
from vlc_harness.registry import BenchmarkEntry, ModelEntry, Registry, parse_inline_benchmark, parse_inline_model


def select_models(registry: Registry, plugins: Plugins, specs: list[str]) -> list[ModelEntry]:
    """Registry ids, else inline specs: ``TYPE:key=value,...`` or a bare model type (default params)."""
    out = []
    for spec in specs:
        if spec in registry.models:
            out.append(registry.models[spec])
        elif ":" in spec or spec in plugins.models.entries:
            out.append(parse_inline_model(spec, plugins))
        else:
            out.append(registry.model(spec))  # raises, listing the known ids
    return out


def select_benchmarks(registry: Registry, plugins: Plugins, specs: list[str]) -> list[BenchmarkEntry]:
    """Registry ids, registered benchmark types (default params), or inline ``TYPE:key=value,...``.

    A type or inline spec whose params equal a registry entry's (same type, normalised params)
    selects that entry, so its cells land in the entry's column rather than a second one.
    """
    out = []
    for spec in specs:
        if spec in registry.benchmarks:
            out.append(registry.benchmarks[spec])
        elif spec in plugins.benchmarks.entries or ":" in spec:
            inline = parse_inline_benchmark(spec, plugins)
            out.append(same_benchmark(registry, inline) or inline)
        else:
            known = sorted(set(registry.benchmarks) | set(plugins.benchmarks.entries))
            close = difflib.get_close_matches(spec, known, n=1)
            guess = f" (did you mean {close[0]}?)" if close else ""
            raise RegistryError(f"unknown benchmark {spec!r}{guess}; known: {', '.join(known) or '(none)'}")
    return out


def same_benchmark(registry: Registry, entry: BenchmarkEntry) -> BenchmarkEntry | None:
    """The registry entry of ``entry``'s type with the same normalised params, if any.

    When several entries qualify (the same benchmark under two ids), the first in the registry's
    order wins (as ``list benchmarks`` shows them), so the choice is stable from run to run.
    """
    params = entry.params_dict()
    for candidate in registry.benchmarks.values():
        if candidate.type == entry.type and candidate.params_dict() == params:
            return candidate
    return None


def select_grid(
    registry: Registry, plugins: Plugins, run_all: bool, models: list[str], benchmarks: list[str]
) -> tuple[list[ModelEntry], list[BenchmarkEntry]]:
    """The models and benchmarks a ``run`` invocation selects.

    ``--all``: the whole grid. ``-m`` alone: those models on every benchmark. ``-b`` alone:
    every model on those benchmarks. Both: their product.
    """
    if not run_all and not models and not benchmarks:
        raise UserError("nothing selected", hint="use --all, or -m MODEL and/or -b BENCHMARK")
    chosen_models = select_models(registry, plugins, models) if models else list(registry.models.values())
    chosen_benchmarks = (
        select_benchmarks(registry, plugins, benchmarks) if benchmarks else list(registry.benchmarks.values())
    )
    if not chosen_models:
        raise UserError("the registry has no models", hint="add entries under 'models:' or pass -m TYPE:...")
    if not chosen_benchmarks:
        raise UserError("the registry has no benchmarks", hint="add entries under 'benchmarks:' or pass -b TYPE")
    return chosen_models, chosen_benchmarks
