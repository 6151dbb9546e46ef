"""The scoring stack in the fingerprint (issue 39 item 1, issue 40 item 4): the public versions of the
distributions a type declares can change its scores, and a third-party type's own distribution.

Versions are simulated through package metadata the test controls: a ``NAME-VERSION.dist-info`` folder
put first on ``sys.path``, which :func:`importlib.metadata.version` finds before the installed one.
"""

from __future__ import annotations

import importlib
import json
import shutil
import sys
from pathlib import Path

import pytest

from vlc_harness.fingerprint import fingerprint_content, model_fingerprint
from vlc_harness.models import Identity
from vlc_harness.plugin_identity import is_builtin, plugin_record, source_digest, top_level_distributions
from vlc_harness.plugin_packages import PluginPackage
from vlc_harness.plugins import get_plugins
from vlc_harness.stack import (
    CONSTRAINTS_ENV,
    StackSource,
    model_stack,
    off_pin,
    off_pin_line,
    public_version,
    read_pins,
    stack_change,
)

REPO = Path(__file__).resolve().parents[2]
PINS = read_pins(REPO / "constraints.txt")


def fake_distribution(folder: Path, name: str, version: str, direct_url: dict | None = None) -> None:
    """Package metadata saying ``name`` ``version`` is installed (found first when ``folder`` leads sys.path)."""
    info = folder / f"{name.replace('-', '_')}-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
    if direct_url is not None:
        (info / "direct_url.json").write_text(json.dumps(direct_url))


def fingerprint(cls: type, source: StackSource) -> str:
    content = fingerprint_content(cls.type_name, {}, Identity("w", "float32", "p"), "1", model_stack(cls, source))
    return model_fingerprint(content)


def test_local_labels_are_dropped_so_cpu_and_cuda_wheels_agree():
    assert public_version("2.14.1+cu126") == public_version("2.14.1+cpu") == "2.14.1"
    assert public_version("5.24.0") == "5.24.0"


def test_a_builtin_type_holds_its_declared_distributions_and_no_plugin_record():
    plugins = get_plugins()
    hf = plugins.models.get("hf_contrastive").cls
    clip = plugins.models.get("open_clip").cls
    stack = model_stack(hf, StackSource.pinned())
    assert stack["packages"]["transformers"] == PINS["transformers"] and "plugin" not in stack
    assert "transformers" not in model_stack(clip, StackSource.pinned())["packages"]
    assert model_stack(clip, StackSource.pinned())["packages"]["open-clip-torch"] == PINS["open-clip-torch"]
    assert is_builtin(hf) and is_builtin(clip)


def test_another_installed_version_changes_the_fingerprint_and_is_off_pin(tmp_path, monkeypatch):
    """The issue's must-show: a different installed transformers (package metadata) changes the hf type's
    fingerprint, not open_clip's, and the run's off-pin line names installed and pinned."""
    plugins = get_plugins()
    hf, clip = plugins.models.get("hf_contrastive").cls, plugins.models.get("open_clip").cls
    monkeypatch.setenv(CONSTRAINTS_ENV, str(REPO / "constraints.txt"))
    before_hf, before_clip = fingerprint(hf, StackSource.installed()), fingerprint(clip, StackSource.installed())
    assert off_pin(["transformers"], StackSource.installed()) == []
    fake_distribution(tmp_path, "transformers", "5.25.0+cpu")
    monkeypatch.syspath_prepend(str(tmp_path))
    importlib.invalidate_caches()
    source = StackSource.installed()
    assert model_stack(hf, source)["packages"]["transformers"] == "5.25.0"
    assert fingerprint(hf, source) != before_hf and fingerprint(clip, source) == before_clip
    (deviation,) = off_pin(["transformers", "open_clip_torch"], source)
    line = off_pin_line([deviation], source.constraints)
    assert line.startswith("off-pin: installed score-changing versions differ from ") and "\n" not in line
    assert f"transformers 5.25.0 (pinned {PINS['transformers']})" in line
    old = model_stack(hf, StackSource.pinned())
    assert stack_change(old, model_stack(hf, source)) == f"transformers {PINS['transformers']} -> 5.25.0"
    # plan reads the pins, whatever is installed
    assert fingerprint(hf, StackSource.pinned()) == before_hf


def _plugin_package(tmp_path: Path, name: str = "acme_scorer") -> type:
    """A third party's model type from a package of its own (on sys.path, not vlc-harness's)."""
    pkg = tmp_path / "src" / name
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "model.py").write_text(
        "from vlc_harness.requires import Requires\n"
        "class Acme:\n    type_name = 'acme'\n    requires = Requires(scoring=('numpy',))\n"
    )
    (pkg / "helper.py").write_text("FACTOR = 1.0\n")
    sys.path.insert(0, str(tmp_path / "src"))
    try:
        return importlib.import_module(f"{name}.model").Acme
    finally:
        sys.path.remove(str(tmp_path / "src"))


@pytest.mark.slow  # over a second: the full suite's
def test_a_third_party_type_without_a_pin_is_identified_by_its_source(tmp_path):
    cls = _plugin_package(tmp_path)
    assert not is_builtin(cls)
    stack = model_stack(cls, StackSource.installed())
    assert stack["plugin"] == {"module": "acme_scorer", "source": source_digest(cls)}
    before = fingerprint(cls, StackSource.installed())
    helper = tmp_path / "src" / "acme_scorer" / "helper.py"
    helper.write_text("FACTOR = 20.0\n")  # a rebuilt plugin: any .py file of its package counts
    after = model_stack(cls, StackSource.installed())
    assert after["plugin"]["source"] != stack["plugin"]["source"]
    assert fingerprint(cls, StackSource.installed()) != before
    assert stack_change(stack, after) == "plugin source changed"


