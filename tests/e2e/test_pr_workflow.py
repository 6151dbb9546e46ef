"""The pull-request check: .github/workflows/pr.yml and ``vlc-harness ci pr-check`` on a repository with a PR."""

from __future__ import annotations

import hashlib
import http.server
import json
import subprocess
import sys
import threading
from functools import partial
from pathlib import Path

import yaml

from tests.conftest import commit, copy_code, git
from vlc_harness.plugins import get_plugins
from vlc_harness.registry import parse_inline_benchmark
from vlc_harness.run.prepare import prepare

REPO = Path(__file__).resolve().parents[2]
WORKFLOW = REPO / ".github" / "workflows" / "pr.yml"
META = '{display_name: "Lab X", source: "Lab X", license: CC-BY-4.0, paper: "https://example.org/p", submitted: true}'


def pr_check(repo: Path, *args: str, env: dict | None = None) -> tuple[subprocess.CompletedProcess, str]:
    summary = repo.parent / "summary.md"
    summary.unlink(missing_ok=True)
    cmd = [sys.executable, "-m", "vlc_harness", "ci", "pr-check", "--repo", str(repo), "--summary", str(summary), *args]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=900, env=env)
    return out, summary.read_text() if summary.exists() else ""


def test_the_workflow_runs_on_pull_requests_only_with_no_secrets():
    text = WORKFLOW.read_text()
    spec = yaml.safe_load(text)
    assert list(spec[True]) == ["pull_request"]  # YAML 1.1 reads the key `on` as true
    # a maintainer's label reruns the check; the labels reach the steps through the environment only
    assert {"labeled", "unlabeled", "synchronize"} <= set(spec[True]["pull_request"]["types"])
    assert spec["permissions"] == {"contents": "read"}
    assert "secrets." not in text and "pull_request_target" not in text
    (job,) = spec["jobs"].values()
    steps = job["steps"]
    assert steps[0]["with"]["fetch-depth"] == 0 and steps[0]["with"]["persist-credentials"] is False
    assert steps[1]["with"]["python-version"] == "3.11"
    assert "pip install -c constraints.txt -e" in steps[2]["run"]
    # the registry's plugin packages, after the harness: a contributor's code runs in this job only
    assert "plugins install" not in steps[2]["run"]  # its own step: a broken pin writes a section too
    assert "permissions" not in job and "id-token" not in text and ": write" not in text  # nothing to deploy with
    checks = [s["run"].split("vlc-harness ci pr-check", 1)[1].split()[-1] for s in steps[3:]]
    assert checks == ["plugins", "lint", "registry", "conformance", "plan", "smoke", "baselines", "submitted"]
    assert all("!cancelled()" in s["if"] for s in steps[3:])  # every section reaches the summary
    assert job["env"]["PR_CHECK_LABELS"] == "${{ join(github.event.pull_request.labels.*.name, ',') }}"
    assert "github.event" not in "".join(s.get("run", "") for s in steps)  # no expression inside a script


def test_lint_reports_ruff_findings(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "good.py").write_text('"""Fine."""\n\nVALUE = 1\n')
    out, summary = pr_check(repo, "lint")
    assert out.returncode == 0, out.stdout + out.stderr
    assert "## ✅ Lint (ruff, mypy, import contracts): passed" in summary
    (repo / "bad.py").write_text("import os\n")
    out, summary = pr_check(repo, "lint")
    assert out.returncode == 1
    assert "## ❌ Lint (ruff, mypy, import contracts): failed" in summary and "F401" in summary


