"""``vlc-harness plan --diff REF``: REF's plan, printed by REF's own code.

REF is checked out in a temporary ``git worktree``, and REF's own ``vlc-harness plan --format
json`` runs there in a subprocess, with REF's packages first on the import path under their
import names, as REF's ``pyproject.toml`` maps them (``[tool.setuptools] package-dir``). So REF's
registry files are loaded by REF's plugins, and its identities and fingerprints come from REF's
code (a PR that bumps a ``scoring_version`` shows every cell of that type as changed), and its
scoring stacks from its own ``constraints.txt`` (a PR that bumps a pin shows the cells of every type
that declares that distribution as changed). No file of
this checkout runs there: the two documents are compared here (:mod:`vlc_harness.planview.diff`).
A revision whose ``pyproject.toml`` maps no package (a repository of registry files only) has no
code of its own: the installed packages evaluate its registry files. The worktree is removed
afterwards.

REF's plan runs as the base of a diff (``--as-diff-base``, set through :data:`AS_BASE_ENV`, so
that a revision from before the option ignores it and prints a document that
:func:`~vlc_harness.planview.document.base_problem` refuses in one line, rather than failing on an
unknown option); :func:`known_selection` is how it selects then.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vlc_harness.errors import HarnessError, UserError
from vlc_harness.stack import CONSTRAINTS_ENV

if TYPE_CHECKING:
    from vlc_harness.plugins import Plugins
    from vlc_harness.registry import BenchmarkEntry, ModelEntry, Registry

AS_BASE_ENV = "VLC_HARNESS_PLAN_AS_DIFF_BASE"
"""The environment variable behind ``plan --as-diff-base``."""
TIMEOUT_S = 1800


def base_plan(
    ref: str, registries: list[Path], specs: dict[str, list[str]], data_root: Path, limit: int | None
) -> tuple[str, dict[str, Any] | None, str | None]:
    """REF's commit, its plan document (``None`` on a failure) and the failure, else ``None``.

    ``registries`` are this checkout's files; those inside the repository are read from REF (a
    file it lacks is left out), others as they are. ``specs`` holds the ``models`` and
    ``benchmarks`` selected by id or inline spec (empty: the whole registry). REF's plan reads a
    throwaway store, so every cell is planned from scratch there: a diff compares identities only.
    """
    where = registries[0].resolve().parent if registries else Path.cwd()
    top = Path(_git(["rev-parse", "--show-toplevel"], where))
    try:
        commit = _git(["rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"], top)
    except UserError:
        raise UserError(
            f"unknown git revision {ref!r} in {top}", hint="fetch it first (git fetch origin BRANCH)"
        ) from None
    with tempfile.TemporaryDirectory(prefix="vlc-plan-diff-") as tmp:
        tree, imports = Path(tmp) / "tree", Path(tmp) / "imports"
        _git(["worktree", "add", "--detach", "--quiet", str(tree), commit], top)
        try:
            imports.mkdir()
            # --all: ignored by a diff base, and what makes a revision from before --as-diff-base print
            # its document (which base_problem then refuses) instead of failing on an empty selection
            argv = ["plan", "--all", "--format", "json", "--data-root", str(data_root.resolve())]
            argv += ["--store", f"sqlite:///{Path(tmp) / 'throwaway.sqlite'}"]
            for path in registries:
                mapped = _in_tree(path, top, tree)
                if mapped is not None:
                    argv += ["--registry", str(mapped)]
            argv += [a for m in specs.get("models", []) for a in ("-m", m)]
            argv += [a for b in specs.get("benchmarks", []) for a in ("-b", b)]
            argv += ["--limit", str(limit)] if limit is not None else []
            doc, error = _run_plan(argv, tree, imports, ref)
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(tree)], cwd=top, capture_output=True)
            subprocess.run(["git", "worktree", "prune"], cwd=top, capture_output=True)
    return commit, doc, error


def package_dirs(tree: Path) -> dict[str, Path]:
    """Import name to folder, from ``tree``'s ``pyproject.toml`` (``[tool.setuptools] package-dir``);
    the key ``""`` is a folder holding top-level packages. Empty without a file or a mapping."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10 (tomli is a dependency there)
        import tomli as tomllib

    path = tree / "pyproject.toml"
    if not path.is_file():
        return {}
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ValueError(f"its pyproject.toml does not parse: {exc}") from None
    mapping = data.get("tool", {}).get("setuptools", {}).get("package-dir", {})
    if not isinstance(mapping, dict) or not all(isinstance(v, str) for v in mapping.values()):
        raise ValueError("its pyproject.toml's [tool.setuptools] package-dir is not a table of folders")
    nested = sorted(name for name in mapping if "." in name)
    if nested:
        raise ValueError(f"its package-dir maps subpackages ({', '.join(nested)}): only top-level names are supported")
    return {name: tree / folder for name, folder in mapping.items()}


