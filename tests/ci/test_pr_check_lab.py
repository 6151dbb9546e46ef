"""Issue 40's lab, through ``vlc-harness ci pr-check``: a model that returns NaN for every caption containing
"left", with no ``meta.parameters_m`` and weights named by the ``sha256:`` of a file no param names, makes
the smoke step red; with ``parameters_m`` set, conformance alone catches it; a model too large for the
runner is red unless a maintainer's label accepts it (and then never reads as passed); a benchmark-only PR
runs its benchmark on three baselines and checks the random one against chance."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import registry_pull_request
from tests.lab_model import write_lab_benchmark, write_lab_plugin

pytestmark = pytest.mark.subprocess  # the PR check runs its steps with the vlc-harness script

BENCH = "benchmarks:\n  - {id: shapes-mini, type: shapes, params: {n_scenes: 10}}\n"
MODELS = "models:\n  - {id: random, type: random}\n"
LAB = "  - {id: lab-nan, type: lab_nan, meta: {display_name: Lab NaN, source: Lab X}}\n"


def _check(repo: Path, *args: str, plugins: Path, labels: str = "") -> tuple[subprocess.CompletedProcess, str]:
    summary = repo.parent / "summary.md"
    summary.unlink(missing_ok=True)
    env = dict(os.environ, VLC_HARNESS_PLUGINS_DIR=str(plugins), PR_CHECK_LABELS=labels)
    cmd = [sys.executable, "-m", "vlc_harness", "ci", "pr-check", "--repo", str(repo), "--summary", str(summary)]
    out = subprocess.run([*cmd, "--base", "base", *args], capture_output=True, text=True, timeout=900, env=env)
    return out, summary.read_text() if summary.exists() else ""


def _section(summary: str, title: str) -> str:
    found = [s for s in summary.split("## ")[1:] if title in s.split("\n", 1)[0]]
    assert len(found) == 1, summary
    return found[0]


def test_the_lab_model_without_parameters_m_makes_the_smoke_step_red(tmp_path):
    weights = write_lab_plugin(tmp_path / "lab")  # outside the repository: an installed package
    assert weights.stat().st_size == 25_600
    repo = registry_pull_request(tmp_path, MODELS + BENCH, MODELS + LAB + BENCH)
    out, summary = _check(repo, "plan", "smoke", plugins=tmp_path / "lab")
    assert out.returncode == 1, summary + out.stderr
    smoke = _section(summary, "CPU smoke run")
    assert smoke.startswith("❌ CPU smoke run (--limit 5, shapes:n_scenes=50): failed"), smoke
    row = next(line for line in smoke.splitlines() if line.startswith("| `lab-nan` |"))
    # the size comes from the file the identity's sha256 names, found beside the plugin's module
    assert "| 0.0 MB (sha256:" in row and "is lab_nan_weights.bin (25.6 KB)) | failed | failed: " in row, row
    assert " of 50 instances failed" in row, row


def test_with_parameters_m_set_conformance_alone_catches_it(tmp_path):
    plugin = tmp_path / "plugin"
    write_lab_plugin(plugin)
    files = {f"lab/{p.name}": p.read_text() for p in plugin.glob("*.py")}
    lab = LAB.replace("source: Lab X}", "source: Lab X, parameters_m: 0.0064}")
    repo = registry_pull_request(
        tmp_path, MODELS + BENCH, MODELS + lab + BENCH, files
    )  # the PR brings the plugin's code
    (repo / "lab" / "lab_nan_weights.bin").write_bytes((plugin / "lab_nan_weights.bin").read_bytes())
    out, summary = _check(repo, "conformance", plugins=repo / "lab")
    assert out.returncode == 1, summary + out.stderr
    conformance = _section(summary, "Conformance of added or changed types")
    assert "Types: `lab_nan`" in conformance
    row = next(line for line in conformance.splitlines() if "test_model_example_scores[lab_nan]" in line)
    assert "| failed | LabNaN fails on generated inputs" in row and "score nan is not finite: caption 'a " in row
    assert "to the left of" in row, row


def test_a_model_too_large_is_red_unless_a_label_accepts_it_and_then_never_passed(tmp_path, monkeypatch):
    from vlc_harness.ci.pr_check import smoke
    from vlc_harness.ci.pr_check.context import Context
    from vlc_harness.plugins import get_plugins

    write_lab_plugin(tmp_path / "lab")
    repo = registry_pull_request(tmp_path, MODELS + BENCH, MODELS + LAB + BENCH)
    monkeypatch.setattr(smoke, "MAX_WEIGHTS_MB", 0.02)  # the 25.6 KB of weights are over it
    monkeypatch.setenv("VLC_HARNESS_PLUGINS_DIR", str(tmp_path / "lab"))
    get_plugins(reload=True)
    try:
        ctx = Context(repo, "base", repo / "registry.yaml", tmp_path / "data", tmp_path)
        refused = smoke.step_smoke(ctx)
        labels = frozenset({"other", smoke.OVERRIDE_LABEL})
        accepted = smoke.step_smoke(
            Context(repo, "base", ctx.registry, ctx.data_root, tmp_path, None, labels, ctx.plan())
        )
    finally:
        monkeypatch.delenv("VLC_HARNESS_PLUGINS_DIR")
        get_plugins(reload=True)
    text = refused.markdown()
    assert refused.verdict == "failed", text
    assert "| cannot run | too large for the CPU runner: 0 MB > 0 MB; a maintainer may accept it with the " in text
    text = accepted.markdown()
    assert accepted.verdict == "overridden" and text.startswith(
        "## ⚠️ CPU smoke run (--limit 5, shapes:n_scenes=50): overridden"
    ), text
    assert "| not run | overridden by the `smoke-override` label (too large for the CPU runner: 0 MB > 0 MB); " in text
    assert "not checked: that it loads on CPU and scores the shapes benchmark (50 instances) finitely" in text


def test_a_benchmark_only_pr_runs_three_baselines_and_checks_chance(tmp_path):
    plugins, data = tmp_path / "plugins", tmp_path / "data"
    write_lab_benchmark(plugins, data)
    lab = "  - {id: lab-bench, type: lab_pairs}\n"
    repo = registry_pull_request(tmp_path, MODELS + BENCH, MODELS + BENCH + lab)
    out, summary = _check(repo, "--data-root", str(data), "plan", "smoke", "baselines", plugins=plugins)
    assert out.returncode == 0, summary + out.stderr
    assert "## ⏭️ CPU smoke run (--limit 5, shapes:n_scenes=50): skipped" in summary
    section = _section(summary, "Baselines on added or changed benchmarks")
    assert section.startswith("✅ Baselines on added or changed benchmarks: passed"), section
    rows = {line.split(" | ")[1]: line for line in section.splitlines() if line.startswith("| `lab-bench` |")}
    assert set(rows) == {"random (`random`)", "blind (`blind_harper`)", "tiny image model (`shapes_clip`)"}, rows
    assert "| ok | group = " in rows["random (`random`)"] and " on 20 instances (20 scored, none failed)" in section
    assert "inside the chance 0.1667 (the `group` metric spec); binomial 99% interval at n=20: [0.0000, " in section
    for role in ("blind (`blind_harper`)", "tiny image model (`shapes_clip`)"):
        assert "| ok | group = " in rows[role], rows[role]
