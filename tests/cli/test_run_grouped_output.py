"""`vlc-harness run` prints a line per cell with a number and one line per reason for the others;
`--summary FILE` writes the run as JSON (schema 1)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml

from vlc_harness.plugins import get_plugins
from vlc_harness.registry import load_registry

REPO = Path(__file__).resolve().parents[2]
SAMPLE = "sugarcrepe:version=custom"
SHAPES = "shapes:n_scenes=4,image_size=32"


def test_cells_without_a_number_are_one_line_per_benchmark_and_reason(vlc_run, sample_root):
    out = vlc_run("-m", "random", "-m", "random:seed=1", "-b", SAMPLE, "-b", "hard_positives", data_root=sample_root)
    assert out.exit_code == 0, out.output
    lines = out.output.splitlines()
    assert [line for line in lines if line.startswith("ok ")] == [
        line for line in lines if f" x {SAMPLE}  i2t_accuracy_macro=" in line
    ]
    assert sum(line.startswith("ok ") for line in lines) == 2
    (grouped,) = [line for line in lines if "hard_positives" in line]
    assert grouped.startswith("unavailable random, random:seed=1 x hard_positives: data not ready (")
    assert grouped.endswith(": `vlc-harness data fetch -b hard_positives`")
    assert lines[-1] == "cells: 2 ok, 2 unavailable"

    quiet = vlc_run("-m", "random", "-b", SAMPLE, "-b", "hard_positives", "--quiet", data_root=sample_root)
    assert quiet.exit_code == 0
    assert [line.split()[0] for line in quiet.stdout.splitlines()] == ["unavailable", "cells:"]


def test_a_model_unavailable_everywhere_for_one_reason_is_one_line(vlc_run, sample_root, tmp_path):
    missing = tmp_path / "no-such-checkpoint.safetensors"
    spec = f"shapes_clip:weights={missing}"
    out = vlc_run("-m", spec, "-m", "random", "-b", SAMPLE, "-b", SHAPES, data_root=sample_root)
    lines = [line for line in out.output.splitlines() if spec in line]
    assert len(lines) == 1, out.output
    assert lines[0].startswith(f"unavailable {spec} x {SAMPLE}, {SHAPES}: weights not available (")


@pytest.mark.slow  # the whole published grid
def test_the_offline_published_grid_prints_a_line_per_benchmark_and_exits_3(vlc_cli, tmp_path):
    """The issue's measurement: 1,273 lines (672 KB) before, one per (benchmark, reason) now."""
    registry = load_registry([REPO / "registry.yaml"], get_plugins())
    out = vlc_cli(
        "run", "--all", "--registry", str(REPO / "registry.yaml"), "--data-root", str(tmp_path / "empty"),
        "--store", f"sqlite:///{tmp_path / 'store.sqlite'}", "--no-progress",
    )  # fmt: skip
    assert out.exit_code == 3, out.output[-2000:]
    lines = out.stdout.splitlines()
    n_cells = len(registry.models) * len(registry.benchmarks)
    assert lines[-1] == f"cells: {n_cells} unavailable"
    grouped = lines[:-1]
    assert len(grouped) == len(registry.benchmarks)  # every cell: data not ready, one reason per benchmark
    assert {line.split(" x ")[1].split(":")[0] for line in grouped} == set(registry.benchmarks)
    assert all(line.startswith(f"unavailable {len(registry.models)} models x ") for line in grouped)
    assert len(out.stdout.encode()) < 20_000  # 19 lines with each reason's first line in full
    assert out.stderr.splitlines()[-1].startswith("Exit 3: Nothing could be computed")


def test_the_summary_names_new_changed_and_lost_cells(vlc_run, sample_root, tmp_path):
    registry = tmp_path / "registry.yaml"
    entries = {
        "models": [{"id": "rand", "type": "random", "params": {"seed": 0}}],
        "benchmarks": [{"id": "sc", "type": "sugarcrepe", "params": {"version": "custom"}}],
    }
    registry.write_text(yaml.safe_dump(entries))
    summary = tmp_path / "out" / "summary.json"
    args = ("--all", "--registry", str(registry), "--summary", str(summary))

    assert vlc_run(*args, data_root=sample_root).exit_code == 0
    first = json.loads(summary.read_text())
    assert first["schema"] == 1 and first["exit_code"] == 0 and first["exit_reason"].startswith("Exit 0: 1 of 1")
    assert first["statuses"] == {"ok": 1} and first["models"] == {"rand": {"ok": 1}}
    assert first["benchmarks"] == {"sc": {"ok": 1}}
    (new,) = first["new"]
    assert new["model"] == "rand" and new["metric"] == "i2t_accuracy_macro" and 0 <= new["value"] <= 1
    assert first["changed"] == first["lost"] == first["reasons"] == []
    assert set(first["seconds_per_model"]) == {"rand"} and first["seconds_per_model"]["rand"] >= 0

    assert vlc_run(*args, data_root=sample_root).exit_code == 0
    again = json.loads(summary.read_text())
    assert again["stored"] == 1 and again["new"] == again["changed"] == []

    entries["models"][0]["params"]["seed"] = 3  # another fingerprint, another value
    registry.write_text(yaml.safe_dump(entries))
    assert vlc_run(*args, data_root=sample_root).exit_code == 0
    (changed,) = json.loads(summary.read_text())["changed"]
    assert changed["before"]["fingerprint"] != changed["after"]["fingerprint"]
    assert changed["before"]["value"] == new["value"]

    shutil.rmtree(sample_root / "sugarcrepe")
    assert vlc_run(*args, data_root=sample_root).exit_code == 4
    lost = json.loads(summary.read_text())
    assert lost["exit_code"] == 4 and lost["exit_reason"].startswith("Exit 4: 1 cell(s)")
    (item,) = lost["lost"]
    assert item["model"] == "rand" and item["benchmark"] == "sc"
    assert item["before"]["status"] == "ok" and item["now"]["status"] == "unavailable"
    assert item["now"]["code"] == "data_missing"
    assert item["line"].startswith("rand x sc: was ok (i2t_accuracy_macro=")
    (reason,) = lost["reasons"]
    assert reason["cells"] == 1 and reason["code"] == "data_missing" and reason["label"] == "data not ready"
