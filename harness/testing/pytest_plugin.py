"""pytest plugin shipped with vlc-harness (``pytest11`` entry point ``vlc_harness``).

Fixtures:

* ``vlc_plugins``: the loaded plugin set (entry points, as ``vlc-harness`` sees them).
* ``vlc_store``: an empty SQLite store in ``tmp_path``.
* ``vlc_cli``: run the command line in-process: ``vlc_cli("run", "-m", ...)`` returns click's result.
* ``vlc_run``: ``vlc run`` with the store, the data root and ``--no-progress`` filled in:
  ``vlc_run("-m", "random", "-b", "shapes", data_root=root)``; ``vlc_run.store()`` opens the
  test's store, ``vlc_run.cli("show", "--format", "json")`` runs another command on it. Models
  run in the test's own process (``--executor inprocess``: no interpreter and no torch import per
  run); a test marked ``@pytest.mark.vlc_worker_process`` gets worker processes (``--executor
  local``), as does one that passes ``--executor`` itself. Mark the tests that are about isolation
  (a model that segfaults, hangs, exits or leaks state into its process); stored results are the
  same either way.
* ``vlc_registered``: a context manager that registers a plugin object for one test.
* ``vlc_varied_inputs``: the generated captions and images the conformance checks score
  (:mod:`vlc_harness.testing.varied_inputs`, seeded; the images written under ``tmp_path``).

Parametrization: a test that takes ``vlc_model_type``, ``vlc_benchmark_type`` or ``vlc_family_type``
(a metric family) runs once per type under test: by default the calling package's (types defined
under the rootdir), else those ``--vlc-types a,b`` (or the ``vlc_types`` ini key) names, or ``all``
(see :func:`conformance_selection` and :mod:`vlc_harness.testing.conformance`).
"""

from __future__ import annotations

import contextlib
import sys
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

    def __init__(self, cli: Callable[..., Any], store_path: Path, executor: str = "inprocess") -> None:
        self._cli = cli
        self.executor = executor
        """The ``--executor`` given to ``run`` unless the arguments name one."""
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
        """Run ``vlc-harness run ARGS --store URL --executor E [--data-root DIR] --no-progress``;
        click's result.

        Without ``data_root`` the command reads ``$VLC_HARNESS_DATA`` itself, as it would for a
        user; ``progress=True`` drops ``--no-progress``; ``--executor`` in ``args`` wins over
        :attr:`executor`."""
        argv = ["run", *args, "--store", store_url or self.store_url]
        if not any(a == "--executor" or a.startswith("--executor=") for a in args):
            argv += ["--executor", self.executor]
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


WORKER_PROCESS = "vlc_worker_process"
"""The marker of a test whose ``vlc_run`` runs models in worker processes (``--executor local``)."""


@pytest.fixture
def vlc_run(vlc_cli: Callable[..., Any], tmp_path: Path, request: pytest.FixtureRequest) -> VlcRun:
    """``vlc_run(*args, data_root=None)``: ``vlc-harness run`` with a fresh SQLite store in
    ``tmp_path`` and ``--no-progress`` (``data_root``: ``--data-root``; else the command reads
    ``$VLC_HARNESS_DATA`` as usual). Models run in this process (``--executor inprocess``), or in
    worker processes for a test marked ``vlc_worker_process``."""
    executor = "local" if request.node.get_closest_marker(WORKER_PROCESS) else "inprocess"
    return VlcRun(vlc_cli, tmp_path / "vlc-store.sqlite", executor)


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


def pytest_configure(config: pytest.Config) -> None:
    """Register the ``vlc_worker_process`` marker (so ``--strict-markers`` suites may use it)."""
    config.addinivalue_line(
        "markers", f"{WORKER_PROCESS}: vlc_run runs models in worker processes (--executor local), not in this one"
    )


@pytest.fixture
def vlc_varied_inputs(tmp_path: Path) -> Any:
    """The conformance checks' generated captions and images
    (:class:`~vlc_harness.testing.varied_inputs.VariedInputs`)."""
    from vlc_harness.testing.varied_inputs import varied_inputs

    return varied_inputs(tmp_path / "varied")


def pytest_addoption(parser: pytest.Parser) -> None:
    """``--vlc-types`` (and the ``vlc_types`` ini key): which types the conformance tests check."""
    group = parser.getgroup("vlc-harness")
    help_text = (
        "comma-separated model, benchmark and metric family types the conformance tests check; 'all' for every "
        "registered type (default: the types whose plugin code lies under the rootdir)"
    )
    group.addoption("--vlc-types", dest="vlc_types", default=None, help=help_text)
    parser.addini("vlc_types", help_text, default="")


