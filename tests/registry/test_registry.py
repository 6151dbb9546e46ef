from __future__ import annotations

from pathlib import Path

import pytest

from vlc_harness.errors import RegistryError
from vlc_harness.models import RunOptions
from vlc_harness.registry import load_registry, parse_inline_benchmark, parse_inline_model

GOOD = """
models:
  - id: rand
    type: random
    params: {seed: 3}
    run: {batch_size: 8}
    meta: {family: baseline}
  - id: clip
    type: open_clip
    params: {arch: ViT-B-32, pretrained: openai}
benchmarks:
  - id: sc
    type: sugarcrepe
    params: {version: upstream-7511}
"""


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_valid_registry_loads_with_defaults(tmp_path, vlc_plugins):
    reg = load_registry([write(tmp_path, "r.yaml", GOOD)], vlc_plugins)
    assert set(reg.models) == {"rand", "clip"}
    assert reg.models["rand"].params.seed == 3
    assert reg.models["rand"].run.batch_size == 8
    assert reg.models["clip"].params_dict() == {
        "arch": "ViT-B-32",
        "force_quick_gelu": False,
        "init_seed": 0,
        "precision": "fp32",
        "pretrained": "openai",
    }
    assert reg.benchmarks["sc"].params.version == "upstream-7511"


@pytest.mark.parametrize(
    "text, expected",
    [
        ("models: {}", "r.yaml:1: models: expected a list of entries"),
        ("models:\n  - id: x\n    type: nope\n", "r.yaml:3: models[0].type: unknown model type 'nope'; known types:"),
        (
            "models:\n  - id: x\n    type: random\n    params: {seed: one}\n",
            "r.yaml:4: models[0].params.seed: expected an integer, got str 'one'",
        ),
        (
            "models:\n  - id: x\n    type: random\n    params: {sed: 1}\n",
            "r.yaml:4: models[0].params.sed: unknown key; known keys: seed",
        ),
        ("models:\n  - id: x\n    type: open_clip\n    params: {}\n", "models[0].params.arch: required key is missing"),
        (
            "models:\n  - id: x\n    type: random\n    run: {batch_size: -}\n",
            "models[0].run.batch_size: expected an integer",
        ),
        (
            "models:\n  - {id: x, type: random}\n  - {id: x, type: random}\n",
            "r.yaml:3: models[1].id: duplicate model id 'x' in the same file",
        ),
        (
            "benchmarks:\n  - id: b\n    type: sugarcrepe\n    params: {version: v9}\n",
            "benchmarks[0].params.version: expected one of 'paper-7512', 'upstream-7511', 'custom', got 'v9'",
        ),
        ("models:\n  - id: 'bad id'\n    type: random\n", "models[0].id: 'bad id' is not a valid id"),
        ("other: 1\n", "r.yaml:1: other: unknown top-level key"),
        ("models:\n  - id: x\n    type: random\n    colour: red\n", "r.yaml:4: models[0].colour: unknown key"),
        ("models: [\n", "r.yaml: not valid YAML"),
    ],
)
def test_malformed_registry_names_file_line_and_key(tmp_path, vlc_plugins, text, expected):
    with pytest.raises(RegistryError) as info:
        load_registry([write(tmp_path, "r.yaml", text)], vlc_plugins)
    assert expected in str(info.value)


def test_unknown_type_lists_known_types(tmp_path, vlc_plugins):
    with pytest.raises(RegistryError) as info:
        load_registry([write(tmp_path, "r.yaml", "models:\n  - {id: x, type: clipp}\n")], vlc_plugins)
    for known in ("open_clip", "precomputed", "random"):
        assert known in str(info.value)


def test_overlay_adds_and_replaces_entries(tmp_path, vlc_plugins):
    base = write(tmp_path, "base.yaml", GOOD)
    overlay = write(
        tmp_path,
        "private.yaml",
        "models:\n  - {id: rand, type: random, params: {seed: 9}}\n  - {id: mine, type: random}\n",
    )
    reg = load_registry([base, overlay], vlc_plugins)
    assert reg.models["rand"].params.seed == 9
    assert reg.models["rand"].run.batch_size == RunOptions().batch_size  # replaced whole, not merged
    assert set(reg.models) == {"rand", "clip", "mine"}
    assert reg.files == [str(base), str(overlay)]
    assert reg.digest() != load_registry([base], vlc_plugins).digest()


def test_missing_registry_file(tmp_path, vlc_plugins):
    with pytest.raises(RegistryError, match="does not exist"):
        load_registry([tmp_path / "nope.yaml"], vlc_plugins)


def test_inline_model_specs(tmp_path, vlc_plugins):
    entry = parse_inline_model("random:seed=4,run.batch_size=2", vlc_plugins)
    assert entry.type == "random" and entry.params.seed == 4 and entry.run.batch_size == 2
    config = tmp_path / "cfg.json"
    config.write_text('{"embed_dim": 8}')
    entry = parse_inline_model(f"open_clip:arch=@{config},pretrained=null", vlc_plugins)
    assert entry.params.arch == {"embed_dim": 8} and entry.params.pretrained is None
    entry = parse_inline_model("open_clip:{arch: ViT-B-32, pretrained: openai, precision: bf16}", vlc_plugins)
    assert entry.params.precision == "bf16"
    with pytest.raises(RegistryError, match="is not key=value"):
        parse_inline_model("random:seed", vlc_plugins)
    with pytest.raises(RegistryError, match="unknown model type"):
        parse_inline_model("nope:x=1", vlc_plugins)
    assert parse_inline_benchmark("sugarcrepe:version=custom", vlc_plugins).params.version == "custom"


def test_a_registry_text_is_parsed_once_and_each_read_gets_its_own_data():
    from vlc_harness.registry_document import _parsed, read_document

    text = "models:\n  - {id: a, type: random, params: {seed: 1}}\n"
    _parsed.cache_clear()
    first, err = read_document(text, "r.yaml")
    first["models"][0]["params"]["seed"] = 99  # a caller changing its data changes nobody else's
    again, _ = read_document(text, "r.yaml")
    assert again["models"][0]["params"]["seed"] == 1 and _parsed.cache_info().hits == 1
    assert str(err(["models", 0, "params"], "x")) == "r.yaml:2: models[0].params: x"
    changed, _ = read_document(text.replace("seed: 1", "seed: 2"), "r.yaml")
    assert changed["models"][0]["params"]["seed"] == 2
    for _ in range(2):  # an error is raised on every read, never kept
        with pytest.raises(RegistryError, match="r.yaml: not valid YAML"):
            read_document("models: [\n", "r.yaml")
