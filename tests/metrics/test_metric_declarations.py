"""A benchmark's metric declaration is checked when its plugin loads, naming the plugin and option."""

from __future__ import annotations

import textwrap

import pytest

from vlc_harness.errors import PluginError
from vlc_harness.plugins import load_plugins

HEADER = """
from vlc_harness import hookimpl
from vlc_harness.benchmarks import Benchmark
from vlc_harness.metrics import Macro, Micro, PairwiseAccuracy, PerCategory
from vlc_harness.metrics.auc import RocAuc
"""


def _plugin_dir(tmp_path, body: str, name: str):
    folder = tmp_path / "plugins"
    folder.mkdir()
    (folder / f"{name}.py").write_text(HEADER + textwrap.dedent(body))
    return folder


def test_an_unknown_aggregation_fails_the_plugin_load_naming_it(tmp_path, monkeypatch):
    body = """
    class Bad(Benchmark):
        type_name = "bad_aggregation"
        headline = "acc"
        metrics = (PairwiseAccuracy("acc", "test", ("per-category", "macor")),)

    @hookimpl
    def register_benchmarks(register):
        register(Bad)
    """
    monkeypatch.setenv("VLC_HARNESS_PLUGINS_DIR", str(_plugin_dir(tmp_path, body, "bad_aggregation")))
    with pytest.raises(PluginError, match=r"bad_aggregation.*unknown aggregation 'macor'"):
        load_plugins()


def test_a_tie_rule_the_family_does_not_support_fails_at_registration(tmp_path, monkeypatch):
    body = """
    class Bad(Benchmark):
        type_name = "bad_tie_rule"
        headline = "auc_macro"

        def metric_families(self):
            return (RocAuc("auc", "test", tie_rule="wrong"),)

    @hookimpl
    def register_benchmarks(register):
        register(Bad)
    """
    monkeypatch.setenv("VLC_HARNESS_PLUGINS_DIR", str(_plugin_dir(tmp_path, body, "bad_tie_rule")))
    with pytest.raises(PluginError, match=r"bad_tie_rule.*Bad.*tie rule 'wrong' is not supported by roc_auc"):
        load_plugins()


def test_a_headline_that_is_not_declared_fails_at_registration(tmp_path, monkeypatch):
    body = """
    class Bad(Benchmark):
        type_name = "bad_headline"
        headline = "accuracy"
        metrics = (PairwiseAccuracy("acc", "test"),)

    @hookimpl
    def register_benchmarks(register):
        register(Bad)
    """
    monkeypatch.setenv("VLC_HARNESS_PLUGINS_DIR", str(_plugin_dir(tmp_path, body, "bad_headline")))
    with pytest.raises(PluginError, match="headline 'accuracy' is not among the declared metrics"):
        load_plugins()


def test_every_built_in_declaration_yields_the_specs_it_computes(vlc_plugins):
    """Specs and values come from one declaration: every value a benchmark reports has a spec."""
    from pathlib import Path

    from vlc_harness.params import build

    for name in vlc_plugins.benchmarks.names():
        cls = vlc_plugins.benchmarks.get(name).cls
        bench = cls(build(cls.Params, {}), Path("."))
        families = bench.metric_families()
        assert families, f"{name} declares no metric family"
        ids = {s.id for s in bench.metric_specs()}
        assert bench.headline_metric() in ids
        assert all(f.identity() for f in families)
