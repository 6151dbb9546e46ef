"""A benchmark type provided by a package listed under ``plugins:`` but not installed: the entry
loads, and every cell of it is ``unavailable`` (``package_missing``, with the install line) in
``run``, ``plan``, ``ci pr-check``'s smoke step and ``data fetch``; the board leaves it out of the
index table saying why. A type that no listed package provides stays a registry error."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vlc_harness.ci.nightly import command
from vlc_harness.ci.nightly.fetch import fetch, pinned_problems
from vlc_harness.ci.nightly.steps import Step
from vlc_harness.ci.pr_check.context import Context
from vlc_harness.ci.pr_check.smoke import step_smoke
from vlc_harness.errors import RegistryError
from vlc_harness.exit_codes import ExitCode
from vlc_harness.reasons import Reason
from vlc_harness.registry import load_registry

SHA = "sha256:" + "cd" * 32
INSTALL = "install vlc-lab-bench==0.1.0 (`vlc-harness plugins install`)"
REASON = f"benchmark type 'lab_bench' comes from package vlc-lab-bench: {INSTALL}"
LAB = f"""plugins:
  - package: vlc-lab-bench
    pin: vlc-lab-bench==0.1.0
    hashes: [{SHA}]
    benchmarks: [lab_bench]
"""
REGISTRY = (
    LAB
    + "models:\n  - {id: rand, type: random}\n"
    + "benchmarks:\n  - {id: sc, type: sugarcrepe, params: {version: custom}}\n"
    + "  - {id: lab, type: lab_bench, params: {split: test}, references: none, meta: {display_name: Lab bench}}\n"
)


@pytest.fixture
def registry_file(tmp_path: Path) -> Path:
    path = tmp_path / "r.yaml"
    path.write_text(REGISTRY, encoding="utf-8")
    return path


def _cells(vlc_run) -> dict[tuple[str, str], object]:
    return {(c.model_id, c.benchmark_id): c for c in vlc_run.store().latest_cells(include_incomplete=True)}


def test_the_entry_loads_with_its_params_as_written_and_the_install_line(registry_file, vlc_plugins):
    registry = load_registry([registry_file], vlc_plugins)
    entry = registry.benchmarks["lab"]
    assert entry.unavailable == REASON
    assert entry.params_dict() == {"split": "test"} and entry.references == "none"
    assert not registry.benchmarks["sc"].unavailable
    assert len(registry.digest()) == 64


def test_a_benchmark_type_no_listed_package_provides_is_an_error_with_a_guess(tmp_path, vlc_plugins):
    path = tmp_path / "r.yaml"
    path.write_text(LAB + "benchmarks:\n  - {id: lab, type: lab-bench}\n", encoding="utf-8")
    with pytest.raises(RegistryError, match=r"r.yaml:7: benchmarks\[0\].type: unknown benchmark type 'lab-bench' "):
        load_registry([path], vlc_plugins)
    with pytest.raises(RegistryError, match=r"\(did you mean lab_bench\?\)") as typo:
        load_registry([path], vlc_plugins)
    # the package is listed: the fix is the entry's type, never listing the package again
    assert "the package vlc-lab-bench, listed under 'plugins:', provides 'lab_bench'; correct the entry's type" in str(
        typo.value
    )
    assert "list the package" not in str(typo.value)
    path.write_text("benchmarks:\n  - {id: lab, type: lab_bench}\n", encoding="utf-8")  # no package lists it
    with pytest.raises(RegistryError, match="unknown benchmark type 'lab_bench'.*list the package under 'plugins:'"):
        load_registry([path], vlc_plugins)


def test_run_records_its_cells_unavailable_and_fails_only_when_strict(registry_file, vlc_run, sample_root, tmp_path):
    summary = tmp_path / "summary.json"
    out = vlc_run("--registry", str(registry_file), "--all", "--summary", str(summary), data_root=sample_root)
    assert out.exit_code == 0, out.output
    assert f"unavailable rand x lab: dependency missing ({REASON})" in out.output
    cells = _cells(vlc_run)
    assert cells[("rand", "sc")].status == "ok"
    lab = cells[("rand", "lab")]
    assert (lab.status, lab.reason_code, lab.error) == ("unavailable", Reason.PACKAGE_MISSING, REASON)
    assert lab.benchmark_type == "lab_bench"
    (group,) = json.loads(summary.read_text())["reasons"]
    assert group["code"] == Reason.PACKAGE_MISSING and group["status"] == "unavailable"
    strict = vlc_run("--registry", str(registry_file), "--all", "--strict", data_root=sample_root)
    assert strict.exit_code == 1, strict.output


def test_plan_shows_its_cells_unavailable_with_the_install_line(registry_file, vlc_cli, sample_root, tmp_path):
    out = vlc_cli("plan", "--registry", str(registry_file), "--all", "--data-root", str(sample_root),
                  "--store", f"sqlite:///{tmp_path / 's.sqlite'}", "--format", "json")  # fmt: skip
    assert out.exit_code == 0, out.output
    plan = json.loads(out.stdout)
    cells = {c["benchmark"]: c for c in plan["cells"]}
    assert cells["lab"]["status"] == "unavailable" and cells["lab"]["reason"] == REASON
    assert cells["sc"]["status"] == "compute"
    assert {b["id"]: b for b in plan["benchmarks"]}["lab"]["unavailable"] == REASON


def test_data_fetch_skips_it_saying_why_and_list_names_it(registry_file, vlc_cli, sample_root):
    out = vlc_cli("data", "fetch", "--registry", str(registry_file), "--data-root", str(sample_root), "--no-progress")
    assert out.exit_code == 0, out.output
    assert f"lab: skipped: {REASON}" in out.output.splitlines()
    out = vlc_cli("list", "benchmarks", "--registry", str(registry_file), "--format", "json")
    assert out.exit_code == 0, out.output
    rows = {r["id"]: r for r in json.loads(out.stdout)}
    assert rows["lab"]["version"] == "unavailable" and rows["lab"]["citation"] == REASON


def test_the_nightly_reports_it_and_checks_no_data_files_for_it(registry_file, vlc_plugins, sample_root):
    registry = load_registry([registry_file], vlc_plugins)
    assert "lab" not in pinned_problems(registry, sample_root)
    step = fetch(registry, ["--registry", str(registry_file), "--data-root", str(sample_root)], sample_root)
    assert f"not fetched (its plugin package is not installed, reported): lab: skipped: {REASON}" in step.lines


def test_the_smoke_step_fails_for_an_added_benchmark_whose_package_is_missing(registry_file, monkeypatch, tmp_path):
    cells = [
        {"model": "rand", "benchmark": "lab", "change": "added", "why": ["new benchmark"]},
        {"model": "rand", "benchmark": "sc", "change": "changed", "why": ["instances"]},
    ]
    plan = {"models": [{"id": "rand", "fingerprint": "f" * 16}], "diff": {"cells": cells, "removed": []}}
    ctx = Context(tmp_path, "base", registry_file, tmp_path / "data", tmp_path)
    monkeypatch.setattr(ctx, "plan", lambda: plan)
    section = step_smoke(ctx)
    assert section.verdict == "failed"
    assert f"| benchmark `lab` | - | not run | {REASON} |" in section.markdown()


def test_the_board_leaves_it_out_of_the_table_and_says_why(registry_file, vlc_run, sample_root, tmp_path):
    assert vlc_run("--registry", str(registry_file), "--all", data_root=sample_root).exit_code == 0
    site = tmp_path / "site"
    out = vlc_run.cli("render", "--registry", str(registry_file), "--out", str(site))
    assert out.exit_code == 0, out.output
    index = (site / "index.html").read_text()
    why = (
        "Not evaluated: its benchmark type lab_bench comes from the plugin package vlc-lab-bench "
        "(vlc-lab-bench==0.1.0), which was not installed on the machine that built this board."
    )
    assert f'Not in the table: <a href="benchmarks/lab.html">lab</a> ({why})' in index
    assert 'colspan="0"' not in index and "on 1 benchmark." in index
    page = (site / "benchmarks" / "lab.html").read_text()
    assert why in page and "No published results yet" in page
    assert "status-unavailable" in page  # where each model stands on it


def test_the_nightly_reads_the_registry_again_after_its_install(registry_file, monkeypatch, tmp_path, vlc_cli):
    out = vlc_cli("ci", "nightly", "--registry", str(registry_file), "--print-install")
    assert out.exit_code == 0
    printed = out.stdout.splitlines()
    assert printed[-1].endswith(f"-m vlc_harness plugins install --registry {registry_file}")

    def installed(registry, enabled, lock):  # the lock "installed"
        return Step("install")

    def plugged(registry, enabled, path):  # the pin "installed", yet no plugin registers lab_bench
        monkeypatch.setattr("vlc_harness.plugin_packages.is_installed", lambda package: True)
        return Step("plugins")

    monkeypatch.setattr(command, "install", installed)
    monkeypatch.setattr(command, "plugins", plugged)
    summary, markdown = tmp_path / "night.json", tmp_path / "night.md"
    argv = ["--registry", str(registry_file), "--summary", str(summary), "--markdown", str(markdown)]
    code = vlc_cli("ci", "nightly", *argv).exit_code
    night = json.loads(summary.read_text())
    steps = night["steps"]
    assert code == ExitCode.STEP_FAILED and list(steps) == ["registry", "install", "plugins"]
    assert night["stopped_by"] == "plugins" and night["published"] is False
    lines = steps["plugins"]["lines"]
    assert any("package vlc-lab-bench is installed but registers no benchmark type 'lab_bench'" in x for x in lines)
