"""The ``plugins:`` section of a registry: the pinned packages that provide its model and benchmark types.

Format::

    plugins:
      - package: vlc-my-clip                       # the distribution's name
        pin: vlc-my-clip==0.1.0                    # name==version, with its wheels' hashes
        hashes: [sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08]
        models: [my_clip]                          # the types it registers
      - package: lab-tokenizer                     # a plugin's own dependency, pinned the same way
        pin: lab-tokenizer==2.1.0
        hashes: [sha256:60303ae22b998861bce3b28f33eec1be758a213c86c93c076dbe9f558c11c752]
        dependency_of: vlc-my-clip                 # no types: it registers none

``vlc-harness plugins install`` installs exactly these pins, from wheels only
(:mod:`vlc_harness.plugin_install`). A git pin (``git+https://...``) is refused here: pip builds it from
source, running its build code and build dependencies that no hash fixes, on every machine that installs
it (publish a wheel instead). An entry (a model or a benchmark) whose type a listed package provides
while that package is not installed loads, and its cells are ``unavailable`` (reason code
``package_missing``) with the install line as their reason (:func:`missing_package_reason`).
"""

from __future__ import annotations

import difflib
import importlib.metadata
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from vlc_harness.errors import RegistryError

NAME_PATTERN = re.compile(r"^[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?$")
"""A distribution name (PEP 508)."""
VERSION_PIN = re.compile(r"^(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)==(?P<version>[A-Za-z0-9][A-Za-z0-9.+!_-]*)$")
HASH_PATTERN = re.compile(r"^sha256:[0-9a-f]{64}$")
GIT_REFUSED = (
    "git pins are not accepted: pip builds them from source, running the package's build code and build "
    "dependencies that no hash fixes wherever it installs. Publish a wheel (PyPI) and pin 'NAME==VERSION' "
    "with the wheel's sha256"
)
KEYS = {"package", "pin", "hashes", "models", "benchmarks", "dependency_of"}
INSTALL_COMMAND = "vlc-harness plugins install"

ErrorFactory = Callable[[list[Any], str], RegistryError]
"""Builds a registry error for a key path (the registry's ``file:line: key.path: problem``)."""


def canonical_name(name: str) -> str:
    """A distribution name as pip compares names (PEP 503: lower case, runs of ``-_.`` as ``-``)."""
    return re.sub(r"[-_.]+", "-", name).lower()


@dataclass(frozen=True)
class PluginPackage:
    """One pinned plugin distribution and the types it provides."""

    package: str
    pin: str
    hashes: tuple[str, ...] = ()
    models: tuple[str, ...] = ()
    benchmarks: tuple[str, ...] = ()
    source: str = ""
    """The registry file that lists it."""
    dependency_of: str = ""
    """For a plugin's own dependency (it provides no types): the listed plugin package that needs it."""

    @property
    def version(self) -> str | None:
        """The pinned version (``None`` only for a pin that did not pass :func:`parse_plugins`)."""
        match = VERSION_PIN.match(self.pin)
        return match["version"] if match else None

    def requirement(self) -> str:
        """The pin as pip reads it: ``name==version``."""
        return self.pin

    def install_hint(self) -> str:
        """What an entry of a type this package provides says while the package is not installed."""
        return f"install {self.requirement()} (`{INSTALL_COMMAND}`)"


def parse_plugins(value: Any, err: ErrorFactory, source: str) -> dict[str, PluginPackage]:
    """The ``plugins:`` list of one registry file, by canonical package name, validated."""
    if value is None:
        return {}
    if not isinstance(value, list):
        raise err(["plugins"], "expected a list of packages")
    out: dict[str, PluginPackage] = {}
    provided: dict[tuple[str, str], str] = {}
    for i, raw in enumerate(value):
        package = _package(raw, ["plugins", i], err, source)
        key = canonical_name(package.package)
        if key in out:
            raise err(["plugins", i, "package"], f"package {package.package!r} is listed twice in the same file")
        for kind, names in (("models", package.models), ("benchmarks", package.benchmarks)):
            for name in names:
                if (kind, name) in provided:
                    raise err(
                        ["plugins", i, kind],
                        f"type {name!r} is already provided by package {provided[(kind, name)]!r}",
                    )
                provided[(kind, name)] = package.package
        out[key] = package
    for i, package in enumerate(out.values()):
        if package.dependency_of and canonical_name(package.dependency_of) not in out:
            raise err(
                ["plugins", i, "dependency_of"],
                f"{package.dependency_of!r} is not a package listed in this file",
            )
    return out


