"""A warm rerun does nothing; a changed input or metric code rebuilds; v0.1 stores are migrated and their
cells rebuilt by ``vlc-harness store upgrade``."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from vlc_harness.store import open_store, schema

V01_STORE = Path(__file__).resolve().parents[1] / "fixtures" / "store_v0_1" / "store.sqlite"


def _args(sample_root: Path, url: str, *more: str) -> list[str]:
    return ["-b", "sugarcrepe:version=custom", "--data-root", str(sample_root), "--store", url, "--no-progress", *more]


def _forbid_work(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any worker process or metric computation from here on fails the test."""
    import vlc_harness.run.collect
    import vlc_harness.run.executor

    def no_worker(*args, **kwargs):
        raise AssertionError("a worker was started")

    def no_metrics(*args, **kwargs):
        raise AssertionError("metrics were computed")

    monkeypatch.setattr(vlc_harness.run.executor, "LocalWorker", no_worker)
    monkeypatch.setattr(vlc_harness.run.collect, "cell_metrics", no_metrics)


def test_a_warm_rerun_reuses_the_stored_cell(vlc_run, sample_root, monkeypatch):
    first = vlc_run("-m", "random:seed=1", "-b", "sugarcrepe:version=custom", data_root=sample_root)
    assert first.exit_code == 0 and "[stored]" not in first.output
    (cell,) = vlc_run.store().latest_cells()
    _forbid_work(monkeypatch)
    second = vlc_run("-m", "random:seed=1", "-b", "sugarcrepe:version=custom", data_root=sample_root)
    assert second.exit_code == 0, second.output
    assert "[stored]" in second.output and "i2t_accuracy_macro=" in second.output
    (again,) = vlc_run.store().latest_cells()
    assert again.id == cell.id and again.metrics == cell.metrics  # not even rewritten


def test_what_a_cell_depends_on_invalidates_it(vlc_run, sample_root, monkeypatch):
    url = vlc_run.store_url
    args = ("-m", "random:seed=1", "-b", "sugarcrepe:version=custom")
    assert vlc_run(*args, data_root=sample_root).exit_code == 0
    (cell,) = open_store(url).latest_cells(with_replicates=True)
    assert len(next(iter(cell.replicates.values()))) == 20  # tests run with VLC_HARNESS_BOOTSTRAP=20

    import vlc_harness.run.executor

    def no_worker(*args, **kwargs):
        raise AssertionError("a worker was started: every score is stored")

    monkeypatch.setattr(vlc_harness.run.executor, "LocalWorker", no_worker)
    # another resample count is another metrics version: rebuilt from the stored scores
    monkeypatch.setenv("VLC_HARNESS_BOOTSTRAP", "30")
    out = vlc_run(*args, data_root=sample_root)
    assert out.exit_code == 0 and "[stored]" not in out.output
    (rebuilt,) = open_store(url).latest_cells(with_replicates=True)
    assert rebuilt.id != cell.id and len(next(iter(rebuilt.replicates.values()))) == 30
    assert [m["value"] for m in rebuilt.metrics] == [m["value"] for m in cell.metrics]
    # --recompute-metrics rebuilds even when nothing changed
    out = vlc_run(*args, "--recompute-metrics", data_root=sample_root)
    assert out.exit_code == 0 and "[stored]" not in out.output
    assert open_store(url).latest_cells()[0].id != rebuilt.id
    # an image whose bytes changed is another image: its pairs are scored again (needs a worker)
    monkeypatch.undo()
    monkeypatch.setenv("VLC_HARNESS_BOOTSTRAP", "30")
    image = next((sample_root / "coco" / "val2017").iterdir())
    image.write_bytes(image.read_bytes() + b"\0")
    out = vlc_run(*args, data_root=sample_root)
    assert out.exit_code == 0 and "[stored]" not in out.output


WARM_SCRIPT = """
import sys
from vlc_harness.cli import build_cli
args = sys.argv[1:]
try:
    build_cli().main(args, standalone_mode=False)
finally:
    print("TORCH_IMPORTED=" + str("torch" in sys.modules))
"""


@pytest.mark.subprocess
def test_a_warm_rerun_of_an_open_clip_model_imports_no_torch(tmp_path, sample_root, tiny_spec):
    url = f"sqlite:///{tmp_path / 's.sqlite'}"
    cmd = [sys.executable, "-c", WARM_SCRIPT, "run", "-m", tiny_spec, *_args(sample_root, url)]
    cold = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert cold.returncode == 0, cold.stderr
    warm = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert warm.returncode == 0, warm.stderr
    assert "[stored]" in warm.stdout and "TORCH_IMPORTED=False" in warm.stdout