def _scores(folder: Path, root: Path, drop: int) -> tuple[str, str]:
    """A scores file for the SugarCrepe sample (registry id ``sc``) less ``drop`` lines: name, sha256."""
    plugins = get_plugins()
    p = prepare(parse_inline_benchmark("sugarcrepe:version=custom", plugins), plugins.benchmarks, root, None)
    lines = [
        {"benchmark": "sc", "version": p.data_version, "instance": inst.id, "image": i, "text": j, "score": j / 2}
        for inst in p.instances
        for i, j in inst.needed_pairs()
    ][drop:]
    path = folder / f"scores-{drop}.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path.name, hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_pull_request_is_checked_step_by_step(tmp_path, sample_root, monkeypatch):
    served = tmp_path / "served"
    served.mkdir()
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), partial(http.server.SimpleHTTPRequestHandler, directory=str(served))
    )
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base_url = f"http://127.0.0.1:{server.server_address[1]}"
    complete, incomplete = _scores(served, sample_root, 0), _scores(served, sample_root, 1)

    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    copy_code(repo)
    source = repo / "plugins" / "models" / "random_baseline.py"
    original = source.read_text()
    source.write_text(
        original.replace('    type_name = "random"\n', '    type_name = "random"\n    scoring_version = "0"\n')
    )
    bench = "benchmarks:\n  - {id: sc, type: sugarcrepe, params: {version: custom}}\n"
    (repo / "registry.yaml").write_text("models:\n  - {id: random, type: random}\n" + bench)
    commit(repo, "base")
    git(repo, "branch", "base")

    source.write_text(original)  # the PR changes the random baseline's scoring code
    lab = "  - id: {}\n    type: precomputed\n    params: {{url: '{}/{}', sha256: '{}'}}\n    meta: META\n"
    (repo / "registry.yaml").write_text(
        "models:\n  - {id: random, type: random}\n  - {id: random-2, type: random, params: {seed: 1}}\n"
        + lab.format("lab-x", base_url, *complete).replace("META", META)
        + lab.format("lab-y", base_url, *incomplete).replace("META", META)
        + bench
    )
    (repo / "examples").mkdir()
    (repo / "examples" / "bad.yaml").write_text("models:\n  - {id: r, type: random, meta: {submitted: true}}\n")
    commit(repo, "a pull request")

    monkeypatch.setenv("HF_HUB_OFFLINE", "0")  # CI has the network: the submitted files download
    steps = ["registry", "conformance", "plan", "smoke", "submitted"]
    try:
        out, summary = pr_check(repo, "--base", "base", "--data-root", str(sample_root), *steps)
    finally:
        server.shutdown()
        server.server_close()
    assert out.returncode == 1, out.stdout + out.stderr  # the bad example and the incomplete submission
    sections = {s.split("\n", 1)[0]: s for s in summary.split("## ")[1:]}
    assert set(sections) == {
        "❌ Registry validation: failed",
        "✅ Conformance of added or changed types: passed",
        "✅ Plan against base: passed",
        "✅ CPU smoke run (--limit 5, shapes:n_scenes=50): passed",
        "❌ Submitted scores: failed",
    }, summary
    by_title = {k.split(" ", 1)[1].split(":")[0]: v for k, v in sections.items()}

    registry = by_title["Registry validation"]
    assert "| `registry.yaml` | loads | 4 models, 1 benchmarks |" in registry
    assert "| `registry.yaml`: `lab-x` | submitted | well-formed |" in registry
    assert "| `examples/bad.yaml`: `r` | submitted | type random does not replay submitted scores" in registry

    conformance = by_title["Conformance of added or changed types"]
    assert "Types: `random` (3 checks)" in conformance
    assert "| `test_model_example_scores[random]` | passed |" in conformance

    plan = by_title["Plan against base"]
    assert "3 added, 1 changed; 0 removed." in plan
    assert "| `random` | `sc` | changed | model params or scoring code |" in plan
    assert "| `random-2` | `sc` | added | new model |" in plan

    smoke = by_title["CPU smoke run (--limit 5, shapes"]
    assert "| `random-2` | 0.0 MB (no weights to download) | ok | partial " in smoke
    assert "| `lab-x` | - | not run | submitted scores: the `submitted` step checks them |" in smoke
    assert "| `random` | 0.0 MB (no weights to download) | ok | partial " in smoke  # its scoring code changed

    submitted = by_title["Submitted scores"]
    assert "| `lab-x` | `sc` | complete: every needed pair of 28 instances (custom-" in submitted
    assert "| `lab-y` | `sc` | incomplete: no score for 1 of 56 needed pairs, e.g. replace_obj/0 (0,0) |" in submitted
    assert git(repo, "worktree", "list").count("\n") == 1
