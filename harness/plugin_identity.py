"""A third-party model type's own code in its fingerprint, so that a rebuilt plugin recomputes.

vlc-harness's own types (classes in the packages of the ``vlc-harness`` distribution: the core, its
built-in plugins and the board) have none: their ``scoring_version`` is bumped when their scoring code changes.
Any other type's stack (:func:`vlc_harness.stack.model_stack`) holds its distribution:

* installed from the registry's ``plugins:`` pin (:mod:`vlc_harness.plugin_packages`): the pinned
  version and the pin's sorted hashes (``plan`` takes them from the registry whatever is installed);
* otherwise (an editable or local install, a version other than the pin, a plugins-folder file, a class
  defined in a script or a test): a digest of its own source files, the ``.py`` files of its outermost
  regular package (else its module's file), with its distribution's name and version where it has one.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.metadata
import json
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any

from vlc_harness.plugin_packages import PluginPackage, canonical_name, provider

DISTRIBUTION = "vlc-harness"
METADATA_SUFFIXES = (".dist-info", ".egg-info")
NO_SOURCE = "unavailable: the class has no source file (defined interactively)"


@functools.cache
def own_packages() -> frozenset[str]:
    """vlc-harness's own import packages (their types carry no plugin record): the top-level names of
    the installed ``vlc-harness`` distribution, else (a source tree run uninstalled) those its
    ``pyproject.toml`` maps (``[tool.setuptools] package-dir``). The core's own name is always one."""
    import vlc_harness

    names = set().union(*map(_top_level_names, importlib.metadata.distributions(name=DISTRIBUTION)))
    if not names:
        pyproject = Path(vlc_harness.__file__).resolve().parents[1] / "pyproject.toml"
        if pyproject.is_file():
            mapping = _toml(pyproject).get("tool", {}).get("setuptools", {}).get("package-dir", {})
            names = {name for name in mapping if name} if isinstance(mapping, dict) else set()
    return frozenset(names | {vlc_harness.__name__})


def _top_level_names(dist: importlib.metadata.Distribution) -> set[str]:
    """The top-level import names ``dist`` provides, as :func:`importlib.metadata.packages_distributions`
    reads them (its ``top_level.txt``, else the first part of each ``.py`` file it lists), from this one
    distribution's metadata: finding vlc-harness's own packages never reads every distribution's file list.
    Empty for a distribution of another name (``distributions(name=...)`` also matches spellings)."""
    if dist.metadata["Name"] != DISTRIBUTION:
        return set()
    declared = (dist.read_text("top_level.txt") or "").split()
    if declared:
        return set(declared)
    return {f.parts[0] if len(f.parts) > 1 else f.stem for f in dist.files or () if f.suffix == ".py"}


def top_level_distributions() -> Mapping[str, tuple[str, ...]]:
    """:func:`importlib.metadata.packages_distributions` (top-level import name -> the distributions that
    provide it), read again only when the metadata folders on ``sys.path`` change. Reading it costs a
    third of a second in an environment with torch (every distribution's file list) and a run asks for
    each third-party model type; installing, upgrading or removing a distribution adds or removes a
    ``*.dist-info`` folder, which changes the key (:func:`metadata_state`)."""
    return _distributions_for(metadata_state())


def metadata_state() -> tuple[tuple[str, tuple[tuple[str, int], ...]], ...]:
    """Each ``sys.path`` folder with the names and modification times of its metadata folders (about a
    millisecond: a listing per folder and a ``stat`` per distribution)."""
    state = []
    for entry in sys.path:
        folder = os.path.abspath(entry)
        try:
            names = sorted(n for n in os.listdir(folder) if n.endswith(METADATA_SUFFIXES))
            state.append((folder, tuple((n, os.stat(os.path.join(folder, n)).st_mtime_ns) for n in names)))
        except OSError:  # a zip file or a folder that is gone
            state.append((folder, ()))
    return tuple(state)


