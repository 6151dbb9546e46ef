"""The transformers gates name the first release of each interface our scorers call.

The gates (plugins/models/versions.py) were read from the published wheels' modelling files; these
tests hold them against the installed transformers, which is the pinned one (constraints.txt): the
interface the gate names is there, and a release below the gate makes the cell unavailable.
"""

from __future__ import annotations

import inspect

import pytest

from vlc_harness.errors import WeightsUnavailable
from vlc_harness.testing import require


@pytest.fixture(autouse=True)
def _transformers() -> None:
    require("transformers")


def test_qwen3_vl_text_model_takes_the_cache_argument_the_deepstack_runner_passes() -> None:
    from transformers.models.qwen3_vl.modeling_qwen3_vl import Qwen3VLTextModel

    assert "cache" in inspect.signature(Qwen3VLTextModel.forward).parameters


@pytest.mark.parametrize("module, cls", [("qwen2_vl", "Qwen2VLModel"), ("qwen2_5_vl", "Qwen2_5_VLModel")])
def test_m_rope_takes_the_token_types_our_scorer_passes(module: str, cls: str) -> None:
    import importlib

    model = getattr(importlib.import_module(f"transformers.models.{module}.modeling_{module}"), cls)
    assert "mm_token_type_ids" in inspect.signature(model.get_rope_index).parameters


@pytest.mark.parametrize(
    "model_type, below, gate",
    [("qwen3_vl", "5.23.0", "5.24.0"), ("qwen2_5_vl", "5.2.0", "5.3.0"), ("qwen2_vl", "5.2.0", "5.3.0")],
)
def test_a_release_below_the_gate_is_unavailable_naming_the_gate(
    monkeypatch: pytest.MonkeyPatch, model_type: str, below: str, gate: str
) -> None:
    from vlc_harness_builtins.models import versions

    monkeypatch.setattr(versions, "installed", lambda dist: below)
    with pytest.raises(WeightsUnavailable, match=f"transformers>={gate}"):
        versions.require_transformers_model(model_type)
    monkeypatch.setattr(versions, "installed", lambda dist: gate)
    versions.require_transformers_model(model_type)