KINDS = {"vlc_model_type": "models", "vlc_benchmark_type": "benchmarks", "vlc_family_type": "families"}
"""The conformance parameters and the catalog (of the loaded plugins) each runs over."""


def conformance_selection(config: pytest.Config, plugins: Any) -> dict[str, list[str]]:
    """The type names each conformance parameter runs over for this pytest run (``vlc_model_type``,
    ``vlc_benchmark_type``, ``vlc_family_type``: model, benchmark and metric family types).

    By default, the calling package's: types whose class is defined in a file under the rootdir
    (an editable install, or plugins loaded from a folder), so a plugin author's tests never run,
    or fail on, the built-ins. ``--vlc-types a,b`` or ``all`` choose explicitly; an unknown name
    is a usage error.
    """
    wanted = config.getoption("vlc_types") or config.getini("vlc_types") or ""
    catalogs = {param: getattr(plugins, attr).entries for param, attr in KINDS.items()}
    known = {name for entries in catalogs.values() for name in entries}
    if wanted.strip() == "all":
        return {param: sorted(entries) for param, entries in catalogs.items()}
    if wanted.strip():
        names = [n.strip() for n in wanted.split(",") if n.strip()]
        unknown = [n for n in names if n not in known]
        if unknown:
            raise pytest.UsageError(
                f"--vlc-types: unknown type(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}"
            )
        return {param: [n for n in names if n in entries] for param, entries in catalogs.items()}
    root = Path(config.rootpath).resolve()

    def local(cls: type) -> bool:
        module = sys.modules.get(cls.__module__)
        file = getattr(module, "__file__", None)
        return isinstance(file, str) and bool(file) and Path(file).resolve().is_relative_to(root)

    mine = {param: sorted(n for n, r in entries.items() if local(r.cls)) for param, entries in catalogs.items()}
    if not any(mine.values()):
        raise pytest.UsageError(
            f"vlc-harness conformance: no model, benchmark or metric family type is defined under {root}; install "
            "your plugin with `pip install -e .` and run pytest from its folder, or pass --vlc-types NAME[,NAME]"
        )
    return mine


def conformance_types(config: pytest.Config, plugins: Any) -> tuple[list[str], list[str]]:
    """The (model, benchmark) types the conformance tests check (see :func:`conformance_selection`)."""
    selected = conformance_selection(config, plugins)
    return selected["vlc_model_type"], selected["vlc_benchmark_type"]


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Parametrize ``vlc_model_type`` / ``vlc_benchmark_type`` / ``vlc_family_type`` over the types
    under test (:func:`conformance_selection`)."""
    wanted = set(KINDS) & set(metafunc.fixturenames)
    if not wanted:
        return
    from vlc_harness.plugins import get_plugins

    selected = conformance_selection(metafunc.config, get_plugins())
    for param in sorted(wanted):
        metafunc.parametrize(param, selected[param] or [NO_TYPES])


NO_TYPES = "<none>"
"""The parameter of a conformance test with no type to check (deselected, not skipped)."""


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Deselect the model (benchmark, family) checks of a package that defines no model (benchmark, family)."""
    keep: list[pytest.Item] = []
    drop: list[Any] = []
    for item in items:
        params = getattr(getattr(item, "callspec", None), "params", {})
        none = NO_TYPES in (params.get(param) for param in KINDS)
        (drop if none else keep).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep
        kinds = sorted(
            {KIND_WORDS.get(p, p) for item in drop for p, v in item.callspec.params.items() if v == NO_TYPES}
        )
        config.stash[_DESELECTED] = (
            f"vlc-harness conformance: deselected {len(drop)} check(s) of {', '.join(kinds)} types: no such type "
            f"is defined under {config.rootpath} (pass --vlc-types NAME[,NAME] or --vlc-types all to check "
            "installed ones)"
        )


KIND_WORDS = {"vlc_model_type": "model", "vlc_benchmark_type": "benchmark", "vlc_family_type": "metric family"}
_DESELECTED = pytest.StashKey[str]()


def pytest_report_collectionfinish(config: pytest.Config) -> str | None:
    """Say why conformance checks were deselected (a package that defines no type of that kind)."""
    return config.stash.get(_DESELECTED, None)
