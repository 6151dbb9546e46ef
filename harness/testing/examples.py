"""A registered type's conformance example: from a testing plugin's hook, else the type's own method.

A plugin package may keep its examples (tiny checkpoints, generated data) out of its production
modules: a module named by an entry point of the ``vlc_harness_testing`` group implements the
``conformance_example`` hook (:mod:`vlc_harness.hookspecs`, docs/plugin_hooks.md). Only the
conformance checks and tests load that group; ``vlc-harness run`` never does. The built-in plugins
register theirs so (``builtin = "vlc_harness_builtins.testing.examples"``); the core's metric
families have theirs in :mod:`vlc_harness.testing.family_examples`, registered here whatever is
installed.
"""

from __future__ import annotations

import functools
import importlib
import importlib.metadata
from pathlib import Path
from typing import Any

import pluggy

from vlc_harness.benchmarks import Benchmark
from vlc_harness.errors import PluginError
from vlc_harness.metrics.family import Family, FamilyExample
from vlc_harness.models import Model
from vlc_harness.plugins import get_plugins, new_manager

TESTING_GROUP = "vlc_harness_testing"
"""The entry-point group of testing plugins (modules implementing ``conformance_example``)."""
CORE_EXAMPLES = "vlc_harness.testing.family_examples"
"""The core's own testing plugin: its metric families' examples."""


@functools.cache
def testing_plugins() -> pluggy.PluginManager:
    """A plugin manager holding the core's examples and every module of the ``vlc_harness_testing``
    entry-point group."""
    pm = new_manager()
    pm.register(importlib.import_module(CORE_EXAMPLES), name=CORE_EXAMPLES)
    for ep in sorted(importlib.metadata.entry_points(group=TESTING_GROUP), key=lambda e: e.name):
        try:
            module = ep.load()
        except Exception as exc:  # a broken testing plugin must say who it is
            raise PluginError(f"testing plugin {ep.name} ({ep.value}) failed to import: {exc}") from exc
        pm.register(module, name=ep.name)
    try:
        pm.check_pending()
    except pluggy.PluginValidationError as exc:
        raise PluginError(f"a testing plugin implements a hook that does not exist: {exc}") from exc
    return pm


def example_for(cls: type[Model] | type[Benchmark] | type[Family], tmp_path: Path) -> Any:
    """``cls``'s conformance example, built under ``tmp_path``.

    The first answer of the ``conformance_example`` hook, asked of the testing plugins and then of
    the loaded plugins; without one, ``cls.conformance_example(tmp_path)`` (a model: its params or
    ``None``; a benchmark: ``(params, data_root)`` or ``None``; a metric family: a
    :class:`~vlc_harness.metrics.family.FamilyExample`, several, or ``None``).
    """
    for pm in (testing_plugins(), get_plugins().pm):
        found = pm.hook.conformance_example(cls=cls, tmp_path=tmp_path)
        if found is not None:
            return found
    return cls.conformance_example(tmp_path)


def family_examples(cls: type[Family], tmp_path: Path) -> list[FamilyExample]:
    """A metric family's conformance examples (:func:`example_for`), as a list (empty: none)."""
    found = example_for(cls, tmp_path)
    if found is None:
        return []
    examples = [found] if isinstance(found, FamilyExample) else list(found)
    for example in examples:
        if not isinstance(example, FamilyExample):
            raise PluginError(f"{cls.__qualname__}'s conformance example holds {example!r}, not a FamilyExample")
    return examples