@functools.lru_cache(maxsize=4)
def _distributions_for(state: tuple[tuple[str, tuple[tuple[str, int], ...]], ...]) -> Mapping[str, tuple[str, ...]]:
    found = importlib.metadata.packages_distributions()
    return MappingProxyType({top: tuple(names) for top, names in found.items()})


def _toml(path: Path) -> dict[str, Any]:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10 (tomli is a dependency there)
        import tomli as tomllib
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError, OSError):
        return {}


def is_builtin(cls: type) -> bool:
    """Whether ``cls`` is one of vlc-harness's own classes (not a third party's)."""
    return cls.__module__.split(".", 1)[0] in own_packages()


def plugin_record(cls: type, packages: Mapping[str, PluginPackage], from_pins: bool) -> dict[str, Any] | None:
    """The record of ``cls``'s own distribution (the module docstring says which); ``None`` for a
    built-in type. ``from_pins``: what the registry pins (``plan``), else what is installed (``run``)."""
    if is_builtin(cls):
        return None
    dist = distribution_of(cls)
    name = canonical_name(dist.metadata["Name"]) if dist is not None else None
    listed = packages.get(name) if name else None
    if listed is None and from_pins:
        listed = provider(packages, "models", str(getattr(cls, "type_name", "")))
    pinned = listed is not None and (
        from_pins or (dist is not None and dist.version == listed.version and not is_local_install(dist))
    )
    if pinned and listed is not None:
        return {
            "distribution": canonical_name(listed.package),
            "version": listed.version,
            "hashes": sorted(listed.hashes),
        }
    record: dict[str, Any] = {"source": source_digest(cls)}
    if dist is not None:
        return {"distribution": name, "version": dist.version, **record}
    return {"module": cls.__module__.split(".", 1)[0], **record}


def distribution_of(cls: type) -> importlib.metadata.Distribution | None:
    """The installed distribution that provides ``cls``'s top-level package, if any."""
    top = cls.__module__.split(".", 1)[0]
    names = top_level_distributions().get(top, ())
    for name in names:
        try:
            return importlib.metadata.distribution(name)
        except importlib.metadata.PackageNotFoundError:
            continue
    return None


def is_local_install(dist: importlib.metadata.Distribution) -> bool:
    """An editable install or one from a local folder or file (PEP 610's ``direct_url.json``), not from
    an index: its code is whatever that folder held."""
    text = dist.read_text("direct_url.json")
    if not text:
        return False
    try:
        direct = json.loads(text)
    except ValueError:
        return True  # a direct URL that cannot be read: not an index install
    return "dir_info" in direct or str(direct.get("url", "")).startswith("file:")


def source_files(cls: type) -> tuple[Path | None, list[Path]]:
    """The folder of ``cls``'s outermost regular package and its ``.py`` files, or (no regular package)
    ``None`` and its module's file; no files where the module has none."""
    parts = cls.__module__.split(".")
    for i in range(1, len(parts) + 1):
        file = getattr(sys.modules.get(".".join(parts[:i])), "__file__", None)
        if file and Path(file).name == "__init__.py":
            root = Path(file).parent
            return root, sorted(p for p in root.rglob("*.py") if p.is_file())
    file = getattr(sys.modules.get(cls.__module__), "__file__", None)
    return None, [Path(file)] if file and Path(file).is_file() else []


def source_digest(cls: type) -> str:
    """``sha256:<hex>`` over the relative names and sha256 of :func:`source_files`."""
    from vlc_harness.hashing import sha256_files

    root, files = source_files(cls)
    if not files:
        return NO_SOURCE
    digests = sha256_files(files)
    names = [p.relative_to(root).as_posix() if root is not None else p.name for p in files]
    lines = [f"{name}=sha256:{digests[p]}" for name, p in zip(names, files)]
    return "sha256:" + hashlib.sha256("\n".join(lines).encode()).hexdigest()


__all__ = [
    "distribution_of",
    "is_builtin",
    "is_local_install",
    "own_packages",
    "plugin_record",
    "source_digest",
    "metadata_state",
    "top_level_distributions",
]
