from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from vlc_harness import hookimpl, hookspecs
from vlc_harness.errors import PluginError
from vlc_harness.models import Identity, TextOnlyModel
from vlc_harness.plugins import get_plugins, load_plugins

DOCS = Path(__file__).resolve().parents[2] / "docs" / "plugin_hooks.md"


def test_every_hookspec_is_documented_with_its_signature(vlc_plugins):
    text = DOCS.read_text()
    specs = [name for name in dir(vlc_plugins.pm.hook) if not name.startswith("_")]
    assert set(specs) == {"register_models", "register_benchmarks", "register_commands", "conformance_example"}
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


def test_misspelled_hook_fails_check_pending(tmp_path, monkeypatch):
    (tmp_path / "typo.py").write_text(
        "from vlc_harness import hookimpl\n\n@hookimpl\ndef register_model(register):\n    pass\n"
    )
    monkeypatch.setenv("VLC_HARNESS_PLUGINS_DIR", str(tmp_path))
    with pytest.raises(PluginError, match="register_model"):
        load_plugins()


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
    line = next(x for x in out.splitlines() if x.startswith("vlc_harness_builtins.benchmarks.aro "))
    assert "benchmarks: aro_coco_order, aro_flickr30k_order" in line
    assert any(x.startswith("vlc_leaderboard.") and x.endswith("commands") for x in out.splitlines())
    (info,) = [i for i in json.loads(vlc_cli("plugins", "--format", "json").output) if i["models"] == ["random"]]
    assert info["hooks"] == ["register_models"] and info["benchmarks"] == []


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
