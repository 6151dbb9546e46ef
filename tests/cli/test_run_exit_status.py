"""`vlc-harness run`'s exit status for a grid: 0 ok, 1 a cell failed (--strict: or is unavailable),
3 nothing could be computed, 4 a cell that had a number in the store is lost; the highest wins."""

from __future__ import annotations

import shutil

import pytest

from vlc_harness.run import RunReport
from vlc_harness.store import CellRecord

SAMPLE = "sugarcrepe:version=custom"


def cell(status: str, model: str = "m", benchmark: str = "b") -> CellRecord:
    return CellRecord(model_id=model, benchmark_id=benchmark, benchmark_type="t", status=status)


@pytest.mark.parametrize(
    "statuses, strict, code",
    [
        (["ok"], False, 0),
        (["partial"], False, 0),
        (["ok", "unavailable", "skipped"], False, 0),
        (["ok", "unavailable"], True, 1),
        (["ok", "failed"], False, 1),
        (["unavailable"], False, 3),
        (["failed"], False, 3),
        (["skipped", "unavailable"], False, 3),
        ([], False, 3),
    ],
)
def test_exit_code_of_a_grid(statuses, strict, code):
    report = RunReport(1, [cell(s, benchmark=f"b{k}") for k, s in enumerate(statuses)])
    assert report.exit_code(strict) == code


def test_a_lost_cell_is_4_and_wins_over_3_and_1():
    before = {("m", "b0"): cell("ok", benchmark="b0")}
    lost_only = RunReport(1, [cell("unavailable", benchmark="b0")])
    assert lost_only.exit_code(False, before) == 4
    failed_too = RunReport(1, [cell("failed", benchmark="b0"), cell("ok", benchmark="b1")])
    assert failed_too.exit_code(False, before) == 4
    kept = RunReport(1, [cell("ok", benchmark="b0")])
    assert kept.exit_code(True, before) == 0
    other_pair = RunReport(1, [cell("unavailable", model="x", benchmark="b0"), cell("ok", benchmark="b1")])
    assert other_pair.exit_code(False, before) == 0


def test_nothing_computed_exits_3_with_a_reason(vlc_run, tmp_path):
    out = vlc_run("-m", "random", "-m", "random:seed=1", "-b", SAMPLE, data_root=tmp_path / "empty")
    assert out.exit_code == 3, out.output
    reason = exit_paragraph(out)
    assert reason.startswith("Exit 3: Nothing could be computed: all 2 cells of the grid")
    assert "data not ready: 2" in reason and "vlc-harness data fetch" in reason
    assert len([line for line in out.stderr.splitlines() if not line.startswith("note: ")]) == 1  # one paragraph


def test_a_cell_that_had_a_number_and_lost_it_exits_4_until_recomputed_or_forgotten(vlc_run, sample_root):
    first = vlc_run("-m", "random", "-b", SAMPLE, data_root=sample_root)
    assert first.exit_code == 0, first.output
    shutil.rmtree(sample_root / "sugarcrepe")
    for _ in range(2):  # the store still holds the ok cell: it stays lost night after night
        lost = vlc_run("-m", "random", "-b", SAMPLE, data_root=sample_root)
        assert lost.exit_code == 4, lost.output
        assert exit_paragraph(lost).startswith("Exit 4: 1 cell(s) that had a number in the store before this run")
        assert f"random x {SAMPLE} (now unavailable)" in lost.stderr
        assert "Also: Nothing could be computed" in lost.stderr
    forgotten = vlc_run.cli("cache", "forget", "-m", "random", "--yes")
    assert forgotten.exit_code == 0, forgotten.output
    after = vlc_run("-m", "random", "-b", SAMPLE, data_root=sample_root)
    assert after.exit_code == 3, after.output


def test_a_partial_cell_counts_as_computed_and_is_not_lost_by_a_full_run(vlc_run, sample_root):
    partial = vlc_run("-m", "random", "-b", SAMPLE, "--limit", "1", data_root=sample_root)
    assert partial.exit_code == 0, partial.output
    assert "partial     random x sugarcrepe" in partial.output
    full = vlc_run("-m", "random", "-b", SAMPLE, data_root=sample_root)
    assert full.exit_code == 0, full.output


def test_strict_keeps_its_meaning(vlc_run, sample_root):
    args = ("-m", "random", "-b", SAMPLE, "-b", "hard_positives")  # hard positives: no data here
    assert vlc_run(*args, data_root=sample_root).exit_code == 0
    strict = vlc_run(*args, "--strict", data_root=sample_root)
    assert strict.exit_code == 1, strict.output
    assert exit_paragraph(strict).startswith("Exit 1: 1 of 2 cells failed or are unavailable (--strict)")


def exit_paragraph(out) -> str:
    """What a non-zero run says on stderr after the line naming the registry it read."""
    return "\n".join(line for line in out.stderr.splitlines() if not line.startswith("note: registry: "))
