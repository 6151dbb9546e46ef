"""The transformers gates name the first release of each interface our scorers call.

The gates (plugins/models/versions.py) were read from the published wheels' modelling files; these
tests hold them against the installed transformers, which is the pinned one (constraints.txt): the
interface the gate names is there, and a release below the gate makes the cell unavailable.
"""

from __future__ import annotations

import inspect
import re

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


def test_the_installed_auto_image_processor_reads_the_backend_keyword_pil_image_processor_passes() -> None:
    """Issue 39: under transformers 5.0-5.3 ``backend="pil"`` was dropped silently (torchvision resizing
    under a t2v_metrics protocol). Read from the installed code: the keyword is popped and resolved."""
    from transformers.models.auto import image_processing_auto

    assert "backend" in inspect.signature(image_processing_auto._resolve_backend).parameters
    assert 'kwargs.pop("backend", None)' in inspect.getsource(image_processing_auto.AutoImageProcessor.from_pretrained)


@pytest.mark.parametrize("model_type", ["llava_onevision", "siglip2", "internvl", "qwen2_vl", "qwen2_5_vl", "qwen3_vl"])
def test_the_installed_release_knows_every_gated_family(model_type: str) -> None:
    """``AutoModel`` and ``AutoConfig`` resolve a checkpoint by its ``model_type``: the installed mapping has it."""
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING_NAMES

    assert model_type in CONFIG_MAPPING_NAMES


def test_every_transformers_gate_cites_the_wheel_of_its_own_version() -> None:
    from vlc_harness_builtins.models import versions

    gates = {name: minimum for name, (_, minimum) in versions.TRANSFORMERS_REQUIREMENTS.items()}
    gates["pil_backend"] = versions.PIL_BACKEND[1]
    assert set(versions.GATE_SOURCES) == set(gates)
    for name, (wheel, where) in versions.GATE_SOURCES.items():
        assert wheel == f"transformers-{gates[name]}-py3-none-any.whl", name
        assert re.match(r"models/\w+/\w+\.py:\d+", where), (name, where)


@pytest.mark.parametrize("below", ["5.0.0", "5.3.0"])
def test_a_transformers_5_without_the_backend_keyword_makes_the_t2v_recipes_unavailable(
    monkeypatch: pytest.MonkeyPatch, below: str
) -> None:
    from vlc_harness_builtins.models import versions

    monkeypatch.setattr(versions, "installed", lambda dist: below)
    with pytest.raises(WeightsUnavailable, match=r"transformers>=5\.4\.0"):
        versions.require_pil_backend()
    for fine in ("4.57.1", "5.4.0"):  # 4.x takes use_fast=False; 5.4.0 reads backend=
        monkeypatch.setattr(versions, "installed", lambda dist, v=fine: v)
        versions.require_pil_backend()


def test_every_open_clip_gate_cites_the_wheels_of_its_own_versions() -> None:
    from vlc_harness_builtins.models import versions

    for _, _, what, requirements in versions.OPEN_CLIP_REQUIREMENTS:
        sources = versions.OPEN_CLIP_SOURCES[what]
        for dist, minimum in requirements.items():
            wheel = f"{dist}-{minimum}-py3-none-any.whl"
            assert any(wheel in source for source in sources), (what, wheel)
    assert set(versions.OPEN_CLIP_SOURCES) == {what for _, _, what, _ in versions.OPEN_CLIP_REQUIREMENTS}


def test_the_installed_open_clip_and_timm_know_every_gated_model() -> None:
    """Each open_clip gate holds on the installed release: a bundled config its pattern names (and the
    DFN5B tag), and the timm towers those configs build, read from the installed packages."""
    require("open_clip")
    import open_clip
    import timm

    from vlc_harness_builtins.models import versions

    names = versions.open_clip_model_names() or set()
    for pattern, tag_pattern, what, _ in versions.OPEN_CLIP_REQUIREMENTS:
        matching = sorted(n for n in names if re.search(pattern, n))
        assert matching, what
        if tag_pattern:
            tags = {t for name in matching for t in open_clip.list_pretrained_tags_by_model(name)}
            assert any(re.search(tag_pattern, t) for t in tags), what
    for tower in ("vit_giantopt_patch16_siglip_256", "vit_pe_core_base_patch16_224", "fastvit_mci3", "fastvit_mci4"):
        assert timm.list_models(tower) == [tower], tower
