"""``vlc-harness ci pr-check smoke`` refuses a smoke run off the pins (issue 39 item 2): installed
score-changing versions other than constraints.txt's fail the step, and the check exits 6
(``ExitCode.OFF_PIN``), not 1, with the off-pin line in its section."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
import yaml

from tests.core.test_stack import fake_distribution
from vlc_harness.ci.pr_check.command import check
from vlc_harness.exit_codes import ExitCode

REPO = Path(__file__).resolve().parents[2]


def _pr(tmp_path: Path) -> tuple[Path, Path]:
    """A PR's checkout (its constraints.txt and registry) adding the model ``rand``, and its plan."""
    repo = tmp_path / "repo"
    repo.mkdir()
    shutil.copy(REPO / "constraints.txt", repo / "constraints.txt")
    (repo / "registry.yaml").write_text(
        yaml.safe_dump({"models": [{"id": "rand", "type": "random"}], "benchmarks": []})
    )
    plan = tmp_path / "plan.json"
    cells = [{"model": "rand", "benchmark": "sc", "change": "added", "why": ["new model"]}]
    plan.write_text(json.dumps({"models": [{"id": "rand"}], "diff": {"cells": cells, "removed": []}}))
    return repo, plan


@pytest.mark.subprocess  # the smoke step runs vlc-harness in its own interpreter
def test_a_smoke_run_off_the_pins_fails_the_check_with_exit_6(tmp_path, monkeypatch, capsys):
    repo, plan = _pr(tmp_path)
    args = (["smoke"], None, repo, None, tmp_path / "data", tmp_path / "summary.md", plan)
    on_pin = check(*args)
    assert on_pin == ExitCode.OK, capsys.readouterr().out  # on the pins: the smoke run passes
    capsys.readouterr()
    fake_distribution(tmp_path / "meta", "numpy", "9.9.9")  # the smoke run's interpreter sees another numpy
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(tmp_path / "meta"), os.environ.get("PYTHONPATH", "")]))
    code = check(*args)
    out = capsys.readouterr().out
    assert code == ExitCode.OFF_PIN == 6, out
    (row,) = [line for line in out.splitlines() if line.startswith("| `rand` |")]
    assert "| failed | refused, off the pins: " in row and "numpy 9.9.9 (pinned " in row, row
