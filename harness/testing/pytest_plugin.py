"""pytest plugin shipped with vlc-harness (``pytest11`` entry point ``vlc_harness``).

Fixtures:

* ``vlc_plugins``: the loaded plugin set (entry points, as ``vlc-harness`` sees them).
* ``vlc_store``: an empty SQLite store in ``tmp_path``.
* ``vlc_cli``: run the command line in-process: ``vlc_cli("run", "-m", ...)`` returns click's result.
* ``vlc_registered``: a context manager that registers a plugin object for one test.

Parametrization: a test that takes ``vlc_model_type`` or ``vlc_benchmark_type`` runs once per
registered type (see :mod:`vlc_harness.testing.conformance`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest


@pytest.fixture
def vlc_plugins() -> Any:
    """The plugin set as the command line loads it."""
    from vlc_harness.plugins import get_plugins

    return get_plugins()


@pytest.fixture
def vlc_store(tmp_path: Path) -> Any:
    """An empty SQLite store in the test's temporary folder."""
    from vlc_harness.store import open_store

    store = open_store(f"sqlite:///{tmp_path / 'store.sqlite'}")
    yield store
    store.close()


@pytest.fixture
def vlc_cli() -> Callable[..., Any]:
    """Invoke ``vlc-harness`` in-process; returns click's ``Result`` (exit code, output)."""
    from click.testing import CliRunner

    from vlc_harness.cli import build_cli

    def invoke(*args: str, **kwargs: Any) -> Any:
        runner = CliRunner()
        return runner.invoke(build_cli(), list(args), catch_exceptions=False, **kwargs)

    return invoke


@pytest.fixture
def vlc_registered(vlc_plugins: Any) -> Callable[[Any], contextlib.AbstractContextManager[None]]:
    """``with vlc_registered(plugin): ...`` registers a plugin object and rebuilds the catalog."""

    @contextlib.contextmanager
    def register(plugin: Any) -> Iterator[None]:
        name = f"undo-{id(plugin)}"
        vlc_plugins.pm.register(plugin, name=name)
        try:
            vlc_plugins.rebuild()
            yield
        finally:
            vlc_plugins.pm.unregister(name=name)
            vlc_plugins.rebuild()

    return register


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Parametrize ``vlc_model_type`` / ``vlc_benchmark_type`` over every registered type."""
    wanted = {"vlc_model_type", "vlc_benchmark_type"} & set(metafunc.fixturenames)
    if not wanted:
        return
    from vlc_harness.plugins import get_plugins

    plugins = get_plugins()
    if "vlc_model_type" in wanted:
        metafunc.parametrize("vlc_model_type", plugins.models.names())
    if "vlc_benchmark_type" in wanted:
        metafunc.parametrize("vlc_benchmark_type", plugins.benchmarks.names())
