"""The nightly's hashed locks, read, and checked against ``pyproject.toml`` and ``constraints.txt`` without
resolving anything (no network).

``lock/nightly.txt`` is what the nightly installs (``pip install --require-hashes --only-binary :all:
--no-deps -r lock/nightly.txt``, then the checkout ``--no-deps --no-build-isolation``): every package of the
harness's locked extras for the nightly's runner (linux x86_64, CPython 3.11), at one version, with the
sha256 of each of its files, written by ``uv pip compile`` (:data:`LOCK_COMMAND`, also in its header).
``lock/no-deps.txt`` holds what the nightly installs ``--no-deps`` beside it, hashes recorded by a
maintainer: the ``--no-deps`` packages (``t2v_metrics``) and the spaCy pipelines (a pinned release URL).
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

LOCK_COMMAND = (
    "uv pip compile pyproject.toml lock/build.in --extra api --extra aro --extra blind --extra data --extra hf "
    "--extra openclip --extra ray --constraints constraints.txt --generate-hashes --only-binary :all: "
    "--python-version 3.11 --python-platform x86_64-manylinux_2_28 --output-file lock/nightly.txt"
)
"""The one command that regenerates ``lock/nightly.txt`` (run from the checkout; README, CONTRIBUTING); then
``vlc-harness dev generate`` rewrites ``lock/render.txt`` from it (:func:`core_lock`)."""
BUILD_IN = "-r lock/build.in"
"""How the lock names the checkout's build backend (``lock/build.in``) as the reason for a pin."""
TARGET = {"python_version": "3.11", "python_full_version": "3.11.0", "sys_platform": "linux"}
TARGET |= {"platform_system": "Linux", "platform_machine": "x86_64", "os_name": "posix"}
TARGET |= {"implementation_name": "cpython", "platform_python_implementation": "CPython"}
"""The marker environment of the nightly's runner, which the lock is resolved for."""
COMMENT = re.compile(r"(^|\s)#.*$")


@dataclass(frozen=True)
class Pin:
    """One requirement of a hashed requirements file: ``name==version`` or ``name @ URL``, and its hashes."""

    name: str
    """Canonical (PEP 503)."""
    requirement: str
    hashes: tuple[str, ...]
    version: str | None = None
    url: str | None = None

    def line(self) -> str:
        """The requirement as pip reads it, with its hashes."""
        return " ".join([self.requirement, *(f"--hash={h}" for h in self.hashes)])


@dataclass(frozen=True)
class Lock:
    """A hashed requirements file: its pins by canonical name, and the command in its header."""

    pins: dict[str, Pin]
    command: str = ""

    @property
    def extras(self) -> tuple[str, ...]:
        """The harness's extras the lock resolved (its header command's ``--extra`` values)."""
        words = shlex.split(self.command)
        return tuple(sorted(words[i + 1] for i, w in enumerate(words[:-1]) if w == "--extra"))


def parse(text: str) -> Lock:
    """A hashed requirements file's pins (continuation lines joined, comments dropped); raises
    :class:`ValueError` on a line that is neither an exact pin nor a URL requirement."""
    command = next((line.strip("# ") for line in text.splitlines() if line.startswith("#    uv pip compile")), "")
    pins: dict[str, Pin] = {}
    for raw in text.replace("\\\n", " ").splitlines():
        line = COMMENT.sub("", raw).strip()
        if not line:
            continue
        words = line.split(" --hash=")
        requirement, hashes = words[0].strip(), tuple(h.strip() for h in words[1:])
        parsed = Requirement(requirement)
        exact = [s.version for s in parsed.specifier if s.operator == "=="]
        if not parsed.url and len(exact) != 1:
            raise ValueError(f"{requirement!r} is not pinned to one version (name==version or name @ URL)")
        name = canonicalize_name(parsed.name)
        if name in pins:
            raise ValueError(f"{parsed.name} is pinned twice")
        pins[name] = Pin(name, requirement, hashes, exact[0] if exact else None, parsed.url)
    return Lock(pins, command)


def read(path: Path) -> Lock:
    """:func:`parse` of a file."""
    return parse(Path(path).read_text(encoding="utf-8"))


def constraint_pins(path: Path) -> dict[str, str]:
    """``constraints.txt``'s ``name==version`` pins by canonical name."""
    return {name: pin.version or "" for name, pin in read(path).pins.items()}


def project_requirements(pyproject: dict, extras: tuple[str, ...]) -> list[Requirement]:
    """The project's dependencies and those of ``extras`` that apply on the runner (:data:`TARGET`); an
    extra that names the project itself (``all``) is not followed."""
    own = canonicalize_name(pyproject["project"]["name"])
    optional = pyproject["project"].get("optional-dependencies", {})
    out = []
    for extra, lines in [("", pyproject["project"].get("dependencies", []))] + [(e, optional[e]) for e in extras]:
        for line in lines:
            requirement = Requirement(line)
            if canonicalize_name(requirement.name) == own:
                continue
            if requirement.marker is None or requirement.marker.evaluate(TARGET | {"extra": extra}):
                out.append(requirement)
    return out


