""".github/workflows/nightly.yml: three jobs (issue 37, item 1). The run job runs plugin code and holds only
``contents: read``; the render job installs the harness without any plugin and renders the bundle against the
published site; the deploy job checks the site before ``deploy-pages``. Every part is ``vlc-harness ci
nightly --steps ...`` (or the deploy check's module), nothing is swallowed, each job holds what it needs."""

from __future__ import annotations

import shlex
from pathlib import Path

import yaml

from vlc_harness.ci.nightly.command import nightly_command
from vlc_harness.exit_codes import PUBLISHED

REPO = Path(__file__).resolve().parents[2]
WORKFLOW = REPO / ".github" / "workflows" / "nightly.yml"
PREVIOUS = REPO / ".github" / "scripts" / "previous_site.sh"
PUBLISHABLE = "(" + " || ".join(f"steps.night.outputs.code == '{int(c)}'" for c in sorted(PUBLISHED)) + ")"
"""The run job exports the bundle after exactly the codes of ``vlc_harness.exit_codes.PUBLISHED``."""


def workflow() -> dict:
    return yaml.safe_load(WORKFLOW.read_text())


def runs(job: dict) -> str:
    return "\n".join(step.get("run", "") for step in job["steps"])


def actions(job: dict) -> list[str]:
    return [s["uses"].split("@")[0] for s in job["steps"] if "uses" in s]


def night_args(job: dict) -> dict:
    """The options the job's ``vlc-harness ci nightly`` line passes, as the command parses them."""
    (night,) = [s for s in job["steps"] if s.get("id") == "night"]
    parts = []
    for part in night["run"].split("vlc-harness ci nightly", 1)[1].split("\n"):  # up to the line's end
        parts.append(part.rstrip().rstrip("\\").strip())
        if not part.rstrip().endswith("\\"):
            break
    line = " ".join(parts)
    line = line.replace('${RELEASE:+--release "$RELEASE"}', "--release 2026-11").replace('"${previous[@]}"', "")
    return nightly_command.make_context("nightly", shlex.split(line)).params


def test_no_failure_is_swallowed_and_nothing_is_granted_by_default():
    text = WORKFLOW.read_text()
    assert "|| true" not in text and "continue-on-error" not in text
    spec = workflow()
    assert spec["permissions"] == {}
    assert list(spec["jobs"]) == ["run", "render", "deploy"]
    script = PREVIOUS.read_text()
    assert script.startswith("#!/usr/bin/env bash") and "set -euo pipefail" in script and "|| true" not in script


def test_the_run_job_runs_plugin_code_and_holds_no_publishing_permission():
    run = workflow()["jobs"]["run"]
    assert run["runs-on"] == ["self-hosted", "gpu"] and run["permissions"] == {"contents": "read"}
    assert run["outputs"]["code"] == "${{ steps.night.outputs.code }}"
    args = night_args(run)
    assert args["steps"] == "run" and args["registry"] == Path("registry.yaml")
    assert str(args["bundle"]) == "$RUNNER_TEMP/board-bundle.zip"
    (night,) = [s for s in run["steps"] if s.get("id") == "night"]
    assert 'echo "code=$code" >> "$GITHUB_OUTPUT"' in night["run"] and night["run"].rstrip().endswith('exit "$code"')
    (upload,) = [s for s in run["steps"] if s.get("with", {}).get("name") == "board-bundle"]
    assert upload["if"] == "${{ !cancelled() && " + PUBLISHABLE + " }}"
    assert upload["with"]["path"] == "${{ runner.temp }}/board-bundle.zip"
    assert "actions/upload-pages-artifact" not in actions(run) and "actions/deploy-pages" not in actions(run)


def test_the_render_job_installs_no_plugin_and_renders_against_the_published_site():
    jobs = workflow()["jobs"]
    render = jobs["render"]
    assert render["needs"] == "run" and render["runs-on"] == "ubuntu-latest"
    assert render["permissions"] == {"contents": "read", "actions": "read"}
    assert render["if"] == "${{ !cancelled() && " + PUBLISHABLE.replace("steps.night", "needs.run") + " }}"
    installs = [line.strip() for line in runs(render).splitlines() if "pip install" in line]
    assert installs == [
        "pip install --no-deps --require-hashes --only-binary :all: -r lock/render.txt",
        "pip install --no-deps --no-build-isolation -e .",
    ]
    assert '.github/scripts/previous_site.sh "$RUNNER_TEMP/published"' in runs(render)
    args = night_args(render)
    assert args["steps"] == "render" and str(args["bundle"]) == "$RUNNER_TEMP/bundle/board-bundle.zip"
    assert str(args["site"]) == "$RUNNER_TEMP/site" and args["release"] == "2026-11"
    assert 'previous=(--previous "$RUNNER_TEMP/published")' in runs(render)
    (upload,) = [s for s in render["steps"] if s.get("uses", "").startswith("actions/upload-pages-artifact")]
    assert upload["with"]["path"] == "${{ runner.temp }}/site" and "if" not in upload


