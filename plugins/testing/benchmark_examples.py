"""The conformance example of every built-in benchmark type, declared next to its test data.

Each ``data_<name>.py`` writer registers the examples it builds with :func:`benchmark_example`; the
testing plugin (:mod:`.examples`) asks :func:`benchmark_examples`, which imports every ``data_*``
module of this package once. So a new benchmark's example is one decorated function in its own
``data_<name>.py``, and no table here names it. An example is ``(params, data_root)`` of a tiny
generated copy of the data, built under ``tmp_path`` (stand-in images, invented captions; nothing
from a dataset).
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

Example = tuple[dict[str, Any], Path]
Builder = Callable[[Any, Path], Example]
"""Called with the benchmark class and the test's temporary folder."""
DATA_PREFIX = "data_"
"""The writers' module names: ``data_<name>.py``."""

_DECLARED: dict[str, Builder] = {}


def benchmark_example(*type_names: str) -> Callable[[Builder], Builder]:
    """Register the decorated builder as the example of these benchmark types; a type given twice is an
    error naming both builders."""

    def register(build: Builder) -> Builder:
        for name in type_names:
            first = _DECLARED.get(name)
            if first is not None and first is not build:
                raise ValueError(
                    f"benchmark type {name!r} has two conformance examples: {first.__module__}.{first.__qualname__} "
                    f"and {build.__module__}.{build.__qualname__}"
                )
        _DECLARED.update(dict.fromkeys(type_names, build))
        return build

    return register


@functools.cache
def benchmark_examples() -> dict[str, Builder]:
    """Every declared example by benchmark type, after importing each ``data_*`` module of this package."""
    package = __name__.rsplit(".", 1)[0]
    for info in pkgutil.iter_modules(importlib.import_module(package).__path__):
        if info.name.startswith(DATA_PREFIX):
            importlib.import_module(f"{package}.{info.name}")
    return dict(_DECLARED)
