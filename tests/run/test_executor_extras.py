"""An executor whose extra is not installed (``--executor ray`` without Ray) is refused with one line that
names the extra, before any cell runs, not with an ImportError's traceback."""

from __future__ import annotations

import sys

import pytest

from tests.registries import RANDOM_ON_TINY_SHAPES
from vlc_harness.config import EXECUTORS
from vlc_harness.errors import UserError
from vlc_harness.exit_codes import ExitCode


def test_ray_missing_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # what `import ray` meets where the extra is not installed
    from vlc_harness.run.ray_actor import connect

    with pytest.raises(UserError, match=r"pip install 'vlc-harness\[ray\]'"):
        connect(None, None)
    assert EXECUTORS["ray"] == "ray"


def test_run_with_ray_missing_fails_in_one_line(monkeypatch, tmp_path, capsys):
    from tests.registry.test_registry_paths import vlc_main

    monkeypatch.setitem(sys.modules, "ray", None)
    registry = tmp_path / "registry.yaml"
    registry.write_text(RANDOM_ON_TINY_SHAPES)
    store = f"sqlite:///{tmp_path}/s.sqlite"
    code, output = vlc_main(capsys, "run", "--all", "--executor", "ray", "--registry", str(registry), "--store", store)
    assert code == ExitCode.USAGE
    assert "--executor ray needs Ray" in output and "vlc-harness[ray]" in output
    assert "Traceback" not in output
