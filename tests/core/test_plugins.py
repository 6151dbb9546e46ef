from __future__ import annotations

import json
import re
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

from vlc_harness import hookimpl, hookspecs
from vlc_harness.errors import PluginError
from vlc_harness.models import Identity, TextOnlyModel
from vlc_harness.plugins import PluginWarning, get_plugins, load_plugins

DOCS = Path(__file__).resolve().parents[2] / "docs" / "plugin_hooks.md"


def test_every_hookspec_is_documented_with_its_signature(vlc_plugins):
    text = DOCS.read_text()
    specs = [name for name in dir(vlc_plugins.pm.hook) if not name.startswith("_")]
    assert set(specs) == {
        "register_models",
        "register_benchmarks",
        "register_metric_families",
        "register_commands",
        "conformance_example",
    }
    for name in specs:
        caller = getattr(vlc_plugins.pm.hook, name)
        assert f"## {name}({', '.join(caller.spec.argnames)})" in text
        assert (getattr(hookspecs, name).__doc__ or "").strip(), f"hookspec {name} has no docstring"


def test_builtins_register_through_the_entry_point(vlc_plugins):
    names = {info.name for info in vlc_plugins.info()}
    assert {
        "vlc_harness_builtins.models.openclip",
        "vlc_harness_builtins.models.random_baseline",
        "vlc_harness_builtins.benchmarks.sugarcrepe",
        "vlc_leaderboard.show",
    } <= names
    assert vlc_plugins.models.entries["open_clip"].plugin == "vlc_harness_builtins.models.openclip"


class Duplicate(TextOnlyModel):
    """Claims the name of the random baseline."""

    type_name = "random"

    def identify(self):
        return Identity("none", "fp64", "x")


class DuplicatePlugin:
    @hookimpl
    def register_models(self, register):
        register(Duplicate)


def test_duplicate_type_names_both_plugins(vlc_plugins):
    vlc_plugins.pm.register(DuplicatePlugin(), name="dupe-plugin")
    try:
        with pytest.raises(PluginError) as info:
            vlc_plugins.rebuild()
        message = str(info.value)
        assert "'random' is registered twice" in message
        assert "vlc_harness_builtins.models.random_baseline" in message and "dupe-plugin" in message
    finally:
        vlc_plugins.pm.unregister(name="dupe-plugin")
        vlc_plugins.rebuild()


def test_misspelled_hook_is_reported_once_and_the_other_plugins_keep_working(tmp_path, monkeypatch):
    (tmp_path / "typo.py").write_text(
        "from vlc_harness import hookimpl\n\n@hookimpl\ndef register_model(register):\n    pass\n"
    )
    monkeypatch.setenv("VLC_HARNESS_PLUGINS_DIR", str(tmp_path))
    monkeypatch.setattr("vlc_harness.plugins._WARNED", set())
    with pytest.warns(PluginWarning) as caught:
        plugins = load_plugins()
    (warning,) = [w for w in caught if "register_model" in str(w.message)]
    message = str(warning.message)
    assert "vlc_harness_local_plugins.typo" in message and "did you mean register_models?" in message
    assert "random" in plugins.models.entries  # every other plugin loaded
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        again = load_plugins()  # reported once: no second warning
    assert "random" in again.models.entries


