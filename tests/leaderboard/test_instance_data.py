"""The instance browser's data without a browser: gold marks from each gold shape, COCO source links,
thumbnails (bounded, deterministic, shapes only), verdict letters against the results API, and the size
budget (a VL-CheckList-sized benchmark, and what happens to a file over the cap)."""

from __future__ import annotations

import dataclasses
import io
import json
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from vlc_harness.params import build
from vlc_harness.plugins import get_plugins
from vlc_harness.testing.examples import example_for
from vlc_harness.types import ImageSource, Instance
from vlc_leaderboard import instance_files
from vlc_leaderboard.board import Board, Row
from vlc_leaderboard.instance_files import Budget, write_instance_files
from vlc_leaderboard.instance_gold import caption_roles, coco_source, gold_cells, image_name, image_roles
from vlc_leaderboard.instances import BenchmarkInstances, ImageEntry, ModelInstances, _letters
from vlc_leaderboard.score_packing import pack_scores, unpack_scores


def _instance(gold: dict[str, Any], images: int = 1, texts: int = 2) -> Instance:
    return Instance(
        "cat/0", "cat", tuple(ImageSource(Path(f"/x/{k}.jpg")) for k in range(images)), ("t",) * texts, gold
    )


def _script(path: Path) -> Any:
    """The JSON a page data script assigns."""
    return json.loads(path.read_text().split(" = ", 2)[-1].rstrip().rstrip(";"))


def test_gold_marks_follow_each_gold_shape():
    one = _instance({"positive": 0}, texts=2)
    assert caption_roles(one) == ["gold", "foil"] and gold_cells(one) == [[0, 0]] and image_roles(one) == [""]
    hard = _instance({"original": 0, "positive": 1, "negative": 2}, texts=3)  # hard positives, SugarCrepe++
    assert caption_roles(hard) == ["gold", "also true", "foil"] and gold_cells(hard) == [[0, 0], [0, 1]]
    order = _instance({"positive": 0, "seed": 0, "identical": [True]}, texts=5)  # ARO order: 1 of 5
    assert caption_roles(order) == ["gold"] + ["foil"] * 4
    square = _instance({"matches": [[0, 0], [1, 1]]}, images=2, texts=2)  # Winoground, BiVLC: the gold image too
    assert caption_roles(square) == ["gold for image 1", "gold for image 2"]
    assert image_roles(square) == ["gold for caption 1", "gold for caption 2"] and gold_cells(square) == [
        [0, 0],
        [1, 1],
    ]
    swapped = _instance({"matches": [[0, 1], [1, 0]]}, images=2, texts=2)
    assert image_roles(swapped) == ["gold for caption 2", "gold for caption 1"] and gold_cells(swapped) == [
        [0, 1],
        [1, 0],
    ]
    assert caption_roles(_instance({"label": 0}, texts=1)) == ["does not match the image"]
    assert gold_cells(_instance({"label": 1}, texts=1)) == [[0, 0]]


def test_naturalbench_questions_carry_the_gold_answers(tmp_path):
    from vlc_leaderboard.instance_gold import question_labels

    cls = get_plugins().benchmarks.get("naturalbench").cls
    params, root = example_for(cls, tmp_path)
    bench = cls(build(cls.Params, params), root)
    inst = bench.load_instances()[0]
    labels = question_labels(bench, inst)
    assert labels is not None and [q[0] for q in labels] == [0, 1, 2, 3]
    assert [q[2][q[3]] for q in labels] == list(inst.gold["answers"])  # each question's gold option, in order
    assert caption_roles(inst) == ["question 1", "question 2"]
    sugar = get_plugins().benchmarks.get("winoground").cls
    params, root = example_for(sugar, tmp_path / "w")
    wino = sugar(build(sugar.Params, params), root)
    assert question_labels(wino, wino.load_instances()[0]) is None  # no multiple-choice form


@pytest.mark.parametrize(
    ("path", "url"),
    [
        ("coco/val2017/000000397133.jpg", "http://images.cocodataset.org/val2017/000000397133.jpg"),
        ("data/train2017/000000000009.jpg", "http://images.cocodataset.org/train2017/000000000009.jpg"),
        ("any/COCO_val2014_000000391895.jpg", "http://images.cocodataset.org/val2014/COCO_val2014_000000391895.jpg"),
        (
            "x/COCO_train2014_000000000009.jpg",
            "http://images.cocodataset.org/train2014/COCO_train2014_000000000009.jpg",
        ),
        ("my_coco/000000397133.jpg", None),  # 12 digits outside a split folder: not known to be COCO
        ("visual_genome/VG_100K/2345678.jpg", None),
        ("bivlc/negative_images/0.jpg", None),
        ("coco/val2017/000000397133.png", None),
    ],
)
def test_coco_images_link_to_their_source_where_the_path_says_the_split(path, url):
    assert coco_source(Path("/data") / path) == url


