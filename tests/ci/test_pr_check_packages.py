"""``vlc-harness ci pr-check``: conformance of the types a PR's ``plugins:`` change brings in, the plan
table's order (added cells first, ``unknown`` rows as one line), and where a type's files lie in the
checkout (its ``pyproject.toml``'s ``package-dir``)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import registry_pull_request
from vlc_harness.ci.pr_check.context import Context
from vlc_harness.ci.pr_check.plan import step_plan

HASH = "sha256:" + "0" * 64
BENCH = "benchmarks:\n  - {id: shapes-mini, type: shapes, params: {n_scenes: 10}}\n"


def _plugins(*packages: tuple[str, str, str]) -> str:
    lines = ["plugins:"]
    for package, version, models in packages:
        lines += [f"  - package: {package}", f"    pin: {package}=={version}", f"    hashes: ['{HASH}']"]
        lines.append(f"    models: [{models}]")
    return "\n".join(lines) + "\n"


def _conformance(repo: Path) -> tuple[subprocess.CompletedProcess, str]:
    summary = repo.parent / "summary.md"
    cmd = [sys.executable, "-m", "vlc_harness", "ci", "pr-check", "--repo", str(repo), "--summary", str(summary)]
    cmd += ["--base", "base"]
    out = subprocess.run([*cmd, "conformance"], capture_output=True, text=True, timeout=600)
    return out, summary.read_text()


@pytest.mark.subprocess
def test_conformance_runs_for_the_types_of_a_newly_pinned_package(tmp_path):
    # the stand-in package's type is one this environment registers (a built-in): its checks run
    repo = registry_pull_request(tmp_path, BENCH, BENCH + _plugins(("vlc-lab", "0.1.0", "random")))
    out, summary = _conformance(repo)
    assert out.returncode == 0, summary + out.stderr
    assert "## ✅ Conformance of added or changed types: passed" in summary
    assert "Package `vlc-lab`, newly named or re-pinned in `plugins:`, provides `random`." in summary
    assert "| `test_model_example_scores[random]` | passed |" in summary


@pytest.mark.subprocess
def test_a_pinned_type_that_is_not_installed_fails_conformance(tmp_path):
    repo = registry_pull_request(tmp_path, BENCH, BENCH + _plugins(("vlc-lab", "0.1.0", "lab_clip")))
    out, summary = _conformance(repo)
    assert out.returncode == 1
    assert "## ❌ Conformance of added or changed types: failed" in summary
    assert "`vlc-lab` (vlc-lab==0.1.0) lists model type `lab_clip`, which is not registered here" in summary
    assert "`vlc-harness plugins install`" in summary


@pytest.mark.subprocess
def test_an_unchanged_pin_brings_nothing_and_a_new_pin_is_checked_again(tmp_path):
    pinned = BENCH + _plugins(("vlc-lab", "0.1.0", "lab_clip"))
    out, summary = _conformance(registry_pull_request(tmp_path / "same", pinned, pinned + "# a comment\n"))
    assert out.returncode == 0 and "## ⏭️ Conformance of added or changed types: skipped" in summary
    assert "or provided by a package it newly names in `plugins:`" in summary
    repinned = BENCH + _plugins(("vlc-lab", "0.2.0", "random"))
    out, summary = _conformance(registry_pull_request(tmp_path / "bumped", pinned, repinned))
    assert out.returncode == 0, summary
    assert "Package `vlc-lab`, newly named or re-pinned in `plugins:`, provides `random`." in summary


def test_the_plan_lists_added_cells_first_and_unknown_ones_in_one_line(monkeypatch, tmp_path):
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
    ctx = Context(tmp_path, "base", tmp_path / "registry.yaml", tmp_path, tmp_path)
    monkeypatch.setattr(ctx, "plan", lambda: plan)
    text = step_plan(ctx).markdown()
    assert text.index("| `lab` | `sc` | added |") < text.index("| `random` | `sc` | changed |")
    assert "`hf-a`" not in text.split("Change unknown")[0]  # no table row of its own
    assert "Change unknown here for 2 cells of 2 models (`hf-a`, `hf-b`): model identity unknown here: offline" in text


def test_a_type_s_file_is_found_through_the_checkout_s_package_dir(tmp_path):
    from vlc_harness.ci.pr_check.conformance import package_dirs, source_path
    from vlc_harness.models import PairScoringModel
    from vlc_harness.plugins import get_plugins

    random_cls = get_plugins().models.get("random").cls
    repo = Path(__file__).resolve().parents[2]
    dirs = package_dirs(repo)
    assert dirs == {"vlc_harness": "harness", "vlc_harness_builtins": "plugins", "vlc_leaderboard": "leaderboard"}
    assert source_path(random_cls, repo, dirs) == "plugins/models/random_baseline.py"
    assert source_path(PairScoringModel, repo, dirs) == "harness/models.py"
    # another checkout's layout is read from its own pyproject.toml, never assumed
    (tmp_path / "pyproject.toml").write_text(
        '[tool.setuptools]\npackage-dir = { vlc_harness_builtins = "src/builtins/", "" = "lib" }\n'
    )
    other = package_dirs(tmp_path)
    assert other == {"vlc_harness_builtins": "src/builtins/"}
    assert source_path(random_cls, tmp_path, other) == "src/builtins/models/random_baseline.py"
    assert source_path(PairScoringModel, tmp_path, other) is None  # not mapped, and its file lies elsewhere
    # without a pyproject.toml nothing is renamed: a class counts by where its file lies in the checkout
    assert package_dirs(tmp_path / "nothing") == {}
    assert source_path(random_cls, repo, {}) == "plugins/models/random_baseline.py"
    assert source_path(random_cls, tmp_path, {}) is None
