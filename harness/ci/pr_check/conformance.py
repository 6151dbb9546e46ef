"""The PR check's ``conformance`` step: the shipped conformance checks (pytest ``--vlc-types``) for the
types a PR brings in: those with a class of their MRO in a file it changes, and those of the packages
it newly names or re-pins in the registry's ``plugins:`` section."""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

from vlc_harness.ci.pr_check.context import Context
from vlc_harness.ci.summary import Section, code, table


def package_dirs(repo: Path) -> dict[str, str]:
    """Import name to repository folder, as the checkout's ``pyproject.toml`` maps them (``[tool.setuptools]
    package-dir``: ``vlc_harness`` lives in ``harness/``). Empty where the checkout has no ``pyproject.toml``
    or it maps nothing: then no package is renamed, and a class counts by where its file lies."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # Python 3.10: the same parser, from PyPI (a dev dependency there, which CI installs)
        import tomli as tomllib

    path = repo / "pyproject.toml"
    if not path.is_file():
        return {}
    setuptools = tomllib.loads(path.read_text(encoding="utf-8")).get("tool", {}).get("setuptools", {})
    # "" (one root folder for every package, e.g. src/) names no package: nothing this checkout does
    return {name: folder for name, folder in setuptools.get("package-dir", {}).items() if name}


def source_path(klass: type, repo: Path, dirs: dict[str, str]) -> str | None:
    """The repository path of the file defining a class (``plugins/models/openclip.py``), wherever
    the package is installed, through ``dirs`` (:func:`package_dirs`); ``None`` for a class from
    elsewhere."""
    import inspect

    try:
        file = Path(inspect.getsourcefile(klass) or "")
    except TypeError:  # builtins
        return None
    parts = klass.__module__.split(".")
    mapped = next((k for k in range(len(parts), 0, -1) if ".".join(parts[:k]) in dirs), None)
    if mapped is not None:
        rest = parts[mapped:]
        name = "__init__.py" if file.name == "__init__.py" else f"{rest.pop()}.py" if rest else file.name
        return "/".join([dirs[".".join(parts[:mapped])].rstrip("/"), *rest, name])
    try:
        return file.resolve().relative_to(repo).as_posix()
    except ValueError:
        return None


def changed_types(ctx: Context) -> dict[str, list[str]]:
    """Registered model and benchmark types with a class (in their MRO) defined in a changed file."""
    from vlc_harness.plugins import get_plugins

    changed = {f for f in ctx.changed_files() if f.endswith(".py")}
    plugins = get_plugins()
    dirs = package_dirs(ctx.repo)
    out: dict[str, list[str]] = {"models": [], "benchmarks": []}
    for kind, registrar in (("models", plugins.models), ("benchmarks", plugins.benchmarks)):
        for name in registrar.names():
            if {source_path(k, ctx.repo, dirs) for k in registrar.get(name).cls.__mro__} & changed:
                out[kind].append(name)
    return out


def registry_packages(ctx: Context, revision: str | None) -> dict[str, Any]:
    """The ``plugins:`` section of the registry at ``revision`` (``None``: as checked out), by canonical
    package name; empty where the file did not exist at that revision."""
    from vlc_harness.errors import RegistryError
    from vlc_harness.plugin_packages import parse_plugins
    from vlc_harness.registry_document import read_document

    if revision is None:
        text = ctx.registry.read_text(encoding="utf-8") if ctx.registry.is_file() else ""
    else:
        try:
            relative = ctx.registry.relative_to(ctx.repo).as_posix()
            text = ctx.git("show", f"{revision}:{relative}")
        except (ValueError, subprocess.CalledProcessError):  # outside the repository, or added by the PR
            return {}
    try:
        data, err = read_document(text, f"{revision or 'HEAD'}:{ctx.registry.name}")
        return parse_plugins(data.get("plugins"), err, ctx.registry.name)
    except RegistryError:
        if revision is None:
            raise
        return {}  # a base that does not parse names nothing: every package of the PR is new


def package_types(ctx: Context) -> tuple[dict[str, dict[str, list[str]]], list[str]]:
    """Types of the packages the PR newly names or re-pins in ``plugins:``, by package (``"models"``,
    ``"benchmarks"``); and each such type that is not registered here (its package not installed)."""
    from vlc_harness.plugins import get_plugins

    if not ctx.base:
        return {}, []
    before, after = registry_packages(ctx, ctx.base), registry_packages(ctx, None)
    plugins = get_plugins()
    out: dict[str, dict[str, list[str]]] = {}
    missing = []
    for key, package in after.items():
        if key in before and before[key].pin == package.pin:
            continue
        out[package.package] = {"models": list(package.models), "benchmarks": list(package.benchmarks)}
        for kind, registrar in (("models", plugins.models), ("benchmarks", plugins.benchmarks)):
            names = set(registrar.names())
            missing += [
                f"`{package.package}` ({package.pin}) lists {kind[:-1]} type `{t}`, which is not registered here: "
                f"is the package installed (`vlc-harness plugins install`) and does it register `{t}`?"
                for t in out[package.package][kind]
                if t not in names
            ]
    return out, missing


def step_conformance(ctx: Context) -> Section:
    """The shipped conformance checks for the types the PR brings in (pytest ``--vlc-types``): those
    defined in changed files and those of packages newly named or re-pinned in ``plugins:``."""
    section = Section("Conformance of added or changed types")
    types = changed_types(ctx)
    by_package, missing = package_types(ctx)
    for package, provided in by_package.items():
        for kind in ("models", "benchmarks"):
            types[kind] += [t for t in provided[kind] if t not in types[kind]]
        names = ", ".join(f"`{t}`" for t in provided["models"] + provided["benchmarks"])
        section.lines.append(f"Package `{package}`, newly named or re-pinned in `plugins:`, provides {names}.")
    if missing:
        section.fail()
        section.lines += [f"- {line}" for line in missing]
        section.lines.append("")
    registered = set(get_registered_types())
    types = {kind: [t for t in names if t in registered] for kind, names in types.items()}
    if not types["models"] and not types["benchmarks"]:
        if section.verdict != "failed":
            section.verdict = "skipped"
            section.lines.append(
                "No model or benchmark type is defined in a file this PR changes or provided by a package it"
                " newly names in `plugins:`."
            )
        return section
    folder = Path(tempfile.mkdtemp(prefix="conformance-", dir=ctx.work))
    test_file = folder / "test_pr_conformance.py"
    test_file.write_text("from vlc_harness.testing.conformance import *  # noqa: F401,F403\n")
    report = folder / "report.xml"
    names = ",".join(types["models"] + types["benchmarks"])
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--junitxml={report}"]
    cmd += [f"--vlc-types={names}", str(test_file)]
    out = subprocess.run(cmd, cwd=folder, capture_output=True, text=True, timeout=3600)
    if not report.is_file():
        section.fail(f"pytest did not run (exit {out.returncode}):")
        section.lines += code(out.stdout + out.stderr)
        return section
    rows = []
    for case in ET.parse(report).getroot().iter("testcase"):
        bad = case.find("failure") if case.find("failure") is not None else case.find("error")
        skipped = case.find("skipped")
        verdict = "failed" if bad is not None else "skipped" if skipped is not None else "passed"
        found = bad if bad is not None else skipped
        detail = (found.get("message") if found is not None else "") or ""
        rows.append([f"`{case.get('name')}`", verdict, _first_line(detail)])
    if out.returncode or any(r[1] == "failed" for r in rows):
        section.fail()
    if section.lines:
        section.lines.append("")
    section.lines.append(
        f"Types: {', '.join(f'`{t}`' for t in types['models'] + types['benchmarks'])} ({len(rows)} checks)"
    )
    section.lines += ["", *table(["check", "result", "detail"], rows)]
    return section


FAILURE_PREFIX = re.compile(r"^(?:[\w.]+\.)?(?:AssertionError|VariedInputFailure|Failed): ")
"""How pytest's report begins a failed assertion's message (the type says nothing the message does not)."""


def _first_line(detail: str, width: int = 300) -> str:
    """A check's failure message for the table: its first line, the exception type of an assertion dropped."""
    line = detail.splitlines()[0] if detail.strip() else ""
    return FAILURE_PREFIX.sub("", line)[:width]


def get_registered_types() -> list[str]:
    """Every model and benchmark type registered in this environment."""
    from vlc_harness.plugins import get_plugins

    plugins = get_plugins()
    return [*plugins.models.names(), *plugins.benchmarks.names()]
