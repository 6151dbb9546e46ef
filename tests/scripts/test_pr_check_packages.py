"""scripts/pr_check.py: conformance of the types a PR's ``plugins:`` change brings in, and the plan
table's order (added cells first, ``unknown`` rows as one line)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import commit, git

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "scripts" / "pr_check.py"
HASH = "sha256:" + "0" * 64
BENCH = "benchmarks:\n  - {id: shapes-mini, type: shapes, params: {n_scenes: 10}}\n"


def _script():
    spec = importlib.util.spec_from_file_location("pr_check_script", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses resolve their annotations through sys.modules
    spec.loader.exec_module(module)
    return module


def _plugins(*packages: tuple[str, str, str]) -> str:
    lines = ["plugins:"]
    for package, version, models in packages:
        lines += [f"  - package: {package}", f"    pin: {package}=={version}", f"    hashes: ['{HASH}']"]
        lines.append(f"    models: [{models}]")
    return "\n".join(lines) + "\n"


def _repo(tmp_path: Path, base: str, head: str) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir(parents=True)
    git(repo, "init", "-q")
    (repo / "registry.yaml").write_text(base)
    commit(repo, "base")
    git(repo, "branch", "base")
    (repo / "registry.yaml").write_text(head)
    commit(repo, "a pull request")
    return repo


def _conformance(repo: Path) -> tuple[subprocess.CompletedProcess, str]:
    summary = repo.parent / "summary.md"
    cmd = [sys.executable, str(SCRIPT), "--repo", str(repo), "--summary", str(summary), "--base", "base"]
    out = subprocess.run([*cmd, "conformance"], capture_output=True, text=True, timeout=600)
    return out, summary.read_text()


@pytest.mark.subprocess
def test_conformance_runs_for_the_types_of_a_newly_pinned_package(tmp_path):
    # the stand-in package's type is one this environment registers (a built-in): its checks run
    repo = _repo(tmp_path, BENCH, BENCH + _plugins(("vlc-lab", "0.1.0", "random")))
    out, summary = _conformance(repo)
    assert out.returncode == 0, summary + out.stderr
    assert "## ✅ Conformance of added or changed types: passed" in summary
    assert "Package `vlc-lab`, newly named or re-pinned in `plugins:`, provides `random`." in summary
    assert "| `test_model_example_scores[random]` | passed |" in summary


@pytest.mark.subprocess
def test_a_pinned_type_that_is_not_installed_fails_conformance(tmp_path):
    repo = _repo(tmp_path, BENCH, BENCH + _plugins(("vlc-lab", "0.1.0", "lab_clip")))
    out, summary = _conformance(repo)
    assert out.returncode == 1
    assert "## ❌ Conformance of added or changed types: failed" in summary
    assert "`vlc-lab` (vlc-lab==0.1.0) lists model type `lab_clip`, which is not registered here" in summary
    assert "`vlc-harness plugins install`" in summary


@pytest.mark.subprocess
def test_an_unchanged_pin_brings_nothing_and_a_new_pin_is_checked_again(tmp_path):
    pinned = BENCH + _plugins(("vlc-lab", "0.1.0", "lab_clip"))
    out, summary = _conformance(_repo(tmp_path / "same", pinned, pinned + "# a comment\n"))
    assert out.returncode == 0 and "## ⏭️ Conformance of added or changed types: skipped" in summary
    assert "or provided by a package it newly names in `plugins:`" in summary
    repinned = BENCH + _plugins(("vlc-lab", "0.2.0", "random"))
    out, summary = _conformance(_repo(tmp_path / "bumped", pinned, repinned))
    assert out.returncode == 0, summary
    assert "Package `vlc-lab`, newly named or re-pinned in `plugins:`, provides `random`." in summary


def test_the_plan_lists_added_cells_first_and_unknown_ones_in_one_line(monkeypatch, tmp_path):
    pr_check = _script()
    cells = [
        {"model": "hf-a", "benchmark": "sc", "change": "unknown", "why": ["model identity unknown here: offline"]},
        {"model": "random", "benchmark": "sc", "change": "changed", "why": ["model params or scoring code"]},
        {"model": "hf-b", "benchmark": "sc", "change": "unknown", "why": ["model identity unknown here: offline"]},
        {"model": "lab", "benchmark": "sc", "change": "added", "why": ["new model"]},
    ]
    plan = {
        "models": [{"id": m, "fingerprint": "f" * 16} for m in ("hf-a", "hf-b", "random", "lab")],
        "diff": {"ref": "base", "commit": "c" * 40, "cells": cells, "removed": []},
    }
    ctx = pr_check.Context(tmp_path, "base", tmp_path / "registry.yaml", tmp_path, tmp_path)
    monkeypatch.setattr(ctx, "plan", lambda: plan)
    text = pr_check.step_plan(ctx).markdown()
    assert text.index("| `lab` | `sc` | added |") < text.index("| `random` | `sc` | changed |")
    assert "`hf-a`" not in text.split("Change unknown")[0]  # no table row of its own
    assert "Change unknown here for 2 cells of 2 models (`hf-a`, `hf-b`): model identity unknown here: offline" in text