def test_plugins_dir_allow_and_block_lists(tmp_path, monkeypatch):
    (tmp_path / "extra.py").write_text(
        "from vlc_harness import hookimpl\n"
        "from vlc_harness.models import Identity, TextOnlyModel\n\n"
        "class Extra(TextOnlyModel):\n"
        "    '''A plugin-dir model.'''\n"
        "    type_name = 'extra'\n\n"
        "@hookimpl\n"
        "def register_models(register):\n"
        "    register(Extra)\n"
    )
    monkeypatch.setenv("VLC_HARNESS_PLUGINS_DIR", str(tmp_path))
    assert "extra" in load_plugins().models.entries
    monkeypatch.setenv(
        "VLC_HARNESS_BLOCK_PLUGINS", "vlc_harness_local_plugins.extra,vlc_harness_builtins.models.openclip"
    )
    blocked = load_plugins()
    assert "extra" not in blocked.models.entries and "open_clip" not in blocked.models.entries
    assert "random" in blocked.models.entries
    monkeypatch.delenv("VLC_HARNESS_BLOCK_PLUGINS")
    monkeypatch.setenv("VLC_HARNESS_LOAD_PLUGINS", "vlc_harness_builtins.models.random_baseline")
    allowed = load_plugins()
    assert set(allowed.models.entries) == {"random"} and not allowed.benchmarks.entries
    monkeypatch.setenv("VLC_HARNESS_LOAD_PLUGINS", "builtin")
    assert {"open_clip", "random", "precomputed"} <= set(load_plugins().models.entries)


def test_plugins_command_lists_names_versions_and_types(vlc_cli):
    out = vlc_cli("plugins").output
    line = next(x for x in out.splitlines() if x.startswith("vlc_harness_builtins.models.openclip"))
    assert re.search(r"\d+\.\d+", line) and line.endswith("models: open_clip")
    line = next(x for x in out.splitlines() if x.startswith("vlc_harness_builtins.benchmarks.aro_order "))
    assert line.endswith("benchmarks: aro_coco_order, aro_flickr30k_order")
    assert any(x.startswith("vlc_leaderboard.") and x.endswith("commands") for x in out.splitlines())
    (info,) = [i for i in json.loads(vlc_cli("plugins", "--format", "json").stdout) if i["models"] == ["random"]]
    assert info["hooks"] == ["register_models"] and info["benchmarks"] == []


