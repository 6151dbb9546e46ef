"""Training-data overlap as data: the pool vocabulary, the overlap table, the registry's
``meta.trained_on``, benchmarks' ``image_pools`` and the board's per-cell marks."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
import yaml

from vlc_harness.overlap import (
    POOLS,
    SHARED,
    UNDISCLOSED,
    Pool,
    entry_overlap,
    overlap,
    overlap_table,
    shared_reason,
)

REPO = Path(__file__).resolve().parents[3]


def test_the_coco_pools_are_cut_as_detectron_and_karpathy_cut_them():
    # val2017 is the 2014 minival: part of val2014, no image of train2014 or train2017
    assert _containers("coco-val2017") == {"coco-val2014"}
    assert shared_reason("coco-val2017", "coco-train2014") is None
    assert shared_reason("coco-val2017", "coco-train2017") is None
    # train2017 = train2014 + valminusminival (val2014 without val2017)
    assert POOLS["coco-train2014"].part_of == ("coco-train2017", "coco-karpathy-train")
    assert set(POOLS["coco-valminusminival2014"].part_of) == {"coco-val2014", "coco-train2017"}
    assert shared_reason("coco-valminusminival2014", "coco-val2017") is None
    assert shared_reason("coco-train2017", "coco-val2014") == "both hold coco-valminusminival2014"
    # Karpathy train = train2014 + restval; restval, val and test are disjoint parts of val2014
    assert set(POOLS["coco-karpathy-restval"].part_of) == {"coco-val2014", "coco-karpathy-train"}
    for split in ("coco-karpathy-val", "coco-karpathy-test"):
        assert POOLS[split].part_of == ("coco-val2014",)
        assert shared_reason(split, "coco-karpathy-train") is None
        assert shared_reason(split, "coco-karpathy-restval") is None
        assert shared_reason(split, "coco-val2017")  # SugarCrepe's images fall in all three
        assert shared_reason(split, "coco-train2017")  # and neither is val2017, so some are in train2017
    assert "restval" in shared_reason("coco-karpathy-train", "coco-val2017")
    assert shared_reason("coco-karpathy-train", "coco-val2014") == "both hold coco-karpathy-restval"
    for name in ("coco-val2014", "coco-train2017", "coco-karpathy-train"):
        assert shared_reason(name, "coco-test2014") is None


def _containers(pool: str) -> set[str]:
    """The pools that hold ``pool`` (directly or transitively)."""
    out, todo = set(), list(POOLS[pool].part_of)
    while todo:
        name = todo.pop()
        if name not in out:
            out.add(name)
            todo.extend(POOLS[name].part_of)
    return out


@pytest.mark.parametrize(
    ("model_pools", "status"),
    [
        (["wit-400m", "coco-train2014"], "none"),  # CE-CLIP: train2014 holds no val2017 image
        (["wit-400m", "coco-karpathy-train"], "overlap"),  # NegCLIP, FSC-CLIP (COCO): via restval
        (["laion-2b", "coco-train2017"], "none"),  # EVA-02's COCO: train2017, disjoint from val2017
    ],
)
def test_coco_fine_tunes_against_sugarcrepes_val2017(model_pools, status):
    mark = overlap(model_pools, ["coco-val2017"])
    assert mark.status == status
    if status == "overlap":
        assert [(m, b) for m, b, _ in mark.pairs] == [("coco-karpathy-train", "coco-val2017")]
        assert "1,200 of SugarCrepe's 1,560 val2017 images" in mark.describe()


SUGARCREPE_SUBSETS = ("add_att", "add_obj", "replace_att", "replace_obj", "replace_rel", "swap_att", "swap_obj")
SUGARCREPE_PP_SUBSETS = ("replace_att", "replace_obj", "replace_rel", "swap_att", "swap_obj")


def _image_names(folder, subsets) -> set[str]:
    """The image file names an annotation folder's subset files name (dict or list of records)."""
    import json

    names = set()
    for subset in subsets:
        data = json.loads((folder / f"{subset}.json").read_text())
        names |= {record["filename"] for record in (data.values() if isinstance(data, dict) else data)}
    return names


