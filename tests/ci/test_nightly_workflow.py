""".github/workflows/nightly.yml: the night is ``vlc-harness ci nightly``, nothing is swallowed, and the
job that runs plugin code cannot publish; a separate job deploys the checked site."""

from __future__ import annotations

import shlex
from pathlib import Path

import yaml

from vlc_harness.ci.nightly.command import nightly_command
from vlc_harness.exit_codes import PUBLISHED

REPO = Path(__file__).resolve().parents[2]
WORKFLOW = REPO / ".github" / "workflows" / "nightly.yml"
PUBLISHABLE = "(" + " || ".join(f"steps.night.outputs.code == '{int(c)}'" for c in sorted(PUBLISHED)) + ")"
"""The deploy job accepts exactly the codes of ``vlc_harness.exit_codes.PUBLISHED``."""


def workflow() -> dict:
    return yaml.safe_load(WORKFLOW.read_text())


def runs(job: dict) -> str:
    return "\n".join(step.get("run", "") for step in job["steps"])


def test_no_failure_is_swallowed():
    text = WORKFLOW.read_text()
    assert "|| true" not in text and "continue-on-error" not in text
    spec = workflow()
    assert spec["permissions"] == {"contents": "read"}
    assert set(spec["jobs"]) == {"nightly", "deploy"}


def test_the_job_that_runs_plugin_code_holds_no_publishing_permission():
    jobs = workflow()["jobs"]
    for name, job in jobs.items():
        if "python" in runs(job) or "vlc-harness" in runs(job):
            assert job.get("permissions") == {"contents": "read"}, name
    nightly_job = jobs["nightly"]
    assert nightly_job["runs-on"] == ["self-hosted", "gpu"]
    assert "vlc-harness ci nightly --registry registry.yaml" in runs(nightly_job)
    assert "pages" not in str(nightly_job.get("permissions")) and "id-token" not in str(nightly_job.get("permissions"))


def test_the_deploy_job_only_deploys_a_site_the_night_accepted():
    jobs = workflow()["jobs"]
    deploy = jobs["deploy"]
    assert deploy["needs"] == "nightly" and deploy["runs-on"] == "ubuntu-latest"
    assert deploy["permissions"] == {"pages": "write", "id-token": "write"}
    assert [s.get("uses", "").split("@")[0] for s in deploy["steps"]] == ["actions/deploy-pages"]
    assert not any("run" in s for s in deploy["steps"])
    assert deploy["if"] == "${{ !cancelled() && " + PUBLISHABLE.replace("steps.night", "needs.nightly") + " }}"
    assert jobs["nightly"]["outputs"]["code"] == "${{ steps.night.outputs.code }}"
    (upload,) = [s for s in jobs["nightly"]["steps"] if s.get("uses", "").startswith("actions/upload-pages-artifact")]
    assert upload["if"] == "${{ !cancelled() && " + PUBLISHABLE + " }}"
    assert upload["with"]["path"] == jobs["nightly"]["env"]["SITE"]


def test_the_workflow_passes_options_the_command_takes():
    (night,) = [s for s in workflow()["jobs"]["nightly"]["steps"] if s.get("id") == "night"]
    command = night["run"].split("vlc-harness ci nightly", 1)[1].split("\n")
    line = " ".join(part.rstrip("\\").strip() for part in command[:2])
    args = shlex.split(line.replace('${RELEASE:+--release "$RELEASE"}', "--release 2026-11"))
    parsed = nightly_command.make_context("nightly", args).params
    assert parsed["registry"] == Path("registry.yaml") and str(parsed["site"]) == "$SITE"
    assert parsed["release"] == "2026-11"
    assert 'echo "code=$code" >> "$GITHUB_OUTPUT"' in night["run"] and night["run"].rstrip().endswith('exit "$code"')


def test_the_runner_installs_the_hashed_lock_and_nothing_unhashed():
    """Every pip install on the runner is the lock (hashes, wheels only) or the checkout alone (issue 37)."""
    lines = [line.strip() for line in runs(workflow()["jobs"]["nightly"]).splitlines() if "pip install" in line]
    assert lines == [
        "pip install --no-deps --require-hashes --only-binary :all: -r lock/nightly.txt",
        "pip install --no-deps --no-build-isolation -e .",
    ]


def test_the_run_step_takes_its_deadline_and_executor_from_documented_variables():
    env = workflow()["jobs"]["nightly"]["env"]
    assert env["VLC_HARNESS_DEADLINE"].startswith("${{ vars.VLC_HARNESS_DEADLINE || ")
    assert env["VLC_HARNESS_EXECUTOR"] == "${{ vars.VLC_HARNESS_EXECUTOR || 'local' }}"
    assert env["RAY_ADDRESS"] == "${{ vars.RAY_ADDRESS }}"
    docs = (REPO / "docs" / "maintainers.md").read_text()
    for name in ("VLC_HARNESS_DEADLINE", "VLC_HARNESS_EXECUTOR", "RAY_ADDRESS"):
        assert f"`{name}`" in docs, name
    default = env["VLC_HARNESS_DEADLINE"].split("|| '")[1].split("'")[0]
    from vlc_harness.run.deadline import parse_duration

    assert parse_duration(default) < workflow()["jobs"]["nightly"]["timeout-minutes"] * 60  # ends before the limit
