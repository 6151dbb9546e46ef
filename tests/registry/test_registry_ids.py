"""Ids are matched whole, and two ids whose published file names collide are a registry error (issue 37).

Before the fix ``lab/model-a`` and ``lab_model-a`` both became ``models/lab_model-a.html`` and the
same downloads, so the index linked the victim's name to the impostor's page; ``id: "random\\n"``
passed because ``ID_PATTERN`` ends in ``$``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from vlc_harness.errors import RegistryError
from vlc_harness.registry import load_registry


def _write(tmp_path: Path, name: str, models: list[str], benchmarks: list[str] = ()) -> Path:
    lines = ["models:"] + [f"  - {{id: {i}, type: random}}" for i in models]
    if benchmarks:
        lines += ["benchmarks:"] + [f"  - {{id: {i}, type: shapes}}" for i in benchmarks]
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n")
    return path


def test_an_id_with_a_trailing_newline_is_refused(tmp_path, vlc_plugins):
    path = _write(tmp_path, "r.yaml", ['"random\\n"'])
    with pytest.raises(RegistryError, match=r"r.yaml:2: models\[0\].id: 'random\\n' is not a valid id"):
        load_registry([path], vlc_plugins)


@pytest.mark.parametrize(
    "first, second, name",
    [
        ("lab/model-a", "lab_model-a", "models/lab_model-a.html"),
        ("lab//model-a", "lab/model-a", "models/lab_model-a.html"),
        ("Lab/Model-A", "lab/model-a", "models/lab_model-a.html"),  # one file on a case-insensitive disk
        ("lab/", "lab", "models/lab.html"),
    ],
)
def test_models_whose_pages_collide_are_refused_naming_both(tmp_path, vlc_plugins, first, second, name):
    path = _write(tmp_path, "r.yaml", ["random", first, second])
    with pytest.raises(RegistryError) as raised:
        load_registry([path], vlc_plugins)
    message = str(raised.value)
    assert message.startswith(f"{path}:4: models[2].id: ")
    assert f"'{second}'" in message and f"'{first}' ({path}:3)" in message and name in message


def test_a_collision_across_overlay_files_is_refused(tmp_path, vlc_plugins):
    shared = _write(tmp_path, "shared.yaml", ["lab/model-a"])
    overlay = _write(tmp_path, "overlay.yaml", ["lab_model-a"])
    with pytest.raises(RegistryError) as raised:
        load_registry([shared, overlay], vlc_plugins)
    assert str(raised.value).startswith(f"{overlay}:2: models[0].id: 'lab_model-a'")
    assert f"'lab/model-a' ({shared}:2)" in str(raised.value)
    replaced = _write(tmp_path, "replace.yaml", ["lab/model-a"])  # the same id replaces the entry: fine
    assert set(load_registry([shared, replaced], vlc_plugins).models) == {"lab/model-a"}


def test_benchmarks_whose_pages_collide_are_refused(tmp_path, vlc_plugins):
    path = _write(tmp_path, "r.yaml", ["random"], ["shapes/a", "shapes_a"])
    with pytest.raises(RegistryError, match=r"r.yaml:5: benchmarks\[1\].id: .*benchmarks/shapes_a.html"):
        load_registry([path], vlc_plugins)


def test_download_names_that_collide_across_models_and_benchmarks_are_refused(tmp_path, vlc_plugins):
    path = _write(tmp_path, "r.yaml", ["a__b", "a"], ["c", "b__c"])
    with pytest.raises(RegistryError) as raised:
        load_registry([path], vlc_plugins)
    assert "downloads/scores/a__b__c.jsonl" in str(raised.value)
