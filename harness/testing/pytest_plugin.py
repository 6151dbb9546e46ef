"""pytest plugin shipped with vlc-harness (``pytest11`` entry point ``vlc_harness``).

Fixtures:

* ``vlc_plugins``: the loaded plugin set (entry points, as ``vlc-harness`` sees them).
* ``vlc_store``: an empty SQLite store in ``tmp_path``.
* ``vlc_cli``: run the command line in-process: ``vlc_cli("run", "-m", ...)`` returns click's result.
* ``vlc_run``: ``vlc run`` with the store, the data root and ``--no-progress`` filled in:
  ``vlc_run("-m", "random", "-b", "shapes", data_root=root)``; ``vlc_run.store()`` opens the
  test's store, ``vlc_run.cli("show", "--format", "json")`` runs another command on it.
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


class VlcRun:
    """``vlc-harness run`` on a store of the test's own (see the ``vlc_run`` fixture)."""

    def __init__(self, cli: Callable[..., Any], store_path: Path) -> None:
        self._cli = cli
        self.store_path = store_path
        """The test's SQLite store file (in ``tmp_path``; created by the first run)."""
        self.store_url = f"sqlite:///{store_path}"
        """Its SQLAlchemy URL."""

    def __call__(
        self,
        *args: str,
        data_root: Path | str | None = None,
        store_url: str | None = None,
        progress: bool = False,
    ) -> Any:
        """Run ``vlc-harness run ARGS --store URL [--data-root DIR] --no-progress``; click's result.

        Without ``data_root`` the command reads ``$VLC_HARNESS_DATA`` itself, as it would for a
        user; ``progress=True`` drops ``--no-progress``."""
        argv = ["run", *args, "--store", store_url or self.store_url]
        if not progress:
            argv.append("--no-progress")
        if data_root is not None:
            argv += ["--data-root", str(data_root)]
        return self._cli(*argv)

    def cli(self, *args: str, store_url: str | None = None) -> Any:
        """Any other command (``show``, ``render``, ``verify``) on the test's store (or ``store_url``)."""
        return self._cli(*args, "--store", store_url or self.store_url)

    def store(self) -> Any:
        """The test's store, opened."""
        from vlc_harness.store import open_store

        return open_store(self.store_url)


@pytest.fixture
def vlc_run(vlc_cli: Callable[..., Any], tmp_path: Path) -> VlcRun:
    """``vlc_run(*args, data_root=None)``: ``vlc-harness run`` with a fresh SQLite store in
    ``tmp_path`` and ``--no-progress`` (``data_root``: ``--data-root``; else the command reads
    ``$VLC_HARNESS_DATA`` as usual)."""
    return VlcRun(vlc_cli, tmp_path / "vlc-store.sqlite")


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