def test_the_deploy_job_checks_the_site_it_deploys_and_installs_nothing():
    deploy = workflow()["jobs"]["deploy"]
    assert deploy["needs"] == "render" and deploy["runs-on"] == "ubuntu-latest" and "if" not in deploy
    assert deploy["permissions"] == {"contents": "read", "actions": "read", "pages": "write", "id-token": "write"}
    assert actions(deploy)[-1] == "actions/deploy-pages" and "pip install" not in runs(deploy)
    checks = [s for s in deploy["steps"] if "vlc_leaderboard.verify_site" in s.get("run", "")]
    assert len(checks) == 1 and deploy["steps"].index(checks[0]) == len(deploy["steps"]) - 2  # right before deploy
    check = checks[0]["run"]
    assert 'python -m vlc_leaderboard.verify_site "$RUNNER_TEMP/site" "${against[@]}"' in check
    assert 'against=(--against "$RUNNER_TEMP/published")' in check
    (site,) = [s for s in deploy["steps"] if s.get("uses", "").startswith("actions/download-artifact")]
    assert site["with"]["name"] == "github-pages"  # this run's Pages artifact: the one deploy-pages publishes


def test_the_published_site_is_the_last_deployed_artifact():
    script = PREVIOUS.read_text()
    assert '.jobs[] | select(.name == "deploy" and .conclusion == "success")' in script
    assert "--name github-pages" in script and "--branch main" in script
    assert 'if [ "${FIRST:-false}" != "true" ]; then' in script  # no published site fails unless told first
    jobs = workflow()["jobs"]
    assert "deploy" in jobs and "github-pages" == jobs["deploy"]["environment"]["name"]


def test_the_runner_installs_the_hashed_lock_and_nothing_unhashed():
    """Every pip install on the runner is the lock (hashes, wheels only) or the checkout alone (issue 37)."""
    lines = [line.strip() for line in runs(workflow()["jobs"]["run"]).splitlines() if "pip install" in line]
    assert lines == [
        "pip install --no-deps --require-hashes --only-binary :all: -r lock/nightly.txt",
        "pip install --no-deps --no-build-isolation -e .",
    ]


def test_the_run_step_takes_its_deadline_and_executor_from_documented_variables():
    env = workflow()["jobs"]["run"]["env"]
    assert env["VLC_HARNESS_DEADLINE"].startswith("${{ vars.VLC_HARNESS_DEADLINE || ")
    assert env["VLC_HARNESS_EXECUTOR"] == "${{ vars.VLC_HARNESS_EXECUTOR || 'local' }}"
    assert env["RAY_ADDRESS"] == "${{ vars.RAY_ADDRESS }}"
    docs = (REPO / "docs" / "maintainers.md").read_text()
    for name in ("VLC_HARNESS_DEADLINE", "VLC_HARNESS_EXECUTOR", "RAY_ADDRESS"):
        assert f"`{name}`" in docs, name
    default = env["VLC_HARNESS_DEADLINE"].split("|| '")[1].split("'")[0]
    from vlc_harness.run.deadline import parse_duration

    assert parse_duration(default) < workflow()["jobs"]["run"]["timeout-minutes"] * 60  # ends before the limit


def test_every_executor_the_run_job_may_choose_is_in_the_lock_it_installs():
    """``VLC_HARNESS_EXECUTOR=ray`` needs ``ray`` on the runner: the hashed lock the run job installs holds
    each executor's extra, or the night would fail on its first cell."""
    from vlc_harness import lockfile
    from vlc_harness.ci.nightly.install import LOCK
    from vlc_harness.config import EXECUTORS

    locked = lockfile.read(LOCK)
    assert "ray" in EXECUTORS.values()
    for executor, extra in EXECUTORS.items():
        assert extra is None or extra in locked.extras, (executor, extra)
