"""The scoring stack: which versions of the distributions that can change a model's scores it was
scored with, part of every model's fingerprint.

A model type names those distributions on its class (``requires.scoring``,
:class:`~vlc_harness.requires.Requires`); the stack holds their public versions (a local label such
as ``+cpu`` or ``+cu126`` dropped, so that the PR job's CPU wheels and the nightly's CUDA wheels
agree), by canonical name. For a third-party type it also holds the type's own distribution
(:mod:`vlc_harness.plugin_identity`). Where the versions come from is a :class:`StackSource`:
``run`` reads the installed ones (:meth:`StackSource.installed`), ``plan`` the revision's
``constraints.txt`` (:meth:`StackSource.pinned`), so that ``plan --diff`` on a branch that bumps a pin
lists the cells that the bump recomputes. A run whose installed versions differ from the pins says so
(:func:`off_pin`, :func:`off_pin_line`); ``run --require-pinned`` refuses it
(:attr:`~vlc_harness.exit_codes.ExitCode.OFF_PIN`).
"""

from __future__ import annotations

import importlib.metadata
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from packaging.version import InvalidVersion, Version

from vlc_harness.plugin_identity import distribution_of, is_builtin, plugin_record
from vlc_harness.plugin_packages import PluginPackage, canonical_name

CONSTRAINTS_ENV = "VLC_HARNESS_CONSTRAINTS"
"""A ``constraints.txt`` to read instead of ``./constraints.txt`` or the harness checkout's."""
NOT_INSTALLED = None
"""A scoring distribution that is not installed is recorded as JSON ``null``."""


def public_version(version: str) -> str:
    """``version`` without its local label: ``'2.14.1+cu126'`` -> ``'2.14.1'`` (PEP 440's public version)."""
    try:
        return Version(version).public
    except InvalidVersion:
        return version.split("+", 1)[0]


def installed_version(name: str) -> str | None:
    """The installed version of a distribution as its metadata says, or ``None``: the one place the
    stack reads installed versions."""
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return None


def constraints_file() -> Path | None:
    """The ``constraints.txt`` the stack is checked against (``plan`` reads its pins): the file
    ``$VLC_HARNESS_CONSTRAINTS`` names, else ``./constraints.txt``, else the harness checkout's (beside
    ``harness/``; ``plan --diff REF`` runs REF's code, so this is REF's); ``None`` when there is none
    (a harness installed from a wheel, run elsewhere). A ``$VLC_HARNESS_CONSTRAINTS`` that names no
    file is a :class:`~vlc_harness.errors.UserError`."""
    given = os.environ.get(CONSTRAINTS_ENV)
    if given:
        if not Path(given).is_file():
            from vlc_harness.errors import UserError

            raise UserError(f"${CONSTRAINTS_ENV} names {given}, which is not a file", hint="unset it or fix the path")
        return Path(given).resolve()
    import vlc_harness

    for candidate in (Path("constraints.txt"), Path(vlc_harness.__file__).resolve().parents[1] / "constraints.txt"):
        if candidate.is_file():
            return candidate.resolve()
    return None


def read_pins(path: Path | None) -> dict[str, str]:
    """``constraints.txt``'s ``name==version`` pins by canonical name (empty for ``None``)."""
    if path is None:
        return {}
    from vlc_harness.lockfile import constraint_pins

    return constraint_pins(path)


@dataclass
class StackSource:
    """Where a stack's versions come from: the installed distributions (``pins`` only to compare
    with), or the pins themselves (``from_pins``: ``plan``). ``packages`` is the registry's
    ``plugins:`` section, whose pins a third-party type's own distribution and its dependencies
    take."""

    pins: dict[str, str]
    from_pins: bool
    packages: Mapping[str, PluginPackage] = field(default_factory=dict)
    constraints: Path | None = None
    _installed: dict[str, str | None] = field(default_factory=dict, repr=False)

    @classmethod
    def installed(cls, packages: Mapping[str, PluginPackage] | None = None) -> StackSource:
        """The installed versions (``run``), with the pins they are checked against."""
        path = constraints_file()
        return cls(read_pins(path), False, dict(packages or {}), path)

    @classmethod
    def pinned(cls, packages: Mapping[str, PluginPackage] | None = None) -> StackSource:
        """The pinned versions (``plan``): ``constraints.txt``'s, then the registry's plugin pins; a
        distribution pinned in neither takes its installed version (:meth:`unpinned` names it)."""
        path = constraints_file()
        return cls(read_pins(path), True, dict(packages or {}), path)

    def all_pins(self) -> dict[str, str]:
        """``constraints.txt``'s pins, and the registry's plugin pins for the names it does not pin."""
        listed = {canonical_name(p.package): p.version or "" for p in self.packages.values()}
        return {**listed, **self.pins}

    def installed_public(self, name: str) -> str | None:
        """The installed public version of ``name`` (cached for the life of this source)."""
        key = canonical_name(name)
        if key not in self._installed:
            found = installed_version(name)
            self._installed[key] = public_version(found) if found is not None else NOT_INSTALLED
        return self._installed[key]

    def version(self, name: str) -> str | None:
        """The version the stack records for ``name``."""
        if self.from_pins:
            pinned = self.all_pins().get(canonical_name(name))
            if pinned:
                return public_version(pinned)
        return self.installed_public(name)

    def unpinned(self, names: Iterable[str]) -> list[str]:
        """Those of ``names`` that no pin covers (canonical names)."""
        pins = self.all_pins()
        return [canonical_name(n) for n in names if canonical_name(n) not in pins]