@pytest.mark.slow  # over a second: the full suite's
def test_a_third_party_type_installed_from_its_pin_is_identified_by_version_and_hashes(tmp_path, monkeypatch):
    cls = _plugin_package(tmp_path, "acme_pinned")
    site = tmp_path / "site"
    fake_distribution(site, "acme-pinned", "0.2.0")
    (next(site.glob("*.dist-info")) / "top_level.txt").write_text("acme_pinned\n")
    (next(site.glob("*.dist-info")) / "RECORD").write_text("acme_pinned/__init__.py,,\n")
    monkeypatch.syspath_prepend(str(site))
    importlib.invalidate_caches()
    hashes = ("sha256:" + "b" * 64, "sha256:" + "a" * 64)
    pin = PluginPackage("acme-pinned", "acme-pinned==0.2.0", hashes, models=("acme",))
    record = plugin_record(cls, {"acme-pinned": pin}, from_pins=False)
    assert record == {"distribution": "acme-pinned", "version": "0.2.0", "hashes": sorted(hashes)}
    assert plugin_record(cls, {"acme-pinned": pin}, from_pins=True) == record  # plan: the pin itself
    other = PluginPackage("acme-pinned", "acme-pinned==0.3.0", hashes, models=("acme",))
    assert plugin_record(cls, {"acme-pinned": other}, from_pins=True)["version"] == "0.3.0"
    installed_other = plugin_record(cls, {"acme-pinned": other}, from_pins=False)
    assert "source" in installed_other and installed_other["version"] == "0.2.0"  # not what the pin names


def test_an_editable_install_is_identified_by_its_source_even_at_the_pinned_version(tmp_path, monkeypatch):
    cls = _plugin_package(tmp_path, "acme_editable")
    site = tmp_path / "site"
    fake_distribution(site, "acme-editable", "0.2.0", {"url": "file:///src", "dir_info": {"editable": True}})
    (next(site.glob("*.dist-info")) / "top_level.txt").write_text("acme_editable\n")
    monkeypatch.syspath_prepend(str(site))
    importlib.invalidate_caches()
    pin = PluginPackage("acme-editable", "acme-editable==0.2.0", ("sha256:" + "a" * 64,), models=("acme",))
    record = plugin_record(cls, {"acme-editable": pin}, from_pins=False)
    assert record["source"].startswith("sha256:") and record["version"] == "0.2.0"


def test_the_distributions_of_top_level_names_are_read_again_when_one_is_installed(tmp_path, monkeypatch):
    """``top_level_distributions`` is read once, then again only when sys.path's metadata folders change:
    a distribution installed into a folder already on sys.path (same path, new ``*.dist-info``), then
    removed, is seen at once each time."""
    site = tmp_path / "site"
    site.mkdir()
    monkeypatch.syspath_prepend(str(site))
    assert top_level_distributions() is top_level_distributions()  # one read while nothing changes
    assert "acme_later" not in top_level_distributions()
    fake_distribution(site, "acme-later", "0.1.0")
    (next(site.glob("*.dist-info")) / "top_level.txt").write_text("acme_later\n")
    assert top_level_distributions()["acme_later"] == ("acme-later",)
    shutil.rmtree(next(site.glob("*.dist-info")))
    assert "acme_later" not in top_level_distributions()


def test_the_run_s_recorded_versions_are_read_again_when_one_is_installed(tmp_path, monkeypatch):
    """``provenance.package_versions`` (what every run records) follows the same key: a version of numpy
    installed into a folder already on sys.path is the one recorded next."""
    from vlc_harness.provenance import package_versions

    site = tmp_path / "site"
    site.mkdir()
    monkeypatch.syspath_prepend(str(site))
    assert package_versions()["numpy"] != "9.9.9"
    fake_distribution(site, "numpy", "9.9.9")
    importlib.invalidate_caches()  # importlib.metadata's own folder cache
    assert package_versions()["numpy"] == "9.9.9"


def test_own_packages_come_from_the_vlc_harness_distribution_alone(tmp_path, monkeypatch):
    """vlc-harness's own packages are what ``packages_distributions`` credits to it, read from its own metadata
    (no file list of every installed distribution: a third of a second in each ``plan`` and ``run``); a
    distribution whose name is another spelling of vlc-harness is not it."""
    import importlib.metadata

    from vlc_harness.plugin_identity import DISTRIBUTION, own_packages

    def mapped() -> frozenset[str]:
        found = importlib.metadata.packages_distributions()
        return frozenset({top for top, dists in found.items() if DISTRIBUTION in dists} | {"vlc_harness"})

    site = tmp_path / "site"
    site.mkdir()
    fake_distribution(site, "vlc_harness", "0.0.1")  # matched by distributions(name=), yet not named vlc-harness
    (next(site.glob("*.dist-info")) / "top_level.txt").write_text("acme_extra\n")
    monkeypatch.syspath_prepend(str(site))
    importlib.invalidate_caches()
    expected = mapped()
    assert {"vlc_harness", "vlc_harness_builtins", "vlc_leaderboard"} <= expected and "acme_extra" not in expected

    def every_file_list() -> None:
        raise AssertionError("own_packages read every distribution's file list")

    own_packages.cache_clear()
    monkeypatch.setattr(importlib.metadata, "packages_distributions", every_file_list)
    try:
        assert own_packages() == expected
    finally:
        own_packages.cache_clear()
