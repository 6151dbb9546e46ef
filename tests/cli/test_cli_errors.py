"""User errors are one line plus a hint, never a traceback."""

from __future__ import annotations

import subprocess
import sys

import pytest

pytestmark = pytest.mark.subprocess  # the installed script's own output: one line and a hint


def harness(*args: str, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "vlc_harness", *args], capture_output=True, text=True, timeout=120, cwd=cwd
    )


def test_unknown_model_id_lists_known_ids(tmp_path):
    reg = tmp_path / "r.yaml"
    reg.write_text("models:\n  - {id: alpha, type: random}\n  - {id: beta, type: random}\n")
    out = harness("run", "-m", "gamma", "--registry", str(reg), "--store", f"sqlite:///{tmp_path}/s.sqlite")
    assert out.returncode == 2
    assert "Error: unknown model id 'gamma'; known ids: alpha, beta" in out.stderr
    assert "Hint:" in out.stderr and "Traceback" not in out.stderr


def test_malformed_registry_names_the_key(tmp_path):
    reg = tmp_path / "r.yaml"
    reg.write_text("models:\n  - id: a\n    type: random\n    params: {seed: [1]}\n")
    out = harness("run", "--all", "--registry", str(reg))
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert f"{reg}:4: models[0].params.seed: expected an integer, got a list" in out.stderr


def test_nothing_selected_and_no_registry(tmp_path):
    out = harness("run", cwd=tmp_path)
    assert out.returncode == 2 and "nothing selected" in out.stderr
    out = harness("run", "--all", cwd=tmp_path)
    assert out.returncode == 2 and "no registry file" in out.stderr and "--registry" in out.stderr


def test_foreign_store_is_a_clear_error(tmp_path):
    bad = tmp_path / "notes.sqlite"
    bad.write_text("hello")
    out = harness("cache", "stats", "--store", f"sqlite:///{bad}")
    assert out.returncode == 2 and "is not a SQLite database" in out.stderr and "Traceback" not in out.stderr
    assert bad.read_text() == "hello"


def test_unknown_benchmark(tmp_path):
    out = harness("instances", "-b", "sugarcrep")
    assert out.returncode == 2 and "unknown benchmark 'sugarcrep' (did you mean sugarcrepe?); known: " in out.stderr