def test_images_are_named_under_the_data_root_never_by_a_local_folder():
    root = Path("/home/someone/data")
    assert image_name(ImageSource(root / "coco" / "val2017" / "1.jpg"), root) == "coco/val2017/1.jpg"
    assert image_name(ImageSource(Path("/elsewhere/imgs/1.jpg")), root) == "1.jpg"
    crop = ImageSource(root / "aro" / "9.jpg", {"crop": [2, 1, 40, 30]})
    assert image_name(crop, root) == "aro/9.jpg (crop 40×30 at 2,1)"


def test_only_shapes_declares_its_images_redistributable():
    declared = {
        name
        for name in get_plugins().benchmarks.names()
        if get_plugins().benchmarks.get(name).cls.images_redistributable
    }
    assert declared == {"shapes"}


def test_thumbnails_are_bounded_and_deterministic(tmp_path):
    from PIL import Image

    from vlc_leaderboard.thumbnails import THUMB_SIDE, _encoded, thumbnail

    big = tmp_path / "big.png"
    rng = np.random.default_rng(0)
    Image.fromarray(rng.integers(0, 255, (300, 480, 3), dtype=np.uint8)).save(big)
    name, data = thumbnail(ImageSource(big))
    _encoded.cache_clear()
    again = thumbnail(ImageSource(big))
    assert (name, data) == again and re.fullmatch(r"[0-9a-f]{16}\.png", name)
    with Image.open(io.BytesIO(data)) as im:
        assert max(im.size) == THUMB_SIDE and im.size == (160, 100)
    cropped = thumbnail(ImageSource(big, {"crop": [0, 0, 40, 20]}))[1]
    with Image.open(io.BytesIO(cropped)) as im:
        assert im.size == (40, 20)  # the crop the model saw, never upscaled


def test_verdict_letters_follow_credit_ties_and_abstentions():
    from vlc_harness.results import InstanceVerdicts

    v = InstanceVerdicts(
        "m",
        "wrong",
        tuple("abcdefg"),
        full_credit=np.array([1, 0, 0, 1, 0, 0, 0], bool),
        no_credit=np.array([0, 1, 1, 0, 0, 1, 0], bool),
        tied=np.array([0, 0, 1, 1, 1, 0, 0], bool),
        answered=np.array([1, 1, 1, 1, 1, 0, 1], bool),
    )
    assert _letters(v) == ["R", "W", "T", "U", "H", "A", "P"]
    assert v.verdicts() == ["right", "wrong", "tie", "tie", "tie", "abstained", "part"]  # the API's words agree


def _vlc_like(n: int, models: int) -> BenchmarkInstances:
    from bench.instance_sizes import synthetic

    return synthetic(n, models)


def _board(data: BenchmarkInstances) -> Board:
    return Board([], [Row(m, m, "model", {}) for m in data.models])


@pytest.mark.slow  # 120,000 instances
def test_a_vl_checklist_sized_benchmark_fits_the_budget(tmp_path):
    data = _vlc_like(123_000, 2)
    indexes, missing = write_instance_files(_board(data), {"vl_checklist": data}, tmp_path)
    assert indexes == {"vl_checklist": "data/instances/vl_checklist/index.js"} and not missing
    files = [p for p in (tmp_path / "data").rglob("*") if p.is_file()]
    assert max(p.stat().st_size for p in files) <= instance_files.BUDGET.max_file_bytes
    index = _script(tmp_path / indexes["vl_checklist"])
    assert index["count"] == 123_000 and len(index["shards"]) == 62  # 2,000 instances a shard
    assert all(s["file"] for s in index["shards"]) and index["shards"][-1]["end"] == 123_000
    verdicts = _script(tmp_path / index["models"]["model-00"]["verdicts"])["verdicts"]
    assert verdicts == data.models["model-00"].verdicts and len(verdicts) == 123_000
    shard = _script(tmp_path / index["shards"][5]["file"])
    assert shard["start"] == 10_000 and shard["items"][0]["i"] == data.ids[10_000] and "t" not in shard["items"][0]
    scores = _script(tmp_path / index["models"]["model-01"]["scores"][5])
    stored = data.models["model-01"].scores
    shapes = [(len(item["m"]), len(item["r"])) for item in shard["items"]]
    unpacked = unpack_scores(scores["s"], shapes)
    assert stored is not None and unpacked[0] == [[float(f"{v:.5g}") for v in stored[10_000, 0, :2]]]
    assert len(unpacked) == 2_000 and all(len(m) == 1 and len(m[0]) == 2 for m in unpacked if m)
    # each category's shards bound where a permalink's instance can be
    for name, (lo, hi) in index["categoryShards"].items():
        held = [k for k, c in enumerate(data.categories) if c == name]
        assert index["shards"][lo]["start"] <= held[0] and held[-1] < index["shards"][hi]["end"]