@pytest.mark.subprocess
def test_listing_plugins_imports_no_heavy_framework():
    code = (
        "import sys\nfrom vlc_harness.cli import build_cli\nfrom click.testing import CliRunner\n"
        "r = CliRunner().invoke(build_cli(), ['plugins'])\nassert r.exit_code == 0, r.output\n"
        "print(','.join(m for m in ('torch', 'open_clip', 'transformers') if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == ""


NO_OFFLINE_EXAMPLE = {"t2v_metrics": "runs the t2v_metrics package, which downloads its models by name"}


def test_every_builtin_type_offers_an_offline_conformance_example(tmp_path):
    from vlc_harness.testing.examples import example_for

    plugins = get_plugins()
    checked = 0
    for kind, registrar in (("model", plugins.models), ("benchmark", plugins.benchmarks)):
        for name, reg in registrar.entries.items():
            if not reg.plugin.startswith("vlc_harness_builtins.") or name in NO_OFFLINE_EXAMPLE:
                continue
            folder = tmp_path / kind / name
            folder.mkdir(parents=True)
            assert example_for(reg.cls, folder) is not None, name
            checked += 1
    assert checked >= 30, f"only {checked} built-in types were checked"  # 20 model + 16 benchmark types today


# -- metric families --------------------------------------------------------------------------


def test_the_core_families_register_whatever_the_allow_list(monkeypatch):
    from vlc_harness.metrics.families import CORE_FAMILIES

    monkeypatch.setenv("VLC_HARNESS_LOAD_PLUGINS", "vlc_harness_builtins.models.random_baseline")
    allowed = load_plugins()
    assert {name: r.cls for name, r in allowed.families.entries.items()} == {c.name: c for c in CORE_FAMILIES}
    assert {r.plugin for r in allowed.families.entries.values()} == {"vlc_harness.metrics.families"}


def test_a_family_that_claims_a_core_name_names_both_plugins(vlc_plugins):
    from vlc_harness.metrics.pairwise import PairwiseAccuracy

    class Mine(PairwiseAccuracy):
        """Inherits the core family's name."""

    class Claims:
        @hookimpl
        def register_metric_families(self, register):
            register(Mine)

    vlc_plugins.pm.register(Claims(), name="claims-a-name")
    try:
        with pytest.raises(PluginError) as info:
            vlc_plugins.rebuild()
        message = str(info.value)
        assert "'pairwise_accuracy' is registered twice" in message
        assert "vlc_harness.metrics.families" in message and "claims-a-name" in message
    finally:
        vlc_plugins.pm.unregister(name="claims-a-name")
        vlc_plugins.rebuild()


@pytest.mark.parametrize("registered, why", [(TextOnlyModel, "not a subclass of"), ("family", "has no name")])
def test_only_named_family_classes_register(vlc_registered, registered, why):
    from vlc_harness.metrics.family import Family

    class Plugin:
        @hookimpl
        def register_metric_families(self, register):
            register(Family if registered == "family" else registered)

    with pytest.raises(PluginError, match=why), vlc_registered(Plugin()):
        pass


def test_plugins_lists_the_families_each_plugin_registers(vlc_cli, vlc_plugins):
    listed = json.loads(vlc_cli("plugins", "--format", "json").stdout)
    (core,) = [p for p in listed if p["name"] == "vlc_harness.metrics.families"]
    assert "pairwise_accuracy" in core["families"] and core["hooks"] == ["register_metric_families"]
    assert all(p["families"] == [] for p in listed if p["name"] != "vlc_harness.metrics.families")
    (info,) = [i for i in vlc_plugins.info() if i.name == "vlc_harness.metrics.families"]
    assert info.summary().startswith("metric families: all_correct, hard_positive, ")
    (sugarcrepe,) = [i for i in vlc_plugins.info() if i.name == "vlc_harness_builtins.benchmarks.sugarcrepe"]
    assert sugarcrepe.summary() == "benchmarks: sugarcrepe"
    table = vlc_cli("plugins").output.splitlines()
    (row,) = [line for line in table if line.startswith("vlc_harness.metrics.families ")]
    assert row.endswith(info.summary())


def _family_plugin(*families):
    class Plugin:
        @hookimpl
        def register_metric_families(self, register):
            for family in families:
                register(family)

    return Plugin()


def test_the_family_conformance_checks_fail_on_a_broken_family(vlc_registered, tmp_path):
    import dataclasses

    from vlc_harness.metrics.family import FamilyExample
    from vlc_harness.metrics.pairwise import PairwiseAccuracy
    from vlc_harness.testing.family_conformance import (
        test_family_abstention,
        test_family_example,
        test_family_metadata,
    )
    from vlc_harness.testing.family_examples import one_image

    class Sound(PairwiseAccuracy):
        """Pairwise accuracy under another name: passes every check."""

        name = "sound"

        @classmethod
        def conformance_example(cls, tmp_path):
            return FamilyExample((cls("acc", "gold beats the others"),), one_image(3, {"positive": 0}))

    class AbstainWins(Sound):
        """An abstention counts as right."""

        name = "abstain_wins"

        def columns(self, outcomes):
            return [dataclasses.replace(c, abstention="counts") for c in super().columns(outcomes)]

    class Noisy(Sound):
        """Credits that change from one call to the next."""

        name = "noisy"

        def columns(self, outcomes):
            noise = np.random.default_rng().random(len(outcomes))
            return [dataclasses.replace(c, credit=noise) for c in super().columns(outcomes)]

    class NoExample(PairwiseAccuracy):
        """No conformance example."""

        name = "no_example"

    class Undocumented(Sound):
        name = "Undocumented"

    with vlc_registered(_family_plugin(Sound, AbstainWins, Noisy, NoExample, Undocumented)):
        test_family_metadata("sound")
        test_family_example("sound", tmp_path)
        test_family_abstention("sound", tmp_path)
        with pytest.raises(AssertionError, match="declining beats"):
            test_family_abstention("abstain_wins", tmp_path)
        with pytest.raises(AssertionError, match="credit differs on the same outcomes"):
            test_family_example("noisy", tmp_path)
        with pytest.raises(AssertionError, match="offers no conformance example"):
            test_family_example("no_example", tmp_path)
        with pytest.raises(AssertionError, match="needs a docstring"):
            test_family_metadata("Undocumented")
