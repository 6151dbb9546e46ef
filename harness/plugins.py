"""The plugin manager: entry points, allow/block lists, and the catalog of registered types.

Plugins come from the ``vlc_harness`` entry-point group. An entry-point module may name more
plugin modules in a ``vlc_harness_plugins`` list (as pytest's ``pytest_plugins``): the built-in
entry point ``plugins`` lists every module under ``plugins/``, so adding a built-in plugin file
needs no other edit. Environment variables:

* ``VLC_HARNESS_LOAD_PLUGINS``: comma-separated allow-list of plugin names (as ``vlc-harness
  plugins`` prints them); an entry-point name allows all its modules.
* ``VLC_HARNESS_BLOCK_PLUGINS``: comma-separated plugin names never to load.
* ``VLC_HARNESS_PLUGINS_DIR``: a folder whose ``*.py`` files are loaded as plugins (one-off
  plugins without packaging).
"""

from __future__ import annotations

import difflib
import importlib
import importlib.metadata
import importlib.util
import os
import sys
import warnings
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import pluggy

from vlc_harness import hookspecs, registered
from vlc_harness.benchmarks import Benchmark
from vlc_harness.catalog import Registrar
from vlc_harness.errors import PluginError
from vlc_harness.metrics.family import Family
from vlc_harness.models import Model

ENV_LOAD = "VLC_HARNESS_LOAD_PLUGINS"
ENV_BLOCK = "VLC_HARNESS_BLOCK_PLUGINS"
ENV_DIR = "VLC_HARNESS_PLUGINS_DIR"
SUBPLUGINS_ATTR = "vlc_harness_plugins"
LOCAL_PREFIX = "vlc_harness_local_plugins."
CORE_PLUGINS = (
    "vlc_harness.cli.commands",
    "vlc_harness.planview.hooks",
    "vlc_harness.ci.hooks",
    "vlc_harness.metrics.families",
)
"""The core's own plugins (its commands: ``data``, ``verify``, ``schema``, ``new``; ``plan``; ``ci``; its
metric families), registered whatever the allow-list."""


@dataclass
class PluginInfo:
    """What ``vlc-harness plugins`` prints about one plugin."""

    name: str
    version: str | None
    hooks: list[str]
    source: str
    models: list[str] = field(default_factory=list)
    """Model types this plugin registered."""
    benchmarks: list[str] = field(default_factory=list)
    """Benchmark types this plugin registered."""
    families: list[str] = field(default_factory=list)
    """Metric family types this plugin registered."""

    def summary(self) -> str:
        """What the plugin adds, as one line of ``vlc-harness plugins``' table."""
        what = [f"{kind}: {', '.join(names)}" for kind, names in self._types() if names]
        what += ["commands"] if "register_commands" in self.hooks else []
        return "; ".join(what) or ("(no types)" if self.hooks else "(helper module, no hooks)")

    def _types(self) -> list[tuple[str, list[str]]]:
        return [("models", self.models), ("benchmarks", self.benchmarks), ("metric families", self.families)]


@dataclass
class Plugins:
    """A loaded plugin manager plus the model, benchmark and metric family types its plugins registered."""

    pm: pluggy.PluginManager
    models: Registrar[Model] = field(init=False)
    benchmarks: Registrar[Benchmark] = field(init=False)
    families: Registrar[Family] = field(init=False)
    versions: dict[str, str | None] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.rebuild()

    def rebuild(self) -> None:
        """Call the ``register_*`` hooks again (after registering or removing a plugin)."""
        self.families = Registrar("metric family", Family, key="name")
        self.models = Registrar("model", Model)
        self.benchmarks = Registrar("benchmark", Benchmark)
        self._collect("register_metric_families", self.families)
        self._collect("register_models", self.models)
        self._collect("register_benchmarks", self.benchmarks)

    def _collect(self, hook_name: str, registrar: Registrar[Any]) -> None:
        caller = getattr(self.pm.hook, hook_name)
        # Called one implementation at a time so that a duplicate names the plugin behind it.
        for impl in reversed(caller.get_hookimpls()):
            registrar.current_plugin = impl.plugin_name
            impl.function(*[registrar for _ in impl.argnames])

    def info(self) -> list[PluginInfo]:
        """Every registered plugin with its version and the hooks it implements."""
        out = []
        for name, plugin in sorted(self.pm.list_name_plugin(), key=lambda x: x[0]):
            if plugin is None:
                continue
            hooks = sorted(c.name for c in self.pm.get_hookcallers(plugin) or [])
            source = getattr(plugin, "__file__", None) or repr(plugin)
            models = sorted(t for t, r in self.models.entries.items() if r.plugin == name)
            benchmarks = sorted(t for t, r in self.benchmarks.entries.items() if r.plugin == name)
            families = sorted(t for t, r in self.families.entries.items() if r.plugin == name)
            out.append(PluginInfo(name, self.versions.get(name), hooks, str(source), models, benchmarks, families))
        return out


def _names(env: str) -> set[str]:
    return {n.strip() for n in os.environ.get(env, "").split(",") if n.strip()}


def new_manager() -> pluggy.PluginManager:
    """A plugin manager with the harness hookspecs and nothing registered."""
    pm = pluggy.PluginManager(hookspecs.PROJECT)
    pm.add_hookspecs(hookspecs)
    return pm


