"""identify() offline: every file the model will read must be in the local Hugging Face cache, else
the cells are ``unavailable`` naming what to download (never a failure in ``load()``).

The caches here are built by hand in the hub's layout (``models--org--name/refs/main`` and
``snapshots/<commit>/<file>``), with placeholder bytes: identification reads names, not weights.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vlc_harness.errors import WeightsUnavailable

COMMIT = "0123456789abcdef0123456789abcdef01234567"


@pytest.fixture
def hub(tmp_path, monkeypatch):
    """An empty local Hugging Face cache; ``hub(repo, *files)`` puts files in it at :data:`COMMIT`."""
    import huggingface_hub.constants

    cache = tmp_path / "hub"
    monkeypatch.setenv("HF_HUB_CACHE", str(cache))
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_CACHE", str(cache))

    def put(repo: str, *files: str, content: dict[str, str] | None = None) -> Path:
        folder = cache / f"models--{repo.replace('/', '--')}"
        (folder / "refs").mkdir(parents=True, exist_ok=True)
        (folder / "refs" / "main").write_text(COMMIT)
        snapshot = folder / "snapshots" / COMMIT
        for name in files:
            (snapshot / name).parent.mkdir(parents=True, exist_ok=True)
            (snapshot / name).write_text((content or {}).get(name, "placeholder"))
        return snapshot

    return put


def test_a_cached_config_alone_does_not_identify_a_checkpoint(hub):
    from vlc_harness.kit.weights import checkpoint_identity

    hub("org/model", "config.json")
    with pytest.raises(WeightsUnavailable, match=r"org/model \(model\.safetensors or .*\) is not in the local"):
        checkpoint_identity("org/model")
    hub("org/other", "model.safetensors")
    with pytest.raises(WeightsUnavailable, match=r"org/other@0123456789ab .* lacks config\.json"):
        checkpoint_identity("org/other")
    hub("org/other", "config.json")
    assert checkpoint_identity("org/other") == f"hf:org/other@{COMMIT}"


def test_every_shard_of_a_cached_index_must_be_there(hub):
    from vlc_harness.kit.weights import checkpoint_identity

    index = {"weight_map": {"a": "model-00001-of-00002.safetensors", "b": "model-00002-of-00002.safetensors"}}
    files = ("config.json", "model.safetensors.index.json", "model-00001-of-00002.safetensors")
    hub("org/sharded", *files, content={"model.safetensors.index.json": json.dumps(index)})
    with pytest.raises(WeightsUnavailable, match="lacks model-00002-of-00002.safetensors"):
        checkpoint_identity("org/sharded")
    hub("org/sharded", "model-00002-of-00002.safetensors")
    assert checkpoint_identity("org/sharded") == f"hf:org/sharded@{COMMIT}"


def test_a_pinned_commit_offline_must_be_cached(hub):
    from vlc_harness.kit.weights import checkpoint_identity

    other = "f" * 40
    with pytest.raises(WeightsUnavailable, match="not in the local Hugging Face cache and HF_HUB_OFFLINE is set"):
        checkpoint_identity("org/model", revision=other)
    hub("org/model", "config.json", "model.safetensors")
    assert checkpoint_identity("org/model", revision=COMMIT) == f"hf:org/model@{COMMIT}"


def test_a_file_in_a_subfolder_is_identified_by_its_snapshot(hub):
    from vlc_harness.kit.weights import hub_identity

    hub("org/ckpts", "runs/epoch_5.pt")
    assert hub_identity("org/ckpts", ["runs/epoch_5.pt"]) == f"hf:org/ckpts@{COMMIT}"


def _open_clip(arch: str, tag: str):
    from vlc_harness.params import build
    from vlc_harness.testing import require
    from vlc_harness_builtins.models.openclip import OpenClip

    require("open_clip")
    return OpenClip(build(OpenClip.Params, {"arch": arch, "pretrained": tag}), OpenClip.Run())


def _tag_repo(arch: str, tag: str) -> str:
    import open_clip

    return open_clip.get_pretrained_cfg(arch, tag)["hf_hub"].rstrip("/")


def test_metaclip2_worldwide_needs_the_xlm_v_tokenizer(hub):
    arch, tag = "ViT-H-14-worldwide-quickgelu", "metaclip2_worldwide"
    model = _open_clip(arch, tag)
    hub(_tag_repo(arch, tag), "open_clip_model.safetensors")
    with pytest.raises(WeightsUnavailable, match=r"needs the tokenizer facebook/xlm-v-base: .*not in the local"):
        model.identify()
    hub("facebook/xlm-v-base", "tokenizer.json")
    with pytest.raises(WeightsUnavailable, match=r"facebook/xlm-v-base.* lacks config\.json"):
        model.identify()
    hub("facebook/xlm-v-base", "config.json")
    assert model.identify().weights == f"hf:{_tag_repo(arch, tag)}@{COMMIT}"


def test_a_transformers_text_tower_needs_its_config(hub):
    arch, tag = "roberta-ViT-B-32", "laion2b_s12b_b32k"
    model = _open_clip(arch, tag)
    hub(_tag_repo(arch, tag), "open_clip_model.safetensors")
    with pytest.raises(WeightsUnavailable, match="needs the text tower config roberta-base"):
        model.identify()
    hub("roberta-base", "config.json", "vocab.json", "merges.txt")
    assert model.identify().weights.startswith("hf:laion/")


def test_a_missing_tokenizer_makes_the_cell_unavailable(hub, vlc_run, sample_root):
    from vlc_harness.testing import require

    require("open_clip")
    arch, tag = "ViT-H-14-worldwide-quickgelu", "metaclip2_worldwide"
    hub(_tag_repo(arch, tag), "open_clip_model.safetensors")
    out = vlc_run(
        "-m", f"open_clip:arch={arch},pretrained={tag}", "-b", "sugarcrepe:version=custom", data_root=sample_root
    )
    assert out.exit_code == 3, out.output  # its one cell is unavailable: nothing computed
    (cell,) = vlc_run.store().latest_cells()
    assert cell.status == "unavailable" and "facebook/xlm-v-base" in cell.error
