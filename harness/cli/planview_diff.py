"""``vlc-harness plan --diff REF``: the grid of another git revision, and what changed since.

The other revision is checked out in a temporary ``git worktree`` and evaluated in a subprocess
by its own code: its folders ``harness/``, ``plugins/`` and ``leaderboard/`` are put first on the
import path under their import names, so its registry files are loaded by its plugins, and its
identities and fingerprints come from its plugin code (a PR that bumps a ``scoring_version``
shows every cell of that type as changed). The subprocess runs this checkout's
:mod:`vlc_harness.cli.planview_grid` file, which summarises both sides the same way. The worktree is
removed afterwards.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from vlc_harness.cli import planview_grid
from vlc_harness.errors import UserError

IMPORT_NAMES = {"vlc_harness": "harness", "vlc_harness_builtins": "plugins", "vlc_leaderboard": "leaderboard"}
"""Import name to folder, as ``pyproject.toml``'s ``package-dir`` maps them."""
TIMEOUT_S = 1800


def _git(args: list[str], cwd: Path) -> str:
    try:
        out = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, timeout=300)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise UserError(f"git {' '.join(args[:2])} failed: {exc}") from None
    if out.returncode:
        raise UserError(f"git {' '.join(args)} failed: {(out.stderr or out.stdout).strip()}")
    return out.stdout.strip()


def base_grid(
    ref: str, registries: list[Path], specs: dict[str, list[str]], data_root: Path, limit: int | None
) -> dict[str, Any]:
    """The grid record (:func:`vlc_harness.cli.planview_grid.grid_record`) of revision ``ref``.

    ``registries`` are this checkout's files; those inside the repository are read from the other
    revision (a file it lacks is left out), others are read as they are. ``specs`` holds the
    ``models`` and ``benchmarks`` selected by id or inline spec (empty: the whole registry). On a
    failure of the other revision's code the record carries ``error`` and no entries.
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
            for name, folder in IMPORT_NAMES.items():
                if (tree / folder).is_dir():
                    (imports / name).symlink_to(tree / folder, target_is_directory=True)
            root = data_root.resolve()  # the subprocess runs in another folder
            argv = ["--out", str(Path(tmp) / "grid.json"), "--data-root", str(root)]
            for path in registries:
                mapped = _in_tree(path, top, tree)
                if mapped is not None:
                    argv += ["--registry", str(mapped)]
            argv += [a for m in specs.get("models", []) for a in ("-m", m)]
            argv += [a for b in specs.get("benchmarks", []) for a in ("-b", b)]
            if limit is not None:
                argv += ["--limit", str(limit)]
            error = _run_grid(argv, imports, root)
            record = {} if error else json.loads((Path(tmp) / "grid.json").read_text(encoding="utf-8"))
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(tree)], cwd=top, capture_output=True)
            subprocess.run(["git", "worktree", "prune"], cwd=top, capture_output=True)
    return {"models": {}, "benchmarks": {}, **record, "commit": commit, "error": error}


def _in_tree(path: Path, top: Path, tree: Path) -> Path | None:
    """Where the other revision has this registry file (``None``: it has none there)."""
    resolved = path.resolve()
    try:
        mapped = tree / resolved.relative_to(top.resolve())
    except ValueError:
        return resolved  # outside the repository: the same file on both sides
    return mapped if mapped.is_file() else None


def _run_grid(argv: list[str], imports: Path, data_root: Path) -> str | None:
    """Run this checkout's planview_grid.py with the other revision's packages; the error or ``None``.

    ``$VLC_HARNESS_DATA`` is the data root there too: a revision whose models read it from the
    environment (before the run configuration) finds their files where this one does.
    """
    script = Path(planview_grid.__file__).resolve()
    boot = "import runpy, sys; sys.argv = sys.argv[1:]; runpy.run_path(sys.argv[0], run_name='__main__')"
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", VLC_HARNESS_DATA=str(data_root))
    env["PYTHONPATH"] = os.pathsep.join([str(imports), *filter(None, [os.environ.get("PYTHONPATH")])])
    try:
        out = subprocess.run(
            [sys.executable, "-c", boot, str(script), *argv],
            cwd=imports,
            env=env,
            capture_output=True,
            text=True,
            timeout=TIMEOUT_S,
        )
    except subprocess.TimeoutExpired:
        return f"evaluating its grid took over {TIMEOUT_S} s"
    if out.returncode:
        tail = (out.stderr or out.stdout).strip().splitlines()[-3:]
        return " / ".join(tail) or f"exit status {out.returncode}"
    return None


def diff_grids(current: dict[str, Any], base: dict[str, Any], ref: str) -> dict[str, Any]:
    """Cells added, changed (with why) or undecidable (``unknown``) since ``base``, and cells removed."""
    cells = []
    for m_id, model in current["models"].items():
        for b_id, bench in current["benchmarks"].items():
            old_m, old_b = base["models"].get(m_id), base["benchmarks"].get(b_id)
            if base.get("error"):
                continue
            if old_m is None or old_b is None:
                why = [w for w, new in (("new model", old_m is None), ("new benchmark", old_b is None)) if new]
                cells.append({"model": m_id, "benchmark": b_id, "change": "added", "why": why})
                continue
            why, unknown = _model_change(model, old_m)
            why += _benchmark_change(bench, old_b)
            if why:
                cells.append({"model": m_id, "benchmark": b_id, "change": "changed", "why": why})
            elif unknown:
                cells.append({"model": m_id, "benchmark": b_id, "change": "unknown", "why": [unknown]})
    removed = [
        {"model": m, "benchmark": b}
        for m in base["models"]
        for b in base["benchmarks"]
        if m not in current["models"] or b not in current["benchmarks"]
    ]
    return {"ref": ref, "commit": base["commit"], "error": base.get("error"), "cells": cells, "removed": removed}


def _model_change(new: dict[str, Any], old: dict[str, Any]) -> tuple[list[str], str | None]:
    unknown = planview_grid.UNKNOWN
    if new["fingerprint"] != unknown and old["fingerprint"] != unknown:
        if new["fingerprint"] == old["fingerprint"]:
            return [], None
        if new["declared"] != old["declared"]:
            return ["model params or scoring code"], None
        if new["weights"] != old["weights"]:
            return ["model weights"], None
        return ["model fingerprint"], None
    if new["declared"] != old["declared"]:
        return ["model params or scoring code (weights identity unknown here)"], None
    return [], "model identity unknown here: " + (new["unknown"] or old["unknown"] or new["failed"] or "")


def _benchmark_change(new: dict[str, Any], old: dict[str, Any]) -> list[str]:
    why = []
    if new["manifest"] and old["manifest"]:
        if new["manifest"] != old["manifest"]:
            why.append("instances")
    elif new["declared"] != old["declared"]:
        why.append("benchmark params")
    if new["data_version"] != old["data_version"] and "instances" not in why:
        why.append("data version")
    if new["metrics_version"] and old["metrics_version"] and new["metrics_version"] != old["metrics_version"]:
        why.append("metrics")
    return why