def test_files_over_the_cap_are_left_out_and_the_index_says_so(tmp_path, monkeypatch):
    data = _vlc_like(50, 2)
    data.captions = [["a caption", "a foil"]] * 50
    data.captions[20] = ["x" * 5000, "a foil"]  # one instance bigger than a file may be
    monkeypatch.setattr(instance_files, "BUDGET", Budget(max_file_bytes=4096, shard_instances=10))
    indexes, missing = write_instance_files(_board(data), {"b": data}, tmp_path)
    index = _script(tmp_path / indexes["b"])
    over = [s for s in index["shards"] if s["file"] is None]
    assert over == [{"start": 20, "end": 21, "file": None}]  # cut around it, and left out
    assert [(s["start"], s["end"]) for s in index["shards"]] == [
        (0, 10),
        (10, 20),
        (20, 21),
        (21, 31),
        (31, 41),
        (41, 50),
    ]
    assert all(p.stat().st_size <= 4096 for p in (tmp_path / "data").rglob("*.js"))


def _tiny(n: int, verdicts: str) -> BenchmarkInstances:
    """``n`` instances with next to nothing each, and one model."""
    data = BenchmarkInstances("b", "m", "wrong", [f"c/{k}" for k in range(n)], ["c"] * n)
    data.roles, data.gold, data.images = [["gold"]] * n, [[[0, 0]]] * n, [[]] * n
    data.models = {"model-00": ModelInstances(verdicts)}
    return data


def test_a_model_or_an_index_over_the_cap_is_left_out(tmp_path, monkeypatch):
    monkeypatch.setattr(instance_files, "BUDGET", Budget(max_file_bytes=8192, shard_instances=2_000))
    data = _tiny(9_000, "R" * 9_000)  # 9,000 letters: the verdict file is over 8 KiB, each shard is not
    indexes, missing = write_instance_files(_board(data), {"b": data}, tmp_path)
    index = _script(tmp_path / indexes["b"])
    assert not missing and index["models"] == {"model-00": {"over": True}} and all(s["file"] for s in index["shards"])
    assert not (tmp_path / "data" / "instances" / "b" / "models" / "model-00.js").exists()
    monkeypatch.setattr(instance_files, "BUDGET", Budget(max_file_bytes=2048, shard_instances=2_000))
    indexes, missing = write_instance_files(_board(data), {"b": data}, tmp_path / "small")
    assert indexes == {} and missing == {"b": instance_files.OVER_INDEX}  # hundreds of shards: the index is over


def test_a_benchmark_without_verdicts_or_data_says_why(tmp_path):
    data = {"seetrue": BenchmarkInstances("seetrue", missing="no per-instance verdict")}
    assert write_instance_files(Board([], []), data, tmp_path) == ({}, {"seetrue": "no per-instance verdict"})


def test_image_entries_hold_thumbnails_only_where_declared(tmp_path):
    from PIL import Image

    picture = tmp_path / "p.png"
    Image.new("RGB", (64, 32), (200, 10, 10)).save(picture)
    data = _vlc_like(3, 1)
    data.images = [
        [ImageEntry("p.png", None, "gold for caption 1", ImageSource(picture)), ImageEntry("coco/val2017/1.jpg", "u")]
    ] * 3
    first = tmp_path / "one"
    write_instance_files(_board(data), {"b": data}, first)
    write_instance_files(_board(data), {"b": data}, tmp_path / "two")
    shard = _script(first / "data" / "instances" / "b" / "shard-0.js")
    thumb, link = shard["items"][0]["m"]
    assert thumb[0] == "p.png" and thumb[2].startswith("data/instances/b/img/") and thumb[3] == "gold for caption 1"
    assert link == ["coco/val2017/1.jpg", "u", None, ""]
    assert len(list((first / "data" / "instances" / "b" / "img").iterdir())) == 1  # the same image once
    for path in first.rglob("*"):  # the same data render the same bytes
        if path.is_file():
            assert (tmp_path / "two" / path.relative_to(first)).read_bytes() == path.read_bytes()


