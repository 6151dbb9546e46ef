"""``vlc-harness ci``: both jobs are commands of the product, and the environment they read (the
workflows set it) is named in their help and read as their options."""

from __future__ import annotations

from pathlib import Path

from vlc_harness.ci.nightly.command import nightly_command
from vlc_harness.ci.pr_check.command import pr_check_command


def test_the_ci_group_lists_both_jobs(vlc_cli):
    out = vlc_cli("ci", "--help")
    assert out.exit_code == 0, out.output
    assert "pr-check" in out.output and "nightly" in out.output


def test_the_help_names_the_environment_each_job_reads(vlc_cli):
    help_text = " ".join(vlc_cli("ci", "pr-check", "--help").output.split())
    for variable in ("VLC_HARNESS_DATA", "GITHUB_STEP_SUMMARY", "PR_CHECK_PLAN_FILE"):
        assert f"[env var: {variable}]" in help_text
    assert "[env var: GITHUB_STEP_SUMMARY]" in " ".join(vlc_cli("ci", "nightly", "--help").output.split())


def test_the_environment_sets_the_options_and_an_option_wins(monkeypatch, tmp_path):
    monkeypatch.setenv("PR_CHECK_PLAN_FILE", str(tmp_path / "plan.json"))
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(tmp_path / "summary.md"))
    monkeypatch.setenv("VLC_HARNESS_DATA", str(tmp_path / "data"))
    params = pr_check_command.make_context("pr-check", ["plan"]).params
    assert params["plan_file"] == tmp_path / "plan.json" and params["summary"] == tmp_path / "summary.md"
    assert params["data_root"] == tmp_path / "data"
    given = pr_check_command.make_context("pr-check", ["--summary", "out.md", "plan"]).params
    assert given["summary"] == Path("out.md")
    assert nightly_command.make_context("nightly", []).params["markdown_file"] == tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", "")  # empty reads as unset, as the scripts read it
    assert nightly_command.make_context("nightly", []).params["markdown_file"] is None