def _import_path(tree: Path, imports: Path) -> list[Path]:
    """REF's packages under their import names in ``imports`` (links), and the folders to put on the path."""
    roots = [imports]
    for name, folder in package_dirs(tree).items():
        if not folder.is_dir():
            continue
        if name:
            (imports / name).symlink_to(folder, target_is_directory=True)
        else:
            roots.append(folder)
    return roots


def _run_plan(argv: list[str], tree: Path, imports: Path, ref: str) -> tuple[dict[str, Any] | None, str | None]:
    """REF's ``vlc-harness plan`` with REF's packages first on the import path; its document or why none."""
    try:
        roots = _import_path(tree, imports)
    except ValueError as exc:
        return None, f"{ref}: {exc}"
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", **{AS_BASE_ENV: "1"})
    env["PYTHONPATH"] = os.pathsep.join([*map(str, roots), *filter(None, [os.environ.get("PYTHONPATH")])])
    # REF's scoring stacks come from REF's constraints.txt (its pins), never from this checkout's
    env.pop(CONSTRAINTS_ENV, None)
    if (tree / "constraints.txt").is_file():
        env[CONSTRAINTS_ENV] = str(tree / "constraints.txt")
    # the core's own name: REF's when REF maps it (the links above), else the installed one
    command = [sys.executable, "-m", "vlc_harness", *argv]
    try:
        out = subprocess.run(command, cwd=imports, env=env, capture_output=True, text=True, timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return None, f"evaluating its grid took over {TIMEOUT_S} s"
    if out.returncode:
        tail = (out.stderr or out.stdout).strip().splitlines()[-3:]
        return None, " / ".join(tail) or f"exit status {out.returncode}"
    try:
        doc = json.loads(out.stdout)
    except json.JSONDecodeError:
        return None, f"{ref}'s plan --format json printed no JSON: {out.stdout.strip()[:200]!r}"
    from vlc_harness.planview.document import base_problem

    problem = base_problem(doc, ref)
    return (None, problem) if problem else (doc, None)


def _in_tree(path: Path, top: Path, tree: Path) -> Path | None:
    """Where REF has this registry file (``None``: it has none there)."""
    resolved = path.resolve()
    try:
        mapped = tree / resolved.relative_to(top.resolve())
    except ValueError:
        return resolved  # outside the repository: the same file on both sides
    return mapped if mapped.is_file() else None


def _git(args: list[str], cwd: Path) -> str:
    try:
        out = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, timeout=300)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise UserError(f"git {' '.join(args[:2])} failed: {exc}") from None
    if out.returncode:
        raise UserError(f"git {' '.join(args)} failed: {(out.stderr or out.stdout).strip()}")
    return out.stdout.strip()


def known_selection(
    registry: Registry, plugins: Plugins, models: list[str], benchmarks: list[str]
) -> tuple[list[ModelEntry], list[BenchmarkEntry]]:
    """The base side's selection: no spec selects the whole registry (possibly empty), and a spec
    this revision does not know selects nothing (the other side shows its cells as added)."""
    from vlc_harness.run.select import select_benchmarks, select_models

    def known(specs: list[str], pick: Any, everything: list[Any]) -> list[Any]:
        if not specs:
            return everything
        out = []
        for spec in specs:
            try:
                out.extend(pick(registry, plugins, [spec]))
            except HarnessError:
                continue
        return out

    return (
        known(models, select_models, list(registry.models.values())),
        known(benchmarks, select_benchmarks, list(registry.benchmarks.values())),
    )


__all__ = ["AS_BASE_ENV", "base_plan", "known_selection", "package_dirs"]
