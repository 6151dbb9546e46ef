"""The generated shapes benchmark, the shipped shapes CLIP, and the quickstart grid end to end."""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from vlc_harness.benchmarks import InstanceScores
from vlc_harness.errors import DataUnavailable, ScoreError
from vlc_harness.metrics.cell import declared_ids
from vlc_harness.params import ParamError, build
from vlc_harness_builtins.benchmarks.shapes import Shapes, ShapesParams
from vlc_harness_builtins.benchmarks.shapes_data import generate
from vlc_harness_builtins.benchmarks.shapes_model import (
    CONVERSE,
    MARKED_SIZES,
    NEGATIVE_KINDS,
    POSITIVE_KINDS,
    Picture,
    Scene,
    Style,
    caption,
    facts,
    valid,
)
from vlc_harness_builtins.benchmarks.shapes_scenes import (
    GRID,
    hard_positive,
    negative,
    random_picture,
    render,
    scene_rng,
)
from vlc_harness_builtins.testing.data_shapes import write_example

REPO = Path(__file__).resolve().parents[3]
N_CHECK = 300


def pictures(n: int = N_CHECK, namespace: str = "bench", seed: int = 0) -> list[Picture]:
    return [random_picture(namespace, seed, i) for i in range(n)]


def words(text: str) -> Counter[str]:
    """The bag of words (and commas) of a caption."""
    return Counter(re.findall(r"[a-z]+|,", text))


def shows(p: Picture) -> bool:
    """The layout puts objects in distinct cells, shows the relation, and keeps others off its line."""
    cells = [(s.col, s.row) for s in p.layout]
    if len(set(cells)) != len(cells) or len(cells) != len(p.scene.objects):
        return False
    if not all(0 <= c < GRID and 0 <= r < GRID for c, r in cells):
        return False
    rel = p.scene.relation
    if rel is None:
        return True
    (c0, r0), (c1, r1) = cells[0], cells[1]
    ok = {"left": r0 == r1 and c0 < c1, "right": r0 == r1 and c0 > c1}
    ok |= {"above": c0 == c1 and r0 < r1, "below": c0 == c1 and r0 > r1}
    if not ok[rel]:
        return False
    axis = 1 if rel in ("left", "right") else 0
    return all(cell[axis] != cells[0][axis] for cell in cells[2:])


def changed(a: Scene, b: Scene) -> list[tuple[int, str]]:
    """(object index, field) pairs that differ between two scenes with the same object count."""
    fields = ("shape", "colour", "size")
    return [
        (i, f) for i, (x, y) in enumerate(zip(a.objects, b.objects)) for f in fields if getattr(x, f) != getattr(y, f)
    ]


def check_declared(kind: str, a: Scene, b: Scene) -> None:
    """Assert that ``b`` is ``a`` changed in exactly the way ``kind`` declares (descriptions only)."""
    if kind == "add_obj":
        assert len(b.objects) == len(a.objects) + 1 and b.objects[:-1] == a.objects and b.relation == a.relation
        return
    assert len(b.objects) == len(a.objects)
    diff = changed(a, b)
    if kind == "replace_rel":
        assert diff == [] and None not in (a.relation, b.relation) and a.relation != b.relation
        return
    assert b.relation == a.relation
    if kind in ("replace_obj", "replace_att", "add_att"):
        assert len(diff) == 1
        (i, field) = diff[0]
        old, new = getattr(a.objects[i], field), getattr(b.objects[i], field)
        if kind == "replace_obj":
            assert field == "shape"
        elif kind == "replace_att":
            assert field == "colour" or (field == "size" and {old, new} == set(MARKED_SIZES))
        else:
            assert field == "size" and old == "medium" and new in MARKED_SIZES
    elif kind in ("swap_obj", "swap_att"):
        fields = {f for _, f in diff}
        assert len(fields) == 1 and {i for i, _ in diff} == {0, 1}
        (field,) = fields
        assert field == "shape" if kind == "swap_obj" else field in ("colour", "size")
        assert getattr(b.objects[0], field) == getattr(a.objects[1], field)
        assert getattr(b.objects[1], field) == getattr(a.objects[0], field)
    else:
        raise AssertionError(f"unknown kind {kind}")


