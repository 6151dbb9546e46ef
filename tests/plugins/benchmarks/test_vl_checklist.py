"""VL-CheckList: the real files' counts, strict accuracy and the upstream averages, and a CLI run."""

from __future__ import annotations

import json
import shutil
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np
import pytest

from vlc_harness.benchmarks import InstanceScores
from vlc_harness.errors import DataUnavailable, InputError, ScoreError
from vlc_harness.params import build
from vlc_harness.sources import gc_paused
from vlc_harness.testing import write_standin_images
from vlc_harness.types import ImageSource, Instance
from vlc_harness_builtins.benchmarks.vl_checklist import (
    CORPUS,
    IMAGE_ROOTS,
    PINNED,
    VLCheckList,
    read_items,
    well_formed,
)

# Data README section 5 (verified counts), by our category names.
COUNTS = {
    "Attribute/action/vaw": 3039,
    "Attribute/material/vaw": 11835,
    "Attribute/size/vaw": 15321,
    "Attribute/state/vaw": 4939,
    "Attribute/action/vg": 1892,
    "Attribute/color/vg": 11569,
    "Attribute/material/vg": 2470,
    "Attribute/size/vg": 2695,
    "Attribute/state/vg": 941,
    "Relation/action/vg": 12733,
    "Relation/spatial/vg": 30650,
    "Relation/action/swig": 25150,
}


def bench(root: Path, **params) -> VLCheckList:
    return VLCheckList(build(VLCheckList.Params, params), root)


@pytest.mark.slow  # the real files of ../shared/data
def test_real_files_match_the_data_readme(shared_data):
    b = bench(shared_data)
    b.check_data()
    assert b.data_version == "partial-12files" and len(PINNED) == 12
    instances = b.load_instances()
    assert Counter(i.category for i in instances) == COUNTS and len(instances) == 123234
    for f in PINNED:  # one positive and one negative per upstream item, as evaluate.py reads them
        with gc_paused():  # the file's items parsed beside the ~1M objects of the instances: no pass over those
            items = json.loads((shared_data / "vl_checklist" / "data" / f.relpath).read_text())
        assert {(len(t["POS"]), len(t["NEG"])) for _, t in items} == {(1, 1)}
    images = shared_data / "vl_checklist" / "images"
    by_id = {i.id: i for i in instances}
    assert by_id["Relation/action/swig/0"].images[0].path.parent == images / "swig"
    vg_parents = {i.images[0].path.parent for i in instances if not i.category.endswith("swig")}
    assert vg_parents == {images / "vg" / "VG_100K", images / "vg" / "VG_100K_2"}  # VAW uses VG images


def test_missing_and_altered_files_name_what_to_get(shared_data, tmp_path):
    root = tmp_path / "root"
    shutil.copytree(shared_data / "vl_checklist", root / "vl_checklist")
    (root / "vl_checklist" / "data" / "Relation" / "vg" / "spatial.json").unlink()
    with pytest.raises(DataUnavailable) as info:
        bench(root).check_data()
    assert "spatial.json" in str(info.value) and "om-ai-lab/VL-CheckList/6f8d6a3" in str(info.value)
    # custom reads whatever is present, unpinned
    custom = bench(root, version="custom")
    custom.check_data()
    assert custom.data_version.startswith("custom-") and len(custom.corpus()) == 11
    color = root / "vl_checklist" / "data" / "Attribute" / "vg" / "color.json"
    color.write_text(color.read_text().replace("brown", "beige", 1))
    (root / "vl_checklist" / "data" / "Relation" / "vg" / "spatial.json").symlink_to(
        shared_data / "vl_checklist" / "data" / "Relation" / "vg" / "spatial.json"
    )
    with pytest.raises(DataUnavailable, match="color.json has sha256"):
        bench(root).check_data()
    with pytest.raises(DataUnavailable, match="no upstream corpus file"):
        bench(tmp_path / "empty", version="custom").check_data()