def test_stored_scores_text_scores_and_answers_reach_the_model_files(tmp_path):
    from vlc_harness.store import Outcome
    from vlc_leaderboard.instance_arrays import with_results
    from vlc_leaderboard.outcome_records import outcome_record

    chosen = [_instance({"positive": 0}, texts=3), _instance({"positive": 0}, texts=2)]
    chosen = [dataclasses.replace(chosen[0], id="cat/0"), dataclasses.replace(chosen[1], id="cat/1")]
    rows = {
        "cat/0": Outcome("cat/0", "cat", [[0.123456789, None, 0.5]], text_scores=[[None, 0.25, 0.75]] * 3),
        "cat/1": Outcome("cat/1", "cat", None, answers=[{"order": 1, "choice": None, "correct": 0},
                                                        {"order": 0, "choice": 1, "correct": 0}]),
    }  # fmt: skip
    data = BenchmarkInstances("b", "m", "wrong", ["cat/0", "cat/1"], ["cat", "cat"])
    data.roles, data.gold = [caption_roles(i) for i in chosen], [gold_cells(i) for i in chosen]
    data.images = [[ImageEntry("0.jpg")], [ImageEntry("1.jpg")]]
    data.models = {"m": ModelInstances("RA")}
    records = [outcome_record(o) for o in rows.values()]
    data = with_results(data, {"m": "the cell"}, lambda cell: records if cell == "the cell" else [])
    model = data.models["m"]
    assert model.verdicts == "RA" and model.answers == {1: [1, None]}  # answers in presentation order
    assert model.scores is not None and model.scores.shape == (2, 1, 3) and np.isnan(model.scores[1]).all()
    indexes, _ = write_instance_files(_board(data), {"b": data}, tmp_path)
    shard = _script(tmp_path / _script(tmp_path / indexes["b"])["models"]["m"]["scores"][0])
    unpack = unpack_scores
    assert unpack(shard["s"], [(1, 3), (1, 2)]) == [[[0.12346, None, 0.5]], None]  # 5 digits; each instance's shape
    assert unpack(shard["x"], [(3, 3), (2, 2)]) == [[[None, 0.25, 0.75]] * 3, None]
    assert shard["a"] == [None, [1, None]]
    only_second = dataclasses.replace(data, models={"m": ModelInstances("-A")})
    unseen = with_results(only_second, {"m": "the cell"}, lambda cell: records).models["m"]
    assert unseen.scores is None and unseen.answers == {1: [1, None]}  # filled only where it has a verdict


def test_a_score_shard_packs_each_shown_decimal_in_3_bytes_and_keeps_json_past_its_range():
    rng = np.random.default_rng(3)
    blocks = [rng.normal(0.28, 0.05, (2, 2)), np.full((1, 2), np.nan), np.array([[-12.3456789, 1.23456789e-7, 0.0]])]
    blocks[0][1, 0] = np.nan
    blocks.append(np.array([[9.99996, -np.inf, 123456.0, -2.5e-32]]))
    packed = pack_scores(blocks)
    assert isinstance(packed, str) and len(packed) == 4 * (4 + 2 + 3 + 4)  # 3 bytes a score: 4 base64 characters
    unpacked = unpack_scores(packed, [(2, 2), (1, 2), (1, 3), (1, 4)])
    shown = [[[None if np.isnan(v) else float(f"{v:.5g}") for v in row] for row in b.tolist()] for b in blocks]
    assert unpacked == [shown[0], None, shown[2], shown[3]]  # what a JSON shard held: 5 significant digits
    assert shown[2] == [[-12.346, 1.2346e-07, 0.0]] and shown[3] == [[10.0, -np.inf, 123460.0, -2.5e-32]]
    assert unpacked[0][1][0] is None and unpacked[0][0][0] == float(f"{blocks[0][0, 0]:.5g}")
    # a magnitude past 1e-32..1e32 cannot be packed: the shard keeps JSON numbers (the browser reads both)
    assert pack_scores([np.array([[1e-40, 0.5]]), np.array([[2.0, np.nan]])]) == [[[1e-40, 0.5]], [[2.0, None]]]
    assert pack_scores([np.array([[3e32]])]) == [[[3e32]]] and isinstance(pack_scores([np.array([[9e31]])]), str)


def test_a_large_benchmarks_models_are_cut_into_parts_for_the_workers():
    from vlc_leaderboard.instance_files import model_parts

    models = {"vl-checklist": [f"m{k}" for k in range(70)], "winoground": [f"m{k}" for k in range(70)], "none": []}
    sizes = {"vl-checklist": 123_000, "winoground": 400, "none": 10}
    assert model_parts(models, sizes, 1) == [(b, ms) for b, ms in models.items()]  # one job: one part each
    for jobs in (2, 3, 4, 16):
        parts = model_parts(models, sizes, jobs)
        for bench, ms in models.items():  # consecutive parts that hold each benchmark's models once, in order
            assert [m for b, part in parts if b == bench for m in part] == ms
        big = [part for b, part in parts if b == "vl-checklist"]
        assert len(big) >= 2 * jobs and all(big), (jobs, [len(p) for p in big])  # spread over every worker
        assert [part for b, part in parts if b == "winoground"] == [models["winoground"]]  # small: one part
    assert model_parts({"a": [], "b": []}, {"a": 0, "b": 0}, 4) == [("a", []), ("b", [])]  # nothing to weigh