@pytest.mark.subprocess
def test_a_random_init_open_clip_identifies_without_torch():
    from vlc_harness.models import RunOptions
    from vlc_harness.params import build
    from vlc_harness_builtins.models.openclip import OpenClip

    code = (
        "import sys; from vlc_harness.params import build; from vlc_harness.models import RunOptions;"
        "from vlc_harness_builtins.models.openclip import OpenClip;"
        "m = OpenClip(build(OpenClip.Params, {'arch': 'ViT-B-32', 'pretrained': None, 'init_seed': 3}), RunOptions());"
        "print(m.identify().weights); print('torch' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    weights, imported = out.stdout.split()
    assert weights.startswith("random-init:seed=3:torch=") and imported == "False"
    here = OpenClip(build(OpenClip.Params, {"arch": "ViT-B-32", "pretrained": None, "init_seed": 3}), RunOptions())
    assert here.identify().weights == weights


def test_a_v0_1_store_is_migrated_and_its_cells_rebuilt(vlc_run, vlc_cli, tmp_path, sample_root, monkeypatch):
    path = tmp_path / "v01.sqlite"
    shutil.copy(V01_STORE, path)
    url = f"sqlite:///{path}"
    before = {c["model_id"]: c for c in _v1_cells(path)}
    assert len(before) == 2 and all(c["metrics_version"] is None for c in before.values())
    monkeypatch.setenv("VLC_HARNESS_DATA", str(sample_root))
    shown = vlc_cli("show", "--store", url, "--format", "json")
    assert shown.exit_code == 0, shown.output
    assert "2 cells hold metrics computed by older metric code" in shown.output and "store upgrade" in shown.output
    assert all(c.metrics_version is None for c in open_store(url).latest_cells())  # show rebuilt nothing
    upgraded = vlc_cli("store", "upgrade", "--store", url, "--no-progress")
    assert upgraded.exit_code == 0, upgraded.output
    assert "stale cells: 2 of 2" in upgraded.output and "rebuilt 2 cells" in upgraded.output
    store = open_store(url)
    assert store.info()["schema_version"] == str(schema.SCHEMA_VERSION)
    for cell in store.latest_cells(with_replicates=True):
        assert cell.metrics_version and cell.metrics_version.startswith("e")
        old = {(m["metric"], m["category"]): m for m in before[cell.model_id]["metrics"]}
        new = {(m["metric"], m["category"]): m for m in cell.metrics}
        for key, m in old.items():  # the v0.1 values, bit for bit; intervals from 20 resamples now
            assert (new[key]["value"], new[key]["n"], new[key]["ties"]) == (m["value"], m["n"], m["ties"]), key
        assert set(cell.replicates) == {(m["metric"], m["category"]) for m in cell.metrics}
        assert {len(r) for r in cell.replicates.values()} == {20}
    # the next run finds every score stored: no worker, and the cells are then reusable
    import vlc_harness.run.executor

    def no_worker(*args, **kwargs):
        raise AssertionError("a worker was started: every score is stored")

    monkeypatch.setattr(vlc_harness.run.executor, "LocalWorker", no_worker)
    for seed in (3, 4):
        out = vlc_run(
            "-m", f"random:seed={seed}", "-b", "sugarcrepe:version=custom", data_root=sample_root, store_url=url
        )
        assert out.exit_code == 0, out.output
    out = vlc_run("-m", "random:seed=3", "-b", "sugarcrepe:version=custom", data_root=sample_root, store_url=url)
    assert "[stored]" in out.output


def test_cells_whose_data_is_missing_stay_as_they_are_and_are_said_so(vlc_cli, tmp_path, monkeypatch):
    path = tmp_path / "v01.sqlite"
    shutil.copy(V01_STORE, path)
    monkeypatch.setenv("VLC_HARNESS_DATA", str(tmp_path / "nothing"))
    out = vlc_cli("store", "upgrade", "--store", f"sqlite:///{path}", "--no-progress")
    assert out.exit_code == 1
    assert "not rebuilt (kept as they are): 2" in out.output and str(tmp_path / "nothing") in out.output
    assert all(c.metrics_version is None for c in open_store(f"sqlite:///{path}").latest_cells())


def _v1_cells(path: Path) -> list[dict]:
    import sqlite3

    conn = sqlite3.connect(path)
    rows = conn.execute("SELECT model_id, metrics FROM cells").fetchall()
    conn.close()
    return [{"model_id": m, "metrics": json.loads(x), "metrics_version": None} for m, x in rows]