def problems(lock: Lock, constraints: dict[str, str], pyproject: dict, outside: set[str]) -> list[str]:
    """Why ``lock`` does not hold what ``pyproject`` and ``constraints`` say (empty: consistent): a pin
    without a hash or not exact, a constraint pinned at another version or missing (``outside`` names the
    constraints the nightly does not install), a dependency of the project or of a locked extra that no
    locked version satisfies."""
    out = [f"{pin.requirement}: no --hash" for pin in lock.pins.values() if not pin.hashes]
    out += [f"{pin.requirement}: not name==version" for pin in lock.pins.values() if pin.version is None]
    for name, version in constraints.items():
        locked = lock.pins.get(name)
        if name in outside:
            continue
        if locked is None:
            out.append(f"constraints.txt pins {name}=={version}, the lock does not have it")
        elif locked.version != version:
            out.append(f"constraints.txt pins {name}=={version}, the lock has {locked.version}")
    unknown = set(lock.extras) - set(pyproject["project"].get("optional-dependencies", {}))
    out += [f"the lock's command names extra {e!r}, which pyproject.toml does not declare" for e in sorted(unknown)]
    for requirement in project_requirements(pyproject, tuple(e for e in lock.extras if e not in unknown)):
        locked = lock.pins.get(canonicalize_name(requirement.name))
        if locked is None:
            out.append(f"pyproject.toml needs {requirement}, the lock does not have {requirement.name}")
        elif not requirement.specifier.contains(Version(locked.version or "0"), prereleases=True):
            out.append(f"pyproject.toml needs {requirement}, the lock has {locked.version}")
    return out


def select(path: Path, names: list[str]) -> str:
    """The lines of ``path`` (``lock/no-deps.txt``) that pin ``names``, as a hashed requirements file;
    raises :class:`ValueError` naming each one absent or without a hash."""
    pins = read(path).pins
    chosen, missing = [], []
    for name in names:
        pin = pins.get(canonicalize_name(name))
        if pin is None or not pin.hashes:
            missing.append(f"{name}: {'no line' if pin is None else 'no --hash=sha256:... on its line'} in {path}")
        else:
            chosen.append(pin.line())
    if missing:
        raise ValueError("; ".join(missing))
    return "".join(line + "\n" for line in chosen)


def via(text: str) -> dict[str, set[str]]:
    """Each pin's ``# via`` annotations (what needs it): canonical package names, ``vlc-harness`` for the project
    itself, and the files named with ``-r``/``-c`` as they are written."""
    out: dict[str, set[str]] = {}
    current: str | None = None
    for raw in text.replace("\\\n", " ").splitlines():
        stripped = raw.strip()
        if stripped and not stripped.startswith("#"):
            current = str(canonicalize_name(Requirement(stripped.split(" --hash=")[0].strip()).name))
            out[current] = set()
            continue
        found = re.fullmatch(r"#\s+(?:via\s+)?(\S.*)", stripped) if current is not None else None
        if (
            found is None
            or current is None
            or found.group(1).strip() == "via"
            or stripped.startswith("#    uv pip compile")
        ):
            continue
        name = found.group(1).strip().removesuffix(" (pyproject.toml)")
        out[current].add(name if name.startswith("-") else canonicalize_name(name))
    return out


def core_lock(text: str, pyproject: dict) -> str:
    """``lock/render.txt``: the pins of ``lock/nightly.txt`` (its text) that the harness needs without any extra
    (the project's dependencies on the runner, what they need in turn by the lock's ``# via`` annotations) and
    its build backend (``lock/build.in``), each with its hashes. What the nightly's render and deploy jobs
    install: no plugin, nothing a model needs."""
    lock, needed_by = parse(text), via(text)
    wanted: set[str] = {str(canonicalize_name(r.name)) for r in project_requirements(pyproject, ())}
    wanted |= {name for name, reasons in needed_by.items() if BUILD_IN in reasons}
    missing = sorted(wanted - set(lock.pins))
    if missing:
        raise ValueError(f"lock/nightly.txt does not pin {', '.join(missing)}, which the harness needs")
    grown = True
    while grown:
        more = {name for name, reasons in needed_by.items() if reasons & wanted} - wanted
        wanted |= more
        grown = bool(more)
    header = (
        "# Generated by `vlc-harness dev generate` from lock/nightly.txt (do not edit): the pins the harness needs\n"
        "# without any extra, and its build backend, with their hashes. The nightly's render and deploy jobs install\n"
        "# it (--require-hashes --only-binary :all: --no-deps), then the checkout --no-deps --no-build-isolation.\n"
    )
    return header + "".join(lock.pins[name].line() + "\n" for name in sorted(wanted))
