"""Ad-hoc selections: a benchmark type or inline spec equal to a registry entry is that entry, and
cells of an inline image-blind model say so."""

from __future__ import annotations

from pathlib import Path

from vlc_harness.registry import load_registry
from vlc_harness.run.select import select_benchmarks

REGISTRY = """
models:
  - id: rnd
    type: random
benchmarks:
  - id: shapes-small
    type: shapes
    params: {n_scenes: 20}
  - id: shapes-default
    type: shapes
  - id: shapes-again
    type: shapes
    params: {seed: 0}
  - id: sc
    type: sugarcrepe
    params: {version: custom}
"""


def registry(tmp_path: Path, plugins, text: str = REGISTRY):
    path = tmp_path / "registry.yaml"
    path.write_text(text)
    return load_registry([path], plugins)


def ids(reg, plugins, *specs: str) -> list[str]:
    return [b.id for b in select_benchmarks(reg, plugins, list(specs))]


def test_a_type_with_default_params_is_the_registry_entry_with_those_params(tmp_path, vlc_plugins):
    reg = registry(tmp_path, vlc_plugins)
    # shapes-default and shapes-again both have the default params: the first in registry order wins
    assert ids(reg, vlc_plugins, "shapes") == ["shapes-default"]
    assert ids(reg, vlc_plugins, "shapes:n_scenes=20") == ["shapes-small"]
    assert ids(reg, vlc_plugins, "shapes:n_scenes=500,seed=0") == ["shapes-default"]
    assert ids(reg, vlc_plugins, "sugarcrepe:version=custom") == ["sc"]


def test_other_params_stay_an_inline_benchmark(tmp_path, vlc_plugins):
    reg = registry(tmp_path, vlc_plugins)
    assert ids(reg, vlc_plugins, "shapes:n_scenes=21") == ["shapes:n_scenes=21"]
    # the registry's sugarcrepe entry is the custom version, not the default one
    (inline,) = select_benchmarks(reg, vlc_plugins, ["sugarcrepe"])
    assert inline.id == "sugarcrepe" and inline.source == "inline"
    # without a registry, a type is its own id as before
    assert ids(registry(tmp_path, vlc_plugins, ""), vlc_plugins, "shapes") == ["shapes"]


def test_an_inline_benchmark_equal_to_a_registry_entry_fills_its_column(vlc_run, tmp_path, sample_root, vlc_plugins):
    registry(tmp_path, vlc_plugins)
    reg = str(tmp_path / "registry.yaml")
    first = vlc_run("-m", "rnd", "-b", "sugarcrepe:version=custom", "--registry", reg, data_root=sample_root)
    assert first.exit_code == 0, first.output
    assert "rnd x sc " in first.output
    again = vlc_run("-m", "rnd", "-b", "sc", "--registry", reg, data_root=sample_root)
    assert again.exit_code == 0, again.output
    cells = vlc_run.store().latest_cells()
    assert [(c.model_id, c.benchmark_id) for c in cells] == [("rnd", "sc")]


def test_cells_of_an_inline_image_blind_model_are_marked_blind(vlc_run, sample_root, faulty):
    out = vlc_run("-m", "test_length", "-m", "random:seed=3", "-b", "sugarcrepe:version=custom", data_root=sample_root)
    assert out.exit_code == 0, out.output
    marks = {c.model_id: c.provenance["image_blind"] for c in vlc_run.store().latest_cells()}
    assert marks == {"test_length": True, "random:seed=3": False}