CAPTIONS = {"POS": ["a red cup"], "NEG": ["a blue cup"]}
MALFORMED_ITEMS = [
    "a.jpg",
    [],
    ["a.jpg"],
    ["a.jpg", CAPTIONS, 1],
    [1, CAPTIONS],
    [["a.jpg"], CAPTIONS],
    [{"a": 1}, CAPTIONS],
    [None, CAPTIONS],
    ["", CAPTIONS],
    ["  ", CAPTIONS],
    ["/abs/a.jpg", CAPTIONS],
    ["a\0.jpg", CAPTIONS],
    ["x" * 256 + ".jpg", CAPTIONS],
    ["a.jpg", []],
    ["a.jpg", "captions"],
    ["a.jpg", {"POS": ["p"]}],
    ["a.jpg", {"NEG": ["n"]}],
    ["a.jpg", {"POS": [], "NEG": ["n"]}],
    ["a.jpg", {"POS": ["p"], "NEG": [1]}],
    ["a.jpg", {"POS": "p", "NEG": ["n"]}],
    ["a.jpg", {"POS": ["p"], "NEG": None}],
]
"""Items each check of :func:`read_items` refuses (the list, its length, the image name, the captions)."""


def test_a_malformed_item_is_refused_by_the_fast_check_and_named_by_the_full_one(tmp_path):
    """The fast check (``well_formed``) passes exactly the items the full checks pass: each malformed item
    fails it, after the same name passed in a good item too, and the full checks then name it."""
    path = tmp_path / "color.json"
    good = [["a.jpg", CAPTIONS], ["b/c.jpg", {"POS": ["p", "q"], "NEG": ["n"], "extra": 1}]]
    path.write_text(json.dumps(good))
    assert read_items(path) == [(image, texts) for image, texts in good]
    assert all(well_formed(item, set()) for item in good)
    for bad in MALFORMED_ITEMS:
        assert not well_formed(bad, {"a.jpg"}), bad
        path.write_text(json.dumps([*good, bad]))
        with pytest.raises(InputError, match=r"item 2\b") as info:
            read_items(path)
        assert str(path) in str(info.value), bad


def case(category: str, key: int, pos: float, neg: float) -> InstanceScores:
    inst = Instance(f"{category}/{key}", category, (ImageSource(Path("x.jpg")),), ("pos", "neg"), {"positive": 0})
    return InstanceScores(inst, np.array([[pos, neg]]))


def test_strict_accuracy_and_upstream_averages_on_hand_built_scores():
    results = [
        case("Attribute/color/vg", 0, 0.9, 0.1),
        case("Attribute/color/vg", 1, 0.5, 0.5),  # a tie is wrong (upstream: pos > neg)
        case("Attribute/color/vaw", 0, 0.9, 0.1),  # vaw 1.0, vg 0.5 -> color 0.75
        case("Attribute/size/vg", 0, 0.1, 0.9),  # size 0.0 -> Attribute (0.75 + 0) / 2
        case("Object/Size/large/vg_obj", 0, 0.9, 0.1),  # vg = mean(vg_obj 1.0, vg_subj 0.0) = 0.5
        case("Object/Size/large/vg_subj", 0, 0.1, 0.9),
        case("Object/Size/large/swig_agent", 0, 0.9, 0.1),  # swig = mean(agent 1.0, tool 1.0) = 1.0
        case("Object/Size/large/swig_tool", 0, 0.9, 0.1),
        case("Object/Size/large/hake", 0, 0.3, 0.7),  # hake 0.0 -> large = (0.5 + 1 + 0) / 3
    ]
    values = {(v.metric, v.category): v for v in bench(Path(".")).compute(results)}
    color_vg = values[("i2t_accuracy", "Attribute/color/vg")]
    assert color_vg.value == 0.5 and color_vg.ties == 1 and color_vg.tie_rule == "wrong"
    color = values[("i2t_accuracy_subtype", "Attribute/color")]
    assert color.value == 0.75 and color.n == 3 and color.ties == 1
    assert color.averaging == "macro: unweighted mean over 2 sources: vaw, vg"
    large = values[("i2t_accuracy_subtype", "Object/Size/large")]
    assert large.value == pytest.approx(0.5) and large.averaging.endswith("3 sources: vg, swig, hake")
    assert values[("i2t_accuracy_type", "Attribute")].value == pytest.approx(0.375)
    assert values[("i2t_accuracy_type", "Object")].value == pytest.approx(0.5)
    assert values[("i2t_accuracy_type", "Object")].averaging.endswith("1 sub-type: Object/Size/large")
    macro = values[("i2t_accuracy_macro", "all")]
    assert macro.value == pytest.approx((0.5 + 0.375) / 2) and macro.n == 9
    assert macro.averaging == "macro: unweighted mean over 2 types: Object, Attribute"
    assert values[("i2t_accuracy_micro", "all")].value == pytest.approx(5 / 9)
    with pytest.raises(ScoreError):
        bench(Path(".")).compute([*results, case("Relation/spatial/vg", 0, float("nan"), 0.2)])


