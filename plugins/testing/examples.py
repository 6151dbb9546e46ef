"""The built-in plugins' testing plugin: the ``conformance_example`` hook for every built-in type.

Named by the ``vlc_harness_testing`` entry point ``builtin``, so only the conformance checks (and
tests that call :func:`vlc_harness.testing.examples.example_for`) load it. An example is found as
an inherited classmethod would be: along the class's MRO, the first class that defines its own
``conformance_example`` wins (then the hook answers ``None`` and that method is used); before it, a
built-in class whose type has an example here gives that one. So a subclass of a built-in type
(``docs/examples/open_clip_templated.py``) gets the built-in's example unless it defines its own.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from vlc_harness import hookimpl
from vlc_harness.benchmarks import Benchmark
from vlc_harness_builtins.testing.benchmark_examples import benchmark_examples
from vlc_harness_builtins.testing.model_examples import MODEL_EXAMPLES

BUILTIN_PREFIX = "vlc_harness_builtins."


def builtin_example(cls: type) -> tuple[type, Callable[..., Any]] | None:
    """The built-in class of ``cls``'s MRO whose example ``cls`` inherits, and that example's builder;
    ``None`` when a class before it defines its own ``conformance_example`` or none has one."""
    table: dict[str, Callable[..., Any]] = benchmark_examples() if issubclass(cls, Benchmark) else MODEL_EXAMPLES
    for base in cls.__mro__:
        if "conformance_example" in vars(base):
            return None
        name = vars(base).get("type_name")
        if base.__module__.startswith(BUILTIN_PREFIX) and name in table:
            return base, table[name]
    return None


@hookimpl
def conformance_example(cls: type, tmp_path: Path) -> Any:
    """The example ``cls`` inherits from a built-in type, built under ``tmp_path``; else ``None``."""
    found = builtin_example(cls)
    if found is None:
        return None
    base, build = found
    return build(cls, tmp_path) if issubclass(base, Benchmark) else build(tmp_path)