def _package(raw: Any, path: list[Any], err: ErrorFactory, source: str) -> PluginPackage:
    if not isinstance(raw, Mapping):
        raise err(path, "expected a mapping with keys " + ", ".join(sorted(KEYS)))
    for key in raw:
        if key not in KEYS:
            raise err([*path, key], "unknown key; expected one of " + ", ".join(sorted(KEYS)))
    name = raw.get("package")
    if not isinstance(name, str) or not NAME_PATTERN.match(name):
        raise err([*path, "package"], "required: a distribution name (letters, digits, '.', '_', '-')")
    pin = raw.get("pin")
    if not isinstance(pin, str):
        raise err([*path, "pin"], f"required: '{name}==VERSION', with the sha256 of its wheels under 'hashes'")
    hashes = _hashes(raw.get("hashes"), [*path, "hashes"], err)
    version = VERSION_PIN.match(pin)
    if pin.startswith("git+"):
        raise err([*path, "pin"], f"{pin!r}: {GIT_REFUSED}")
    if not version:
        raise err([*path, "pin"], f"{pin!r}: expected '{name}==VERSION' (exact), with its wheels' sha256 hashes")
    if canonical_name(version["name"]) != canonical_name(name):
        raise err([*path, "pin"], f"pins {version['name']!r}, not the package {name!r}")
    if not hashes:
        needs = "a name==version pin needs its wheels' sha256 hashes (pip's --require-hashes)"
        raise err([*path, "hashes"], f"{needs}: {compute_hashes(pin)}")
    models = _types(raw.get("models"), [*path, "models"], err)
    benchmarks = _types(raw.get("benchmarks"), [*path, "benchmarks"], err)
    dependency_of = raw.get("dependency_of", "")
    if not isinstance(dependency_of, str):
        raise err([*path, "dependency_of"], "expected the name of the listed plugin package that needs it")
    if dependency_of and (models or benchmarks):
        raise err([*path, "dependency_of"], "a dependency provides no types: list them under their plugin package")
    if not models and not benchmarks and not dependency_of:
        raise err(
            path,
            "names no types: list what it provides under 'models' and/or 'benchmarks' (a plugin's own "
            "dependency says 'dependency_of: PACKAGE' instead)",
        )
    return PluginPackage(name, pin, hashes, models, benchmarks, source, dependency_of)


def compute_hashes(pin: str) -> str:
    """How to compute the sha256 of a pin's wheels (what ``hashes`` lists)."""
    return (
        f"compute them with `pip download --no-deps --only-binary :all: {pin} -d DIR && sha256sum DIR/*.whl` "
        "(or copy the wheel's sha256 from its PyPI page) and list each as 'sha256:<hex>'"
    )


def _hashes(value: Any, path: list[Any], err: ErrorFactory) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list):
        raise err(path, "expected a list of 'sha256:<64 hex>' values")
    for k, item in enumerate(value):
        if not isinstance(item, str) or not HASH_PATTERN.match(item):
            raise err([*path, k], f"{item!r} is not 'sha256:<64 lower-case hex digits>'")
    return tuple(value)


def _types(value: Any, path: list[Any], err: ErrorFactory) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise err(path, "expected a list of type names")
    return tuple(value)


def provider(packages: Mapping[str, PluginPackage], kind: str, type_name: str) -> PluginPackage | None:
    """The listed package that provides ``type_name`` (``kind``: ``models`` or ``benchmarks``), if any."""
    for package in packages.values():
        if type_name in getattr(package, kind):
            return package
    return None


@dataclass(frozen=True)
class PackageState:
    """Whether a listed package is installed here as pinned: ``ok``, ``missing`` or ``other``."""

    package: PluginPackage
    state: str
    installed: str | None = None
    """The installed version, if any."""

    def line(self) -> str:
        """One line of ``vlc-harness plugins check``."""
        wanted = self.package.requirement()
        if self.state == "ok":
            return f"ok       {wanted}"
        if self.state == "missing":
            return f"missing  {wanted}: not installed"
        return f"other    {wanted}: installed {self.installed}"


def package_state(package: PluginPackage) -> PackageState:
    """Is ``package`` installed in this environment at its pinned version?"""
    try:
        dist = importlib.metadata.distribution(package.package)
    except importlib.metadata.PackageNotFoundError:
        return PackageState(package, "missing")
    return PackageState(package, "ok" if dist.version == package.version else "other", dist.version)


def is_installed(package: PluginPackage) -> bool:
    """Is a distribution of this name installed here (at any version)?"""
    return package_state(package).state != "missing"


def missing_package_reason(packages: Mapping[str, PluginPackage], kind: str, type_name: str) -> str | None:
    """Why an entry of ``type_name`` (``kind``: ``models`` or ``benchmarks``), a type no plugin registers
    here, cannot run: the listed package that provides it is not installed (the install line). ``None``
    when no listed package provides it, or when that package is installed (then it is an error)."""
    package = provider(packages, kind, type_name)
    if package is None or is_installed(package):
        return None
    return f"{kind[:-1]} type {type_name!r} comes from package {package.package}: {package.install_hint()}"


def unregistered_type(packages: Mapping[str, PluginPackage], kind: str, type_name: str, known: list[str]) -> str:
    """The registry error of an entry whose type no plugin registers and no missing package explains
    (:func:`unknown_type`, with every type the listed packages provide as a candidate)."""
    listed = {t: package.package for package in packages.values() for t in getattr(package, kind)}
    return unknown_type(kind[:-1], type_name, known, provider(packages, kind, type_name), listed)


def unknown_type(
    kind: str, name: str, known: list[str], package: PluginPackage | None, listed: Mapping[str, str] | None = None
) -> str:
    """Why a registry entry's type is an error: no plugin registers it and no listed package provides
    it (with a "did you mean" among both, ``my-clip`` suggesting ``my_clip``; a guess that a listed
    package provides is a typo of the entry's type, and listing a package would not fix it), or its
    listed package is installed but does not register it. ``listed``: each type of the listed packages,
    with the package."""
    if package is not None:
        return f"package {package.package} is installed but registers no {kind} type {name!r}"
    listed = dict(listed or {})
    candidates = sorted(set(known) | set(listed))
    close = difflib.get_close_matches(name, candidates, n=1) or [t for t in candidates if t == name.replace("-", "_")]
    guess = f" (did you mean {close[0]}?)" if close else ""
    if close and close[0] in listed:
        return (
            f"unknown {kind} type {name!r}{guess}: the package {listed[close[0]]}, listed under 'plugins:', "
            f"provides {close[0]!r}; correct the entry's type"
        )
    hint = "a type from a package: list the package under 'plugins:'"
    return f"unknown {kind} type {name!r}{guess}; known types: {', '.join(known) or '(none)'}; {hint}"