def test_the_corpus_follows_the_upstream_yaml_layout():
    by_category = {f.category: f for f in CORPUS}
    assert len(CORPUS) == 42 + 10 + 4  # Object: 6 sub-types x 7 corpus files; Attribute 10; Relation 4
    assert by_category["Object/Location/center/swig_agent"].relpath == (
        "Object/Location/swig_location/swig_agent/swig_agent_center.json"
    )
    assert by_category["Object/Size/medium/hake"].relpath == "Object/Size/hake_size/hake_obj_medium.json"
    assert by_category["Object/Location/mid/vg_subj"].relpath == "Object/Location/vg_location/vg_subj_mid.json"
    assert by_category["Relation/action/hake"].relpath == "Relation/hake_action.json"
    assert by_category["Attribute/color/vaw"].relpath == "Attribute/vaw/color.json"


def test_reference_rows_are_for_the_full_data():
    b = bench(Path("."))
    specs = {s.id for s in b.metric_specs()}
    rows = b.reference_rows()
    assert len(rows) == 19 * 3 and all(r.metric == "i2t_accuracy_type" and r.metric in specs for r in rows)
    assert all(r.data_version == "upstream-full" and 0 <= r.value <= 1 for r in rows)
    vit = {r.category: r.value for r in rows if r.matches == "open_clip:ViT-B-32/openai"}
    assert vit == {"Object": 0.87, "Attribute": 0.688, "Relation": 0.7704}


@pytest.mark.slow  # the real files of ../shared/data
def test_tiny_openclip_on_the_real_files_with_standin_images(vlc_run, tmp_path, shared_data, tiny_spec):
    root = tmp_path / "data"
    (root / "vl_checklist").mkdir(parents=True)
    (root / "vl_checklist" / "data").symlink_to(shared_data / "vl_checklist" / "data")
    # stand-ins for the images the run reads: the first 3 items of each real file
    folders: dict[Path, list[str]] = defaultdict(list)
    for f in PINNED:
        for image, _ in json.loads((shared_data / "vl_checklist" / "data" / f.relpath).read_text())[:3]:
            path = root / "vl_checklist" / "images" / IMAGE_ROOTS[f.source] / image
            folders[path.parent].append(path.name)
    for folder, names in folders.items():
        write_standin_images(names, folder)
    result = vlc_run("-m", tiny_spec, "-b", "vl_checklist", "--limit", "3", data_root=root)
    assert result.exit_code == 0, result.output
    assert "i2t_accuracy_macro=" in result.output
    shown = json.loads(vlc_run.cli("show", "--partial", "--format", "json").stdout)
    (cell,) = shown["cells"]
    metrics = {(m["metric"], m["category"]): m for m in cell["metrics"]}
    assert {c for m, c in metrics if m == "i2t_accuracy"} == set(COUNTS)
    assert all(metrics[("i2t_accuracy", c)]["n"] == 3 for c in COUNTS)
    assert metrics[("i2t_accuracy_subtype", "Relation/action")]["averaging"].endswith("2 sources: vg, swig")
    macro = metrics[("i2t_accuracy_macro", "all")]
    assert macro["averaging"] == "macro: unweighted mean over 2 types: Attribute, Relation"
    assert macro["n"] == 36 and macro["tie_rule"] == "wrong"