def scoring_names(cls: type) -> tuple[str, ...]:
    """The distributions a model type declares can change its scores (``requires.scoring``)."""
    requires = getattr(cls, "requires", None)
    return tuple(getattr(requires, "scoring", ()) or ())


def model_stack(cls: type, source: StackSource) -> dict[str, Any]:
    """The stack a model of type ``cls`` is fingerprinted with: ``{"packages": {name: version}}``, plus
    ``"plugin"`` (its own distribution, :func:`~vlc_harness.plugin_identity.plugin_record`) for a
    third-party type."""
    stack: dict[str, Any] = {"packages": {canonical_name(n): source.version(n) for n in scoring_names(cls)}}
    plugin = plugin_record(cls, source.packages, source.from_pins)
    if plugin is not None:
        stack["plugin"] = plugin
    return stack


def checked_names(cls: type) -> list[str]:
    """What an off-pin check compares for a model type: its scoring distributions and, for a
    third-party type, its own distribution (against the registry's plugin pin)."""
    names = list(scoring_names(cls))
    if not is_builtin(cls):
        dist = distribution_of(cls)
        if dist is not None:
            names.append(dist.metadata["Name"])
    return names


def grid_off_pin(classes: Iterable[type], source: StackSource) -> list[Deviation]:
    """:func:`off_pin` over every model type of a grid, each distribution once."""
    return off_pin([n for cls in dict.fromkeys(classes) for n in checked_names(cls)], source)


@dataclass(frozen=True)
class Deviation:
    """A score-changing distribution whose installed version is not its pinned one."""

    name: str
    installed: str | None
    pinned: str

    def text(self) -> str:
        """``transformers 5.25.0 (pinned 5.24.0)``."""
        return f"{self.name} {self.installed or 'not installed'} (pinned {self.pinned})"

    def record(self) -> dict[str, Any]:
        """As a cell's provenance keeps it (``off_pin``)."""
        return {"name": self.name, "installed": self.installed, "pinned": self.pinned}


def off_pin(names: Iterable[str], source: StackSource) -> list[Deviation]:
    """The distributions among ``names`` whose installed public version differs from their pin
    (``constraints.txt``'s, else the registry's plugin pin); a name pinned nowhere is not checked."""
    pins = source.all_pins()
    out = []
    for name in dict.fromkeys(canonical_name(n) for n in names):
        pinned = pins.get(name)
        if pinned is None:
            continue
        have = source.installed_public(name)
        if have != public_version(pinned):
            out.append(Deviation(name, have, public_version(pinned)))
    return out


def off_pin_line(deviations: list[Deviation], constraints: Path | None) -> str:
    """The one line a run prints when it is off-pin."""
    where = str(constraints) if constraints is not None else "the pins"
    return (
        f"off-pin: installed score-changing versions differ from {where}: "
        + ", ".join(d.text() for d in deviations)
        + " (the cells computed now carry these versions and the board marks them)"
    )


def stack_change(old: Any, new: Mapping[str, Any]) -> str:
    """What changed between two stacks, in a few words: ``transformers 5.24.0 -> 5.25.0``, ``plugin
    source changed``, ``vlc-my-clip 0.1.0 -> 0.2.0``; for a stack a migration could not name
    (``unknown``), which part was not recorded."""
    if not isinstance(old, Mapping):
        return "scoring stack not recorded before"
    if "unknown" in old:
        return f"scoring stack unknown before ({old['unknown']})"
    parts = []
    old_packages, new_packages = old.get("packages") or {}, new.get("packages") or {}
    for name in sorted(set(old_packages) | set(new_packages)):
        before, after = old_packages.get(name, "undeclared"), new_packages.get(name, "undeclared")
        if before != after:
            parts.append(f"{name} {_shown(before)} -> {_shown(after)}")
    parts += _plugin_change(old.get("plugin"), new.get("plugin"))
    return ", ".join(parts) or "scoring stack changed"


def _shown(version: Any) -> str:
    return "not installed" if version is None else str(version)


def _plugin_change(old: Any, new: Any) -> list[str]:
    if old == new:
        return []
    if not isinstance(old, Mapping) or not isinstance(new, Mapping):
        return ["plugin distribution changed"]
    if old.get("unknown"):
        return [f"plugin {new.get('distribution') or new.get('module')}: not recorded before"]
    if "source" in old and "source" in new and old.get("version") == new.get("version"):
        return ["plugin source changed"]
    name = new.get("distribution") or new.get("module")
    return [f"plugin {name} {old.get('version') or '?'} -> {new.get('version') or '?'}"]


__all__ = [
    "CONSTRAINTS_ENV",
    "Deviation",
    "StackSource",
    "checked_names",
    "constraints_file",
    "grid_off_pin",
    "installed_version",
    "model_stack",
    "off_pin",
    "off_pin_line",
    "public_version",
    "read_pins",
    "scoring_names",
    "stack_change",
]