def test_sugarcrepe_has_the_1560_val2017_images_the_explanations_count(shared_data):
    """SHARED's counts (177 in Karpathy val, 183 in test, 1,200 in restval) were computed from
    these images and the Karpathy lists it cites (not stored here); the total is checked."""
    images = _image_names(shared_data / "sugarcrepe", SUGARCREPE_SUBSETS)
    assert len(images) == 1560 == 177 + 183 + 1200
    assert all(len(name) == len("000000000000.jpg") for name in images)  # val2017's naming, no 2014 prefix


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
        if not reg.cls.__module__.startswith("vlc_harness_builtins."):
            continue
        for pool in reg.cls.image_pools:
            assert pool in POOLS or pool in reg.cls.own_pools, (name, pool)
    pools = {name: reg.cls.image_pools for name, reg in vlc_plugins.benchmarks.entries.items()}
    assert pools["sugarcrepe"] == ("coco-val2017",)
    assert "coco-val2017" in pools["bivlc"]
    assert pools["aro_coco_order"] == ("coco-karpathy-test",)
    assert pools["sugarcrepe_pp"] == ("coco-val2017",)  # SugarCrepe's images (scpp VLMs/download_coco_images.sh)
    assert pools["whatsup"] == ("whatsup-controlled", "coco-val2017", "vg")  # aro_datasets.py COCO_QA / VG_QA
    assert "whatsup-controlled" in vlc_plugins.benchmarks.get("whatsup").cls.own_pools  # its card brings it
    assert pools["vismin"] == ("coco-val2017", "vismin-generated")  # vismin README: COCO 2017 validation split


def test_sugarcrepe_pp_draws_only_on_sugarcrepes_images(shared_data):
    plus = _image_names(shared_data / "sugarcrepe_pp", SUGARCREPE_PP_SUBSETS)
    assert len(plus) == 1542 and plus <= _image_names(shared_data / "sugarcrepe", SUGARCREPE_SUBSETS)


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
    assert entry_overlap(meta["ce-clip-vit-b-32"], ["coco-val2017"]).status == "none"  # train2014 only
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


def pool_users(vlc_plugins) -> tuple[Counter[str], set[str]]:
    """How many built-in benchmarks draw on each pool, and the pools some registry model is trained on."""
    benchmarks = Counter(
        pool
        for reg in vlc_plugins.benchmarks.entries.values()
        if reg.cls.__module__.startswith("vlc_harness_builtins.")
        for pool in reg.cls.image_pools
    )
    data = yaml.safe_load((REPO / "registry.yaml").read_text())
    trained = {pool for e in data["models"] for pool in (e.get("meta") or {}).get("trained_on") or ()}
    return benchmarks, trained


def one_benchmarks_pools(vlc_plugins, pools=POOLS, shared=SHARED) -> list[str]:
    """Pools of the shared vocabulary that only one built-in benchmark draws on, no registry model is
    trained on and no other pool is related to (part of, holding, or listed as sharing images with):
    they belong in that benchmark's card (``own_pools``)."""
    benchmarks, trained = pool_users(vlc_plugins)
    related = {name for name, p in pools.items() if p.part_of} | {x for p in pools.values() for x in p.part_of}
    related |= {x for pair in shared for x in pair}
    return sorted(n for n in pools if benchmarks[n] == 1 and n not in trained and n not in related)


def test_the_shared_vocabulary_holds_no_pool_only_one_benchmark_brings(vlc_plugins):
    assert one_benchmarks_pools(vlc_plugins) == []
    whatsup = vlc_plugins.benchmarks.get("whatsup").cls.own_pools["whatsup-controlled"]
    planted = {**POOLS, "whatsup-controlled": whatsup}  # as it was before cards declared their pools
    assert one_benchmarks_pools(vlc_plugins, planted) == ["whatsup-controlled"]


def test_a_benchmarks_own_pool_overlaps_through_its_part_of():
    own = {"demo-crops": Pool("crops of COCO val2017 images", ("coco-val2017",))}
    mark = overlap(["coco-val2014"], ["demo-crops"], own)
    assert mark.pairs == (("coco-val2014", "demo-crops", "demo-crops is part of coco-val2014"),)
    assert overlap(["coco-karpathy-train"], ["demo-crops"], own).status == "none"  # need not hold restval's
    assert overlap(["webli"], ["demo-crops"], own).status == "none"
    with pytest.raises(ValueError, match="unknown image pool 'demo-crops'"):
        overlap(["coco-val2014"], ["demo-crops"])  # without the benchmark that brings it
    with pytest.raises(ValueError, match="meta.trained_on: unknown image pool 'demo-crops'"):
        overlap(["demo-crops"], ["coco-val2017"], own)  # trained_on names shared pools only
