"""One run configuration: the data root resolved in one place, every ``run`` option read into it,
and models handed it (``Model.run_config``) without a change to their ``load(device)``."""

from __future__ import annotations

import ast
import dataclasses
import sys
from pathlib import Path

import pytest

from vlc_harness.config import RunConfig, resolve_data_root
from vlc_harness.models import RunOptions, TextOnlyModel, build_model

REPO = Path(__file__).resolve().parents[2]
PACKAGE_FOLDERS = ("harness", "plugins", "leaderboard")


def _python_files() -> list[Path]:
    return [path for folder in PACKAGE_FOLDERS for path in sorted((REPO / folder).rglob("*.py"))]


def _names_used(path: Path) -> set[str]:
    """Every name a module reads or imports (``x`` and ``module.x`` alike), keyword argument and
    exact string constant."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Name):
            found.add(node.id)
        elif isinstance(node, ast.Attribute):
            found.add(node.attr)
        elif isinstance(node, ast.alias):
            found.add(node.name.split(".")[-1])
        elif isinstance(node, ast.keyword) and node.arg:
            found.add(node.arg)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            found.add(node.value)
    return found


def test_the_default_data_root_is_decided_in_one_module():
    users = sorted(
        path.relative_to(REPO).as_posix()
        for path in _python_files()
        if "default_data_root" in _names_used(path) and path.name != "paths.py"
    )
    assert users == ["harness/config.py"], users


def test_only_the_paths_module_reads_the_data_root_variable():
    """Models and commands get the data root from the run's configuration, never from the
    environment: a command's ``--data-root`` names the variable for click to read (the shared option, and
    the CI commands' own, whose default differs), and ``plan --diff`` hands the other revision's plan
    ``--data-root`` too."""
    readers = sorted(
        path.relative_to(REPO).as_posix()
        for path in _python_files()
        if {"ENV_DATA", "VLC_HARNESS_DATA"} & _names_used(path)
    )
    assert readers == [
        "harness/ci/nightly/command.py",
        "harness/ci/pr_check/command.py",
        "harness/cli/options.py",
        "harness/paths.py",
    ], readers


def test_a_data_root_given_wins_and_none_means_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("VLC_HARNESS_DATA", str(tmp_path / "env"))
    assert resolve_data_root(None) == resolve_data_root("") == tmp_path / "env"
    assert resolve_data_root(tmp_path / "given") == resolve_data_root(str(tmp_path / "given")) == tmp_path / "given"
    assert RunConfig().data_root == tmp_path / "env"
    monkeypatch.delenv("VLC_HARNESS_DATA")
    assert resolve_data_root(None).name == "data"  # the user data dir's data/


def test_a_config_is_frozen_and_refuses_what_no_run_can_do(tmp_path):
    config = RunConfig(data_root=tmp_path)
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.limit = 3  # type: ignore[misc]
    with pytest.raises(TypeError, match="resolved Path"):
        RunConfig(data_root=str(tmp_path))  # type: ignore[arg-type]
    for bad, message in (
        ({"executor": "slurm"}, "executor must be one of local, ray"),
        ({"limit": 0}, "limit must be at least 1"),
        ({"workers": 0}, "workers must be at least 1"),
        ({"max_cost": -1.0}, "max_cost must not be negative"),
    ):
        with pytest.raises(ValueError, match=message):
            RunConfig(data_root=tmp_path, **bad)


class Counting(TextOnlyModel):
    """A model written against ``load(self, device)`` alone, as before the configuration existed."""

    type_name = "counting_for_config"

    def load(self, device):
        self.device = device

    def score_texts(self, texts):
        return [float(len(t)) for t in texts]


def test_a_model_is_built_with_the_config_and_a_hand_built_one_sees_the_defaults(tmp_path, monkeypatch):
    monkeypatch.setenv("VLC_HARNESS_DATA", str(tmp_path / "env"))
    config = RunConfig(data_root=tmp_path / "given", limit=2)
    model = build_model(Counting, Counting.Params(), RunOptions(), config)
    assert model.run_config is config
    model.load("cpu")  # the old signature, unchanged
    assert model.device == "cpu"
    by_hand = Counting(Counting.Params(), RunOptions())
    assert by_hand.run_config == RunConfig(data_root=tmp_path / "env")


def test_run_reads_every_option_into_one_config(vlc_cli, tmp_path, monkeypatch):
    import vlc_harness.run
    from vlc_harness.run import RunReport

    seen = []

    def fake_execute(plugins, store, models, benchmarks, config, **kwargs):
        seen.append((config, [m.id for m in models], [b.id for b in benchmarks], sorted(kwargs)))
        return RunReport(run_id=None)

    monkeypatch.setattr(vlc_harness.run, "execute", fake_execute)
    monkeypatch.setenv("VLC_HARNESS_DATA", str(tmp_path / "elsewhere"))
    argv = ["run", "-m", "random:seed=1", "-b", "sugarcrepe:version=custom", "--store", f"sqlite:///{tmp_path}/s.db"]
    argv += ["--data-root", str(tmp_path / "data"), "--limit", "3", "--no-progress", "--workers", "2"]
    argv += ["--executor", "ray", "--address", "ray://head:10001", "--max-cost", "1.5", "--recompute-metrics"]
    result = vlc_cli(*argv)
    assert result.exit_code == 3, result.output  # the fake computed no cell
    ((config, models, benchmarks, extra),) = seen
    assert config == RunConfig(
        data_root=tmp_path / "data",
        limit=3,
        progress=False,
        workers=2,
        executor="ray",
        ray_address="ray://head:10001",
        max_cost=1.5,
        recompute_metrics=True,
        argv=tuple(sys.argv),
    )
    assert (models, benchmarks, extra) == (["random:seed=1"], ["sugarcrepe:version=custom"], ["on_cell", "registry"])
    seen.clear()
    result = vlc_cli(*argv[:7])  # no options: the defaults, the data root from the environment
    assert result.exit_code == 3, result.output  # the fake computed no cell
    assert seen[0][0] == RunConfig(data_root=tmp_path / "elsewhere", argv=tuple(sys.argv))


def test_plan_identifies_models_under_its_data_root(vlc_run, sample_root, tmp_path, monkeypatch):
    """``plan`` builds each model for its configuration too: a checkpoint named relative to the data
    root is found (and hashed: a known fingerprint) under ``--data-root``, not ``$VLC_HARNESS_DATA``."""
    import json

    from vlc_harness.kit.weights import file_identity
    from vlc_harness.testing import require

    require("open_clip")  # the plugin checks the architecture name with it
    checkpoint = sample_root / "checkpoints" / "tuned.pt"
    checkpoint.parent.mkdir()
    checkpoint.write_bytes(b"a checkpoint plan hashes and never loads")
    monkeypatch.setenv("VLC_HARNESS_DATA", str(tmp_path / "elsewhere"))
    spec = "open_clip_tuned:arch=ViT-B-32,checkpoint=checkpoints/tuned.pt"
    args = ["-m", spec, "-b", "sugarcrepe:version=custom", "--data-root", str(sample_root), "--format", "json"]
    out = vlc_run.cli("plan", *args)
    assert out.exit_code == 0, out.output
    plan = json.loads(out.stdout)
    (model,) = plan["models"]
    assert model["unknown"] is None and model["fingerprint"] != "unknown", model
    assert model["weights"] == file_identity(checkpoint)