def load_plugins(only: Collection[str] | None = None) -> Plugins:
    """Load every plugin allowed by the environment, check hooks, and build the catalog.

    ``only``: exactly these plugin names (entry points, with their modules) besides the core's, whatever
    the environment's allow and block lists and plugins folder say (what ``vlc-harness dev generate``
    loads, so that generated files do not depend on the machine)."""
    pm = new_manager()
    for name in CORE_PLUGINS:  # always there
        pm.register(importlib.import_module(name), name=name)
    allow, block = (set(only), set()) if only is not None else (_names(ENV_LOAD), _names(ENV_BLOCK))
    versions: dict[str, str | None] = {}
    for name in block:
        pm.set_blocked(name)

    def allowed(name: str, container: str | None = None) -> bool:
        if name in block or (container is not None and container in block):
            return False
        return not allow or name in allow or (container is not None and container in allow)

    for ep in sorted(importlib.metadata.entry_points(group=hookspecs.PROJECT), key=lambda e: e.name):
        children_allowed = allow and any(a.startswith(ep.value + ".") for a in allow)
        if not (allowed(ep.name) or children_allowed) or pm.has_plugin(ep.name):
            continue
        try:
            module = ep.load()
        except Exception as exc:  # a broken third-party plugin must say who it is
            raise PluginError(f"plugin {ep.name} ({ep.value}) failed to import: {exc}") from exc
        version = ep.dist.version if ep.dist is not None else None
        if allowed(ep.name) and _has_hooks(module):
            pm.register(module, name=ep.name)
            versions[ep.name] = version
        for child in getattr(module, SUBPLUGINS_ATTR, []):
            if allowed(child, ep.name) and not pm.is_blocked(child):
                try:
                    child_module = importlib.import_module(child)
                except Exception as exc:  # e.g. a metric declaration with an impossible option
                    raise PluginError(f"plugin {child} (of {ep.name}) failed to import: {exc}") from exc
                pm.register(child_module, name=child)
                versions[child] = version
    plugin_dir = os.environ.get(ENV_DIR) if only is None else None
    if plugin_dir:
        for path in sorted(Path(plugin_dir).glob("*.py")):
            name = LOCAL_PREFIX + path.stem
            if allowed(name) and not pm.has_plugin(name):
                try:
                    local = import_file(name, path)
                except PluginError:
                    raise
                except Exception as exc:
                    sys.modules.pop(name, None)
                    raise PluginError(f"plugin {name} ({path}) failed to import: {exc}") from exc
                pm.register(local, name=name)
                versions[name] = None
    warn_unknown_hooks(pm)
    return Plugins(pm, versions=versions)


def warn_unknown_hooks(pm: pluggy.PluginManager) -> None:
    """Warn, once per plugin and hook, of an implementation of a hook that does not exist (a misspelt
    ``register_model``), naming the plugin's module and the hook it probably meant. pluggy's
    ``check_pending()`` would raise and take every other plugin's commands down with it; the
    misspelt hook is simply never called."""
    specs = [n for n in dir(hookspecs) if hasattr(getattr(hookspecs, n), hookspecs.PROJECT + "_spec")]
    for name, caller in sorted(vars(pm.hook).items()):
        if not isinstance(caller, pluggy.HookCaller) or caller.has_spec():
            continue
        for impl in caller.get_hookimpls():
            if impl.optionalhook:
                continue
            key = (impl.plugin_name, name)
            if key in _WARNED:
                continue
            _WARNED.add(key)
            close = difflib.get_close_matches(name, specs, n=1)
            meant = f"; did you mean {close[0]}?" if close else ""
            module = getattr(impl.plugin, "__name__", impl.plugin_name)
            warnings.warn(
                f"plugin {impl.plugin_name} ({module}) implements {name}, which is not a vlc-harness hook{meant} "
                "(it is never called)",
                PluginWarning,
                stacklevel=2,
            )


class PluginWarning(UserWarning):
    """A plugin does something the harness ignores (a hook that does not exist)."""


_WARNED: set[tuple[str, str]] = set()


def _has_hooks(module: ModuleType) -> bool:
    return any(hasattr(getattr(module, n, None), hookspecs.PROJECT + "_impl") for n in dir(module))


def import_file(name: str, path: Path) -> ModuleType:
    """Import a plugin from a file path under module name ``name``."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise PluginError(f"cannot import plugin file {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def class_locator(cls: type) -> dict[str, str | None]:
    """How a worker process finds a registered class again: module, qualname, file."""
    module = sys.modules.get(cls.__module__)
    return {
        "module": cls.__module__,
        "qualname": cls.__qualname__,
        "file": getattr(module, "__file__", None),
    }


def resolve_locator(locator: dict[str, str | None]) -> type:
    """The class a :func:`class_locator` names (imported by name, else from its file)."""
    module_name = str(locator["module"])
    if module_name in ("__main__", "__mp_main__"):  # importing it by file would run the caller's script again
        raise PluginError(
            f"{locator['qualname']} is defined in the script that started the run "
            f"({locator.get('file') or 'an interactive session'}), which a worker process cannot import; "
            "move it to a module, or give evaluate() a model object"
        )
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError:
        if not locator.get("file"):
            raise
        module = import_file(module_name, Path(str(locator["file"])))
    obj: Any = module
    for part in str(locator["qualname"]).split("."):
        obj = getattr(obj, part)
    return obj


def resolve_model(locator: dict[str, str | None]) -> type[Model]:
    """The model class a :func:`class_locator` names (what a worker process builds its model from)."""
    cls = resolve_locator(locator)
    if not (isinstance(cls, type) and issubclass(cls, Model)):
        raise PluginError(f"{locator['module']}.{locator['qualname']} is not a model class")
    return cls


_CACHED: Plugins | None = None


def get_plugins(reload: bool = False) -> Plugins:
    """The process-wide plugin set (loaded on first use)."""
    global _CACHED
    if _CACHED is None or reload:
        _CACHED = load_plugins()
    return _CACHED


def _model_types() -> dict[str, type]:
    return {name: registered.cls for name, registered in get_plugins().models.entries.items()}


registered.provide(_model_types)  # the store's migration to schema 6 reads each stored type's class here
