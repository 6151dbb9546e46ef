"""The workflows' boundary, as regression guards: every action is pinned by a full commit SHA (a tag can be
moved), and the pull-request workflow runs on GitHub-hosted runners only.

A pull request can edit this file as easily as the workflow: the control that keeps a fork's PR off the
self-hosted runner is the repository's settings (docs/maintainers.md); these tests catch a maintainer's
own mistake."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

WORKFLOWS = Path(__file__).resolve().parents[2] / ".github" / "workflows"
PINNED = re.compile(r"^[^@\s]+@[0-9a-f]{40}$")
"""``owner/repo[/path]@<40-hex commit>``."""
USES_LINE = re.compile(r"^\s*(?:-\s*)?uses:\s*(?P<ref>\S+)(?P<comment>\s+#.*)?$")
GITHUB_HOSTED = re.compile(r"^(ubuntu|windows|macos)-(latest|\d[\d.]*)(-arm)?$")
"""A GitHub-hosted runner image label (``ubuntu-latest``, ``ubuntu-24.04``, ``windows-2022``, ...)."""


def uses(spec: dict) -> list[str]:
    """Every ``uses:`` of a workflow: each step's action and each job's reusable workflow."""
    out = []
    for job in (spec.get("jobs") or {}).values():
        out += [job["uses"]] if "uses" in job else []
        out += [step["uses"] for step in job.get("steps", []) if "uses" in step]
    return out


def unpinned(text: str) -> list[str]:
    """The ``uses:`` of a workflow's text not pinned by a full commit SHA, and pinned lines whose comment
    does not name the tag (``# v4 (v4.4.0)``)."""
    bad = [ref for ref in uses(yaml.safe_load(text)) if not PINNED.match(ref) and not ref.startswith("./")]
    for line in text.splitlines():
        match = USES_LINE.match(line)
        if match and PINNED.match(match["ref"]) and not re.search(r"#\s*v\d", match["comment"] or ""):
            bad.append(f"{match['ref']} (no tag in a comment)")
    return bad


def hosted(spec: dict) -> list[str]:
    """The jobs of a workflow not held to a GitHub-hosted runner image (a label list, a group, an expression
    or ``self-hosted`` is the contributor's choice of machine)."""
    return [
        f"{name}: runs-on {job.get('runs-on')!r}"
        for name, job in (spec.get("jobs") or {}).items()
        if not (isinstance(job.get("runs-on"), str) and GITHUB_HOSTED.match(job["runs-on"]))
    ]


@pytest.mark.parametrize("workflow", sorted(p.name for p in WORKFLOWS.glob("*.y*ml")))
def test_every_action_is_pinned_by_commit_with_its_tag_in_a_comment(workflow):
    text = (WORKFLOWS / workflow).read_text(encoding="utf-8")
    assert uses(yaml.safe_load(text)), f"{workflow} uses no action: is the parser still right?"
    assert unpinned(text) == []


def test_the_pin_check_catches_a_tag_a_branch_and_a_missing_comment():
    sha = "11d5960a326750d5838078e36cf38b85af677262"
    planted = (
        "jobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n"
        "      - uses: actions/checkout@v4\n"
        "      - uses: actions/setup-python@main\n"
        f"      - uses: actions/checkout@{sha[:12]}\n"
        f"      - uses: actions/checkout@{sha}\n"
        f"      - uses: actions/checkout@{sha}  # v4 (v4.4.0)\n"
        "  b:\n    uses: lab/flows/.github/workflows/x.yml@v1\n"
    )
    assert unpinned(planted) == [
        "actions/checkout@v4",
        "actions/setup-python@main",
        f"actions/checkout@{sha[:12]}",
        "lab/flows/.github/workflows/x.yml@v1",
        f"actions/checkout@{sha} (no tag in a comment)",
    ]


def test_the_pull_request_workflow_runs_on_github_hosted_runners_only():
    spec = yaml.safe_load((WORKFLOWS / "pr.yml").read_text(encoding="utf-8"))
    assert spec["jobs"] and hosted(spec) == []


def test_the_runner_check_catches_a_self_hosted_runner():
    jobs = {
        "a": {"runs-on": ["self-hosted", "gpu"]},
        "b": {"runs-on": "self-hosted"},
        "c": {"runs-on": {"group": "gpu"}},
        "d": {"runs-on": "${{ github.event.pull_request.title }}"},
        "e": {"runs-on": "ubuntu-24.04"},
    }
    assert [line.split(":")[0] for line in hosted({"jobs": jobs})] == ["a", "b", "c", "d"]
