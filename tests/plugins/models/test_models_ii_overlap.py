"""Training-data overlap as data: the pool vocabulary, the overlap table, the registry's
``meta.trained_on``, benchmarks' ``image_pools`` and the board's per-cell marks."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from vlc_harness.overlap import POOLS, SHARED, UNDISCLOSED, entry_overlap, overlap, overlap_table, shared_reason

REPO = Path(__file__).resolve().parents[3]


def test_coco_2017_val_overlaps_both_2014_pools_and_not_2017_train():
    assert shared_reason("coco-val2017", "coco-train2014")
    assert shared_reason("coco-val2017", "coco-val2014")
    assert shared_reason("coco-val2017", "coco-train2017") is None
    # the Karpathy train split holds all of train2014, so it shares val2017's train2014 images
    assert shared_reason("coco-karpathy-train", "coco-val2017")
    # ARO COCO-Order's Karpathy test images: in val2014, so in train2017 too, never in Karpathy train
    assert shared_reason("coco-karpathy-test", "coco-val2014") == "coco-karpathy-test is part of coco-val2014"
    assert shared_reason("coco-karpathy-test", "coco-train2017")
    assert shared_reason("coco-karpathy-test", "coco-karpathy-train") is None


def test_the_table_is_symmetric_and_names_only_known_pools():
    table = overlap_table()
    for a, b in table:
        assert (b, a) in table
    for pair in SHARED:
        assert pair <= set(POOLS)
    for name, pool in POOLS.items():
        assert all(parent in POOLS for parent in pool.part_of), name
    assert ("laion-2b", "coco-val2017") not in table  # web crawls are not claimed to overlap


def test_marks_say_which_pools_overlap_and_why():
    mark = overlap(["wit-400m", "coco-karpathy-train"], ["coco-val2017"])
    assert mark.marked and mark.status == "overlap"
    assert [(m, b) for m, b, _ in mark.pairs] == [("coco-karpathy-train", "coco-val2017")]
    assert "coco-val2017" in mark.describe()
    assert overlap(["webli"], ["coco-val2017"]).status == "none"
    assert overlap([UNDISCLOSED], ["coco-val2017"]).status == "unknown"
    assert overlap([UNDISCLOSED, "vg"], ["vg"]).status == "overlap"
    with pytest.raises(ValueError, match="unknown image pool 'coco'"):
        overlap(["coco"], ["coco-val2017"])
    assert entry_overlap({"display_name": "x"}, ["coco-val2017"]) is None  # nothing declared
    assert entry_overlap({"trained_on": ["vg"]}, ()) is None
    with pytest.raises(ValueError, match="list of image pools"):
        entry_overlap({"trained_on": "vg"}, ["vg"])


def test_every_builtin_benchmark_declares_known_image_pools(vlc_plugins):
    for name, reg in vlc_plugins.benchmarks.entries.items():
        if not reg.plugin.startswith("plugins."):
            continue
        for pool in reg.cls.image_pools:
            assert pool in POOLS, (name, pool)
    pools = {name: reg.cls.image_pools for name, reg in vlc_plugins.benchmarks.entries.items()}
    assert pools["sugarcrepe"] == ("coco-val2017",)
    assert "coco-val2017" in pools["bivlc"]
    assert pools["aro_coco_order"] == ("coco-karpathy-test",)


def test_registry_model_entries_use_the_vocabulary(vlc_plugins):
    data = yaml.safe_load((REPO / "registry.yaml").read_text())
    seen = 0
    for entry in data["models"]:
        meta = entry.get("meta") or {}
        cls = vlc_plugins.models.entries[entry["type"]].cls
        if cls.image_blind or entry["type"] == "random":
            assert "trained_on" not in meta, entry["id"]  # image-blind models see no images
            continue
        assert isinstance(meta.get("trained_on"), list) and meta["trained_on"], f"{entry['id']} lacks trained_on"
        for pool in meta["trained_on"]:
            assert pool in POOLS or pool == UNDISCLOSED, (entry["id"], pool)
        seen += 1
    assert seen >= 40


def test_compositionality_tuned_coco_models_are_marked_on_sugarcrepe():
    data = yaml.safe_load((REPO / "registry.yaml").read_text())
    meta = {e["id"]: e.get("meta") or {} for e in data["models"]}
    assert entry_overlap(meta["negclip-vit-b-32"], ["coco-val2017"]).marked
    assert entry_overlap(meta["blip-itm-base-coco"], ["coco-val2017"]).marked
    assert not entry_overlap(meta["openai-vit-b-32"], ["coco-val2017"]).marked
    assert not entry_overlap(meta["fsc-clip-cc3m-vit-b-32"], ["coco-val2017"]).marked
    assert entry_overlap(meta["vqascore-qwen2-vl-7b"], ["coco-val2017"]).status == "unknown"
    # LLaVA-1.5's COCO is train2017: no SugarCrepe images, but ARO COCO-Order's Karpathy test ones
    assert not entry_overlap(meta["vqascore-llava-1.5-7b"], ["coco-val2017"]).marked
    assert entry_overlap(meta["vqascore-llava-1.5-7b"], ["coco-karpathy-test"]).marked


def test_a_test_board_carries_the_overlap_marks(tmp_path, sample_root, vlc_run, vlc_plugins):
    from vlc_harness.registry import load_registry
    from vlc_leaderboard.board import build_board

    registry = tmp_path / "grid.yaml"
    registry.write_text(
        "models:\n"
        "  - {id: coco-tuned, type: random, params: {seed: 1}, "
        "meta: {display_name: 'COCO-tuned', trained_on: [wit-400m, coco-karpathy-train]}}\n"
        "  - {id: web-only, type: random, params: {seed: 2}, meta: {display_name: 'Web only', trained_on: [webli]}}\n"
        "  - {id: secret, type: random, params: {seed: 3}, meta: {display_name: 'Secret', trained_on: [undisclosed]}}\n"
        "  - {id: blind, type: random, params: {seed: 4}, meta: {display_name: 'Nothing declared'}}\n"
        "benchmarks:\n"
        "  - {id: sugarcrepe, type: sugarcrepe, params: {version: custom}}\n"
        "  - {id: aro-vg-relation, type: aro_vg_relation}\n"
    )
    out = vlc_run("--all", "--registry", str(registry), data_root=sample_root)
    assert out.exit_code == 0, out.output
    store = vlc_run.store()
    try:
        board = build_board(store.latest_cells(), load_registry([registry], vlc_plugins), vlc_plugins)
    finally:
        store.close()
    rows = {r.id: r for r in board.rows}
    sugar = {model: rows[model].cells["sugarcrepe"] for model in rows}
    assert sugar["coco-tuned"].published and sugar["coco-tuned"].overlap.marked
    assert sugar["coco-tuned"].overlap.pairs[0][:2] == ("coco-karpathy-train", "coco-val2017")
    assert sugar["web-only"].overlap.status == "none" and not sugar["web-only"].overlap.marked
    assert sugar["secret"].overlap.status == "unknown"
    assert sugar["blind"].overlap is None
    # a cell without scores (ARO data absent here) still says whether the pools overlap
    vg = rows["coco-tuned"].cells["aro-vg-relation"]
    assert vg.status != "ok" and vg.overlap.marked  # Visual Genome holds COCO 2014 images
