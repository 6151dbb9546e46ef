"""``vlc-harness plan`` decides data availability first: a model is identified only when one of its
cells can run, and nothing it reports for a runnable cell differs from identifying every model."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
UNKNOWN_IDENTITY = {"url": "https://example.org/scores.jsonl", "sha256": "ab" * 32}  # needs the network

REGISTRY = f"""
models:
  - {{id: random, type: random, params: {{seed: 0}}}}
  - {{id: shapes-clip, type: shapes_clip, params: {{}}}}
  - {{id: submitted, type: precomputed, params: {json.dumps(UNKNOWN_IDENTITY)}}}
benchmarks:
  - {{id: shapes, type: shapes, params: {{seed: 0, n_scenes: 6, image_size: 128}}}}
  - {{id: sugarcrepe, type: sugarcrepe, params: {{version: paper-7512}}}}
  - {{id: aro-vg-relation, type: aro_vg_relation, params: {{}}}}
"""


def _plan(vlc_run, registry: Path, data_root: Path, *args: str) -> dict:
    out = vlc_run.cli("plan", "--registry", str(registry), "--data-root", str(data_root), "--format", "json", *args)
    assert out.exit_code == 0, out.output
    return json.loads(out.stdout)


@pytest.fixture
def registry(tmp_path: Path) -> Path:
    path = tmp_path / "registry.yaml"
    path.write_text(REGISTRY, encoding="utf-8")
    return path


def test_runnable_cells_plan_exactly_as_when_every_model_is_identified(vlc_run, registry, tmp_path):
    data_root = tmp_path / "data"  # shapes renders its data here; the other two benchmarks have none
    assert vlc_run("-m", "random", "-b", "shapes", "--registry", str(registry), data_root=data_root).exit_code == 0
    new = _plan(vlc_run, registry, data_root, "--all")
    old = _plan(vlc_run, registry, data_root, "--all", "--identify-all")

    statuses = {(c["model"], c["benchmark"]): c["status"] for c in new["cells"]}
    assert statuses[("random", "shapes")] == "complete"
    assert statuses[("shapes-clip", "shapes")] == "compute"
    assert statuses[("submitted", "shapes")] == "unknown"
    assert statuses[("random", "sugarcrepe")] == statuses[("random", "aro-vg-relation")] == "unavailable"
    assert new["cells"] == old["cells"]  # fingerprints, statuses, work, reasons: all the same
    assert new["models"] == old["models"]  # every model has a runnable cell here, so each is identified
    assert new["benchmarks"] == old["benchmarks"]
    assert all(m["fingerprint"] != "-" and m["not_identified"] is None for m in new["models"])


def test_a_model_without_a_runnable_cell_is_not_identified(vlc_run, registry, tmp_path):
    data_root = tmp_path / "empty"
    args = ("--all", "-b", "sugarcrepe", "-b", "aro-vg-relation")
    new = _plan(vlc_run, registry, data_root, *args)
    old = _plan(vlc_run, registry, data_root, *args, "--identify-all")
    assert new["cells"] == old["cells"]  # each benchmark's own reason, identity or not
    assert {c["status"] for c in new["cells"]} == {"unavailable"}
    assert all("SugarCrepe" in c["reason"] or "ARO" in c["reason"] for c in new["cells"])
    for m_new, m_old in zip(new["models"], old["models"]):
        assert (m_new["fingerprint"], m_new["work"]) == ("-", 0)
        assert m_new["not_identified"].startswith("not identified")
        assert m_old["not_identified"] is None and m_old["fingerprint"] != "-"
    assert [m["declared"] for m in new["models"]] == [m["declared"] for m in old["models"]]  # known unidentified
    assert {m["weights"] for m in new["models"]} == {None}

    table = vlc_run.cli("plan", *args, "--registry", str(registry), "--data-root", str(data_root)).output
    assert "note: 3 models not identified (no fingerprint): none of their cells can run here" in table


class CountingModel:
    """A plugin with a model type that counts its identify() calls."""

    calls: list[str] = []

    from vlc_harness import hookimpl

    @hookimpl
    def register_models(self, register):
        from vlc_harness.models import PairScoringModel

        calls = self.calls

        class Counted(PairScoringModel):
            """Counts identify()."""

            type_name = "counted_identity"

            def identify(self):
                calls.append("identify")
                return super().identify()

        register(Counted)


def test_identify_is_called_only_when_a_cell_can_run(vlc_run, vlc_registered, tmp_path):
    CountingModel.calls.clear()
    with vlc_registered(CountingModel()):
        empty = tmp_path / "empty"
        out = vlc_run.cli("plan", "-m", "counted_identity", "-b", "aro_vg_relation", "--data-root", str(empty))
        assert out.exit_code == 0, out.output
        assert CountingModel.calls == []
        out = vlc_run.cli(
            "plan", "-m", "counted_identity", "-b", "aro_vg_relation", "--identify-all", "--data-root", str(empty)
        )
        assert out.exit_code == 0, out.output
        assert CountingModel.calls == ["identify"]
        out = vlc_run.cli("plan", "-m", "counted_identity", "-b", "shapes:n_scenes=4", "--data-root", str(empty))
        assert out.exit_code == 0, out.output
        assert CountingModel.calls == ["identify", "identify"]  # once, for the runnable cell


@pytest.mark.subprocess
def test_the_published_grid_with_no_data_imports_no_model_library(tmp_path):
    """What makes ``plan --all --registry registry.yaml`` fast offline: no torch, no open_clip, no
    transformers (bench/plan_speed.py times it)."""
    code = (
        "import sys\n"
        "from vlc_harness.cli import main\n"
        "try:\n"
        f"    main(['plan', '--all', '--registry', 'registry.yaml', '--data-root', {str(tmp_path / 'empty')!r},\n"
        f"          '--store', 'sqlite:///{tmp_path / 'none.sqlite'}'])\n"
        "except SystemExit as exc:\n"
        "    assert not exc.code, exc.code\n"
        "heavy = sorted(m for m in ('torch', 'open_clip', 'transformers') if m in sys.modules)\n"
        "print('HEAVY', heavy)\n"
    )
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "HEAVY []" in out.stdout
    assert "models not identified" in out.stdout
