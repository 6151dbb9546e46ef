"""Each run records the registry files it read (absolute path, sha256) in its provenance; the store
lists them per run that still has cells, newest first, and the cells no such run made."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from tests.registries import RANDOM_ON_TINY_SHAPES
from vlc_harness.store.registries import RegistryFile, RegistryUse, registry_files

REGISTRY = RANDOM_ON_TINY_SHAPES
OVERLAY = """
models:
  - id: random-1
    type: random
    params: {seed: 1}
"""


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working directory without ./registry.yaml, holding a registry and an overlay."""
    (tmp_path / "grid.yaml").write_text(REGISTRY)
    (tmp_path / "overlay.yaml").write_text(OVERLAY)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_a_run_records_its_registry_files_by_absolute_path_and_content(vlc_run, folder) -> None:
    out = vlc_run("--all", "--registry", "grid.yaml", "--registry", "overlay.yaml", data_root=folder / "data")
    assert out.exit_code == 0, out.output
    store = vlc_run.store()
    try:
        (use,) = store.registries_used()
        provenance = store.run_provenance(use.run_id)
    finally:
        store.close()
    files = tuple(RegistryFile(str(folder / n), sha(folder / n)) for n in ("grid.yaml", "overlay.yaml"))
    assert use == RegistryUse(use.run_id, files)
    assert provenance["registry"] == [{"path": f.path, "sha256": f.sha256} for f in files]
    assert provenance["registry_files"] == ["grid.yaml", "overlay.yaml"]  # as given, unchanged
    assert use.label() == "grid.yaml + overlay.yaml" and use.option() == "--registry grid.yaml --registry overlay.yaml"
    assert use.shares_a_file(registry_files(["overlay.yaml"]))


def test_uses_are_the_runs_that_still_have_cells_newest_first(vlc_run, folder) -> None:
    data = folder / "data"
    # first, before any registry: a run of inline specs on an empty store reads no registry file
    # (afterwards it would follow the store's latest run's registry, as every command does)
    inline = vlc_run("-m", "random:seed=5", "-b", "shapes:seed=0,n_scenes=20,image_size=32", data_root=data)
    assert inline.exit_code == 0, inline.output
    assert vlc_run("--all", "--registry", "grid.yaml", data_root=data).exit_code == 0
    (folder / "same.yaml").write_text(REGISTRY + "# the same grid, another file\n")
    # every cell of the grid's run is saved again by the next: the grid's run has none left
    assert vlc_run("--all", "--registry", "same.yaml", "--recompute-metrics", data_root=data).exit_code == 0
    store = vlc_run.store()
    try:
        uses = store.registries_used()
        unrecorded = store.unrecorded_cell_entries()
    finally:
        store.close()
    assert [u.files[0].path for u in uses] == [str(folder / "same.yaml")]
    assert unrecorded == {("random:seed=5", "shapes:seed=0,n_scenes=20,image_size=32")}
    assert not uses[0].shares_a_file(registry_files(["grid.yaml"]))  # another file, other bytes
