"""``run`` and the scoring stack (issue 39 items 1-2): an installed score-changing version other than the
pin is one line and the cells carry it; the model recomputes, saying why in one line; ``--require-pinned``
(the nightly, the PR check's smoke run) refuses the run with exit 6.

The other version is simulated through package metadata: a ``numpy-VERSION.dist-info`` folder first on
``sys.path`` (the random baseline declares ``numpy`` as its scoring stack), which
:func:`importlib.metadata.version` reads before the installed one."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

from tests.core.test_stack import fake_distribution
from vlc_harness.errors import UserError
from vlc_harness.exit_codes import ExitCode
from vlc_harness.stack import CONSTRAINTS_ENV, read_pins

REPO = Path(__file__).resolve().parents[2]
GRID = ("-m", "random", "-b", "sugarcrepe:version=custom")


def _other_numpy(tmp_path: Path, monkeypatch, version: str = "9.9.9+cpu") -> None:
    fake_distribution(tmp_path / "meta", "numpy", version)
    monkeypatch.syspath_prepend(str(tmp_path / "meta"))
    importlib.invalidate_caches()


def test_an_off_pin_run_says_so_recomputes_saying_why_and_its_cells_carry_it(
    vlc_run, sample_root, tmp_path, monkeypatch
):
    monkeypatch.setenv(CONSTRAINTS_ENV, str(REPO / "constraints.txt"))
    pinned = read_pins(REPO / "constraints.txt")["numpy"]
    first = vlc_run(*GRID, data_root=sample_root)
    assert first.exit_code == 0, first.output
    assert "off-pin" not in first.output and "recomputed" not in first.output
    (on_pin,) = vlc_run.store().latest_cells()
    assert "off_pin" not in on_pin.provenance
    assert on_pin.provenance["model"]["stack"] == {"packages": {"numpy": pinned}}

    _other_numpy(tmp_path, monkeypatch)
    again = vlc_run(*GRID, data_root=sample_root)
    assert again.exit_code == 0, again.output  # a researcher's machine: the run proceeds
    off = [line for line in again.output.splitlines() if line.startswith("off-pin:")]
    assert len(off) == 1 and f"numpy 9.9.9 (pinned {pinned})" in off[0], again.output
    assert [line for line in again.output.splitlines() if "recomputed" in line] == [
        f"random recomputed: numpy {pinned} -> 9.9.9"
    ]
    (cell,) = vlc_run.store().latest_cells()
    assert cell.fingerprint != on_pin.fingerprint
    assert cell.provenance["model"]["stack"] == {"packages": {"numpy": "9.9.9"}}  # the local label dropped
    assert cell.provenance["off_pin"] == [{"name": "numpy", "installed": "9.9.9", "pinned": pinned}]

    same = vlc_run(*GRID, data_root=sample_root)  # the same stack again: reused, nothing recomputed
    assert "recomputed" not in same.output and "stored" in same.output, same.output


def test_require_pinned_refuses_an_off_pin_run_with_exit_6_before_anything_runs(
    vlc_run, sample_root, tmp_path, monkeypatch
):
    monkeypatch.setenv(CONSTRAINTS_ENV, str(REPO / "constraints.txt"))
    ok = vlc_run(*GRID, "--require-pinned", data_root=sample_root)
    assert ok.exit_code == 0, ok.output
    _other_numpy(tmp_path, monkeypatch)
    refused = vlc_run(*GRID, "--require-pinned", data_root=sample_root)
    assert refused.exit_code == ExitCode.OFF_PIN == 6, refused.output
    assert "off-pin:" in refused.output and "refused (--require-pinned)" in refused.output
    assert len(vlc_run.store().latest_cells()) == 1  # nothing ran: only the first run's cell


def test_a_constraints_file_that_is_not_there_is_a_usage_error(vlc_run, sample_root, tmp_path, monkeypatch):
    monkeypatch.setenv(CONSTRAINTS_ENV, str(tmp_path / "none.txt"))
    with pytest.raises(UserError, match="none.txt, which is not a file"):  # exit 2 on the command line
        vlc_run(*GRID, data_root=sample_root)