def test_generator_is_deterministic_and_seeded():
    first, second = generate(0, 40), generate(0, 40)
    assert first.records == second.records and first.items == second.items
    assert first.digest(64) == second.digest(64) != first.digest(128)
    assert generate(1, 40).records != first.records
    assert generate(0, 40, namespace="train").records != first.records
    pic = first.pictures["00003.png"]
    assert render(pic, 48).tobytes() == render(pic, 48).tobytes()
    # scenes do not depend on how many are drawn
    assert generate(0, 10).records == first.records[:10]


def test_negatives_differ_exactly_as_declared():
    counts: Counter[str] = Counter()
    for index, pic in enumerate(pictures()):
        assert valid(pic.scene) and shows(pic)
        base = np.asarray(render(pic, 128), dtype=np.int16) if index < 100 else None
        for kind in NEGATIVE_KINDS:
            neg = negative(pic, kind, scene_rng("bench", 0, index, kind))
            if neg is None:
                continue
            counts[kind] += 1
            a, b = pic.scene, neg.picture.scene
            check_declared(kind, a, b)
            assert valid(b) and facts(a) != facts(b) and shows(neg.picture)
            assert neg.picture.style == pic.style and neg.picture.caption != pic.caption
            if kind.startswith("swap"):  # a swap keeps the caption's words, only their order changes
                assert words(neg.picture.caption) == words(pic.caption)
            if kind != "replace_rel":  # objects that stay are drawn where they were
                assert neg.picture.layout[: len(a.objects)] == pic.layout
            if base is not None:  # at the default 128 px, the edit is visible
                image = np.asarray(render(neg.picture, 128), dtype=np.int16)
                assert np.abs(image - base).max() >= 60, f"{kind}/{index}: the negative image looks the same"
    assert all(counts[k] >= N_CHECK // 3 for k in NEGATIVE_KINDS), counts


def test_hard_positives_keep_the_meaning_and_negatives_change_it():
    counts: Counter[str] = Counter()
    for index, pic in enumerate(pictures()):
        for kind in POSITIVE_KINDS:
            hp = hard_positive(pic, kind, scene_rng("bench", 0, index, kind))
            if hp is None:
                continue
            counts[kind] += 1
            assert hp.positive.scene == pic.scene and hp.positive.style != pic.style
            assert hp.positive.caption != pic.caption
            a, b = pic.scene, hp.negative.scene
            assert facts(a) != facts(b) and valid(b) and shows(hp.negative)
            assert hp.negative.style == pic.style
            if kind == "hp_replace_att":
                (i, field), *rest = changed(a, b)
                assert not rest and field == "size" and {a.objects[i].size, b.objects[i].size} == set(MARKED_SIZES)
            elif kind == "hp_replace_rel":
                assert b.objects == a.objects and b.relation == CONVERSE[a.relation]
            else:
                assert b.objects == (a.objects[1], a.objects[0], *a.objects[2:]) and b.relation == a.relation
                assert words(hp.negative.caption) == words(pic.caption)
    assert all(counts[k] >= N_CHECK // 2 for k in POSITIVE_KINDS), counts


def test_every_wording_of_a_scene_means_it_and_only_it():
    styles = [Style(s, r, c) for s in (0, 1) for r in (0, 1) for c in (False, True)]
    meaning_of: dict[str, tuple] = {}
    for pic in pictures(200):
        for style in styles:
            text = caption(pic.scene, style)
            assert meaning_of.setdefault(text, facts(pic.scene)) == facts(pic.scene), text
    left = Scene((pictures(1)[0].scene.objects[0], pictures(2)[1].scene.objects[0]), "left")
    assert facts(left) == facts(Scene(left.objects[::-1], "right"))


def test_benchmark_writes_its_data_once(tmp_path):
    params, root = write_example(tmp_path / "a", n_scenes=5, image_size=32)
    bench = Shapes(build(ShapesParams, params), root)
    assert bench.data_version == "gen1-seed0-n5-32px"
    folder = bench.image_dir()
    assert folder == root / "shapes" / "gen1-seed0-n5-32px"
    done = json.loads((folder / "done.json").read_text())
    stamp = (folder / "00000.png").stat().st_mtime_ns
    bench.check_data()  # present: nothing rewritten
    assert (folder / "00000.png").stat().st_mtime_ns == stamp
    # the same params elsewhere give the same bytes
    _, other = write_example(tmp_path / "b", n_scenes=5, image_size=32)
    for path in folder.iterdir():
        twin = other / "shapes" / folder.name / path.name
        assert hashlib.sha256(path.read_bytes()).digest() == hashlib.sha256(twin.read_bytes()).digest()
    # a missing image or a stale digest is regenerated
    (folder / "00001.png").unlink()
    (folder / "done.json").write_text(json.dumps(done | {"digest": "stale"}))
    assert not bench.data_source().ready()
    bench.check_data()
    assert bench.data_source().ready() and (folder / "00001.png").is_file()
    lines = (folder / "scenes.jsonl").read_text().splitlines()
    assert len(lines) == 5 and json.loads(lines[0])["caption"]


def test_unwritable_data_root_is_unavailable(tmp_path):
    (tmp_path / "blocker").write_text("a file where the data folder should be")
    bench = Shapes(build(ShapesParams, {"n_scenes": 2, "image_size": 32, "data_dir": "blocker/shapes"}), tmp_path)
    with pytest.raises(DataUnavailable, match="cannot write"):
        bench.check_data()


def test_params_are_checked():
    with pytest.raises(ParamError, match="n_scenes"):
        build(ShapesParams, {"n_scenes": 0})
    with pytest.raises(ParamError, match="image_size"):
        build(ShapesParams, {"image_size": 8})


def scored(instances, fill):
    out = []
    for inst in instances:
        m = np.full((len(inst.images), len(inst.texts)), np.nan)
        for i, j in inst.needed_pairs():
            m[i, j] = fill(inst, i, j)
        out.append(InstanceScores(inst, m))
    return out


def test_instances_and_metrics(tmp_path):
    params, root = write_example(tmp_path, n_scenes=12, image_size=32)
    bench = Shapes(build(ShapesParams, params), root)
    instances = bench.load_instances()
    kinds = Counter(i.category for i in instances)
    assert set(kinds) == set(NEGATIVE_KINDS) | set(POSITIVE_KINDS)
    for inst in instances:
        kind, index = inst.id.split("/")
        assert kind == inst.category and 0 <= int(index) < 12
        assert all(src.path.is_file() for src in inst.images)
        if kind in NEGATIVE_KINDS:
            assert len(inst.images) == 2 == len(inst.texts) and inst.images[0].path != inst.images[1].path
            assert inst.gold == {"matches": [[0, 0], [1, 1]]}
        else:
            assert len(inst.images) == 1 and len(inst.texts) == 3 and len(set(inst.texts)) == 3
    specs = {s.id: s for s in bench.metric_specs()}
    assert specs["group_score"].chance == pytest.approx(1 / 6) and specs["i2t_score"].chance == 0.25
    assert specs["aug_accuracy"].chance == pytest.approx(1 / 3) and not specs["brittleness"].higher_is_better

    def perfect(inst, i, j):
        if inst.category in NEGATIVE_KINDS:
            return 1.0 if i == j else 0.0
        return {0: 0.9, 1: 0.8, 2: 0.1}[j]

    values = {(v.metric, v.category): v for v in bench.compute(scored(instances, perfect))}
    for kind in NEGATIVE_KINDS:
        assert values[("group_score", kind)].value == 1.0 and values[("group_score", kind)].n == kinds[kind]
    for group in ("replace", "swap", "add", "all"):
        assert values[("group_score", group)].value == 1.0
    assert values[("group_score", "all")].n == sum(kinds[k] for k in NEGATIVE_KINDS)
    assert values[("aug_accuracy", "all")].value == 1.0 and values[("brittleness", "all")].value == 0.0
    assert values[("orig_accuracy", "all")].n == sum(kinds[k] for k in POSITIVE_KINDS)

    # image-blind scores: every caption-to-image comparison ties, and a tie is wrong
    def blind(inst, i, j):
        return float(j == 0)

    blind_values = {(v.metric, v.category): v for v in bench.compute(scored(instances, blind))}
    assert blind_values[("t2i_score", "all")].value == 0.0 and blind_values[("t2i_score", "all")].ties > 0
    assert blind_values[("group_score", "all")].value == 0.0

    with pytest.raises(ScoreError):
        bench.compute(scored(instances, lambda inst, i, j: float("nan")))


def test_parts_select_a_2x2_fixture(tmp_path):
    params, root = write_example(tmp_path, n_scenes=4, image_size=32, parts="2x2")
    bench = Shapes(build(ShapesParams, params), root)
    assert bench.data_version.endswith("-2x2")
    instances = bench.load_instances()
    assert instances and all(len(i.images) == 2 and len(i.texts) == 2 for i in instances)
    assert declared_ids(s.id for s in bench.metric_specs()) == {"i2t_score", "t2i_score", "group_score"}
    hp = Shapes(build(ShapesParams, params | {"parts": "hard-positives"}), root)
    assert hp.headline_metric() == "aug_accuracy" and all(len(i.texts) == 3 for i in hp.load_instances())
    assert hp.image_dir() == bench.image_dir()


def test_shipped_weights_are_small_and_recorded():
    from vlc_harness_builtins.models.shapes_clip import SHIPPED_WEIGHTS

    record = json.loads(SHIPPED_WEIGHTS.with_suffix(".json").read_text())
    assert SHIPPED_WEIGHTS.stat().st_size < 10 * 2**20
    assert record["sha256"] == hashlib.sha256(SHIPPED_WEIGHTS.read_bytes()).hexdigest()
    assert record["recipe"]["stream"] == "train" and record["recipe"]["seed"] == 0


def test_trained_model_beats_chance_on_replace(tmp_path):
    from vlc_harness import evaluate
    from vlc_harness.testing import require

    require("torch")
    bench = {"id": "shapes", "type": "shapes", "params": {"seed": 1, "n_scenes": 60}}
    store = f"sqlite:///{tmp_path / 'store.sqlite'}"
    trained = evaluate("shapes_clip:{}", [bench], data_root=tmp_path, store=store, executor="inprocess")
    rand = evaluate("random:seed=0", [bench], data_root=tmp_path, store=store, executor="inprocess")
    assert trained.cell("shapes").status == "ok" and rand.cell("shapes").status == "ok"
    for metric, chance in (("i2t_score", 0.25), ("t2i_score", 0.25), ("group_score", 1 / 6)):
        ours = trained.value("shapes", metric, "replace")
        assert ours > chance + 0.25, (metric, ours)
        assert ours > rand.value("shapes", metric, "replace") + 0.2


@pytest.mark.slow  # the whole quickstart grid: 30 s
def test_quickstart_grid_runs_offline(vlc_cli, tmp_path, monkeypatch):
    """The README's main command on a fresh offline machine: the demo is computed, the rest waits."""
    from vlc_harness.testing import require

    require("open_clip")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))  # an empty hub cache: nothing to find offline
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hf" / "hub"))
    store = f"sqlite:///{tmp_path / 'store.sqlite'}"
    registry = str(REPO / "examples" / "quickstart.yaml")
    ran = vlc_cli(
        "run",
        "--executor",
        "inprocess",
        "--all",
        "--registry",
        registry,
        "--store",
        store,
        "--data-root",
        str(tmp_path / "data"),
    )
    assert ran.exit_code == 0, ran.output
    shown = vlc_cli("show", "--partial", "--store", store, "--format", "json")
    cells = {(c["model"], c["benchmark"]): c for c in json.loads(shown.stdout)["cells"]}
    for model in ("random", "shapes-clip"):
        assert cells[(model, "shapes")]["status"] == "ok"
    real = cells[("openai-vit-b-32", "shapes")]
    assert real["status"] == "unavailable" and "Hugging Face" in real["error"], real
    assert {c["status"] for (m, b), c in cells.items() if b == "sugarcrepe"} == {"unavailable"}

    def headline(model):
        (value,) = [
            m["value"]
            for m in cells[(model, "shapes")]["metrics"]
            if m["metric"] == "group_score" and m["category"] == "all"
        ]
        return value

    assert headline("shapes-clip") > headline("random")
    table = vlc_cli("show", "--partial", "--store", store)
    assert table.exit_code == 0 and "shapes" in table.output
