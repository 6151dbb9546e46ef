"""A night that a step stops tells the truth (issue 40, item 5): a broken pin, a failed install, a plugin
package that does not install or a run that writes no summary exit 7 (STEP_FAILED), which the deploy job
does not accept; the JSON summary and the job summary name the step and say nothing was published."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.nightly_cli import run_night
from vlc_harness.ci.nightly import command, install
from vlc_harness.ci.nightly.steps import Step
from vlc_harness.exit_codes import PUBLISHED, ExitCode

pytestmark = pytest.mark.slow  # builds and renders a board per test module: the full suite's, not the inner loop's

SHA = "sha256:" + "ab" * 32
STOPPED = "this step stopped the night: nothing was rendered or published"


def night(vlc_cli, tmp_path: Path, registry: str, *options: str) -> tuple[int, dict, str]:
    path = tmp_path / "registry.yaml"
    path.write_text(registry, encoding="utf-8")
    return run_night(vlc_cli, tmp_path, path, *options)


def assert_stopped_by(step: str, code: int, summary: dict, markdown: str, tmp_path: Path) -> None:
    assert code == ExitCode.STEP_FAILED and code not in PUBLISHED
    assert summary["exit_code"] == 7 and summary["stopped_by"] == step and summary["published"] is False
    assert summary["steps"][step]["exit_code"] == 7 and summary["steps"][step]["lines"][-1] == STOPPED
    assert summary["run"] is None and "run" not in summary["steps"] and "render" not in summary["steps"]
    head = f"## Nightly leaderboard: exit 7 (the {step} step stopped the night: nothing was rendered or published)"
    assert markdown.startswith(head), markdown
    assert not (tmp_path / "site").exists()


def test_a_broken_pin_writes_the_job_summary_and_stops_the_night(vlc_cli, tmp_path):
    registry = "plugins:\n  - {package: vlc-my-clip, pin: vlc-my-clip>=0.1, hashes: [], models: [my_clip]}\n"
    code, summary, markdown = night(vlc_cli, tmp_path, registry, "--no-install")
    assert_stopped_by("registry", code, summary, markdown, tmp_path)
    (why,) = [line for line in summary["steps"]["registry"]["lines"] if "does not load" in line]
    assert "plugins[0].pin: 'vlc-my-clip>=0.1': expected 'vlc-my-clip==VERSION' (exact)" in why
    assert "plugins[0].pin" in markdown


def test_an_install_that_fails_stops_the_night(vlc_cli, tmp_path, monkeypatch):
    lock = tmp_path / "nightly.txt"
    lock.write_text("#    uv pip compile pyproject.toml --extra hf --output-file lock/nightly.txt\n")
    monkeypatch.setattr(install.subprocess, "run", lambda *a, **k: pytest.fail(f"pip ran: {a}"))
    registry = "models:\n  - {id: clip, type: open_clip, params: {arch: ViT-B-32}}\nbenchmarks: []\n"
    code, summary, markdown = night(vlc_cli, tmp_path, registry, "--lock", str(lock))
    assert_stopped_by("install", code, summary, markdown, tmp_path)
    assert "refused, nothing installed: the registry's types need the extras" in markdown


@pytest.mark.subprocess  # pip
def test_a_plugin_package_that_does_not_install_stops_the_night(vlc_cli, tmp_path, monkeypatch):
    monkeypatch.setattr(command, "install", lambda *a: Step("install", lines=["ok (the test's)"]))
    monkeypatch.setenv("PIP_NO_INDEX", "1")  # offline: the pinned wheel is nowhere to be found
    monkeypatch.setenv("PIP_FIND_LINKS", str(tmp_path))
    registry = (
        f"plugins:\n  - {{package: vlc-my-clip, pin: vlc-my-clip==0.1.0, hashes: [{SHA}], models: [my_clip]}}\n"
        "models:\n  - {id: lab-clip, type: my_clip}\nbenchmarks: []\n"
    )
    code, summary, markdown = night(vlc_cli, tmp_path, registry)
    assert_stopped_by("plugins", code, summary, markdown, tmp_path)
    assert any("plugins install --registry" in line for line in summary["steps"]["plugins"]["lines"])
    assert summary["steps"]["install"]["exit_code"] == 0


def test_a_run_that_writes_no_summary_stops_the_night(vlc_cli, tmp_path, monkeypatch):
    real = command.cli

    def cli(name: str, argv: list[str], show_stdout: bool = False) -> Step:
        return Step("run", code=1, crashed=True, lines=["crashed: the test's"]) if name == "run" else real(name, argv)

    monkeypatch.setattr(command, "cli", cli)
    code, summary, markdown = night(vlc_cli, tmp_path, "models: []\nbenchmarks: []\n", "--no-install")
    assert code == 7 and summary["stopped_by"] == "run" and summary["published"] is False
    assert markdown.startswith("## Nightly leaderboard: exit 7 (the run step stopped the night")
    assert not (tmp_path / "site").exists()
