"""What'sUp: the six upstream schemas, upstream's first-index argmax, the per-preposition tags,
pair and set accuracy, unpinned data versions, the real-data structure and the board."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from tests.conftest import shared_data_dir
from vlc_harness.benchmarks import InstanceScores
from vlc_harness.errors import DataUnavailable
from vlc_harness.params import build
from vlc_harness_builtins.benchmarks.whatsup import (
    CONTROLLED,
    FILES,
    SPATIAL,
    WhatsUp,
    object_pair,
    opposite_pair,
    preposition,
)
from vlc_harness_builtins.testing.data_whatsup import write_example

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "whatsup_sample"


def bench(root: Path, **params) -> WhatsUp:
    return WhatsUp(build(WhatsUp.Params, params), root)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    data = tmp_path / "data"
    write_example(data)
    for name, _ in FILES.values():
        assert (data / "whatsup" / name).read_text() == (FIXTURE / "whatsup" / name).read_text()
    return data


def values(metrics) -> dict[tuple[str, str], object]:
    return {(m.metric, m.category): m for m in metrics}


def test_loads_the_six_schemas_correct_caption_first(root):
    b = bench(root, version="custom")
    b.check_data()
    instances = b.load_instances()
    assert Counter(i.category for i in instances) == {**dict.fromkeys(CONTROLLED, 8), **dict.fromkeys(SPATIAL, 2)}
    first = instances[0]
    assert first.id == "controlled_a/0" and len(first.texts) == 4 and first.texts[0] == "A mug on a plate"
    assert first.images[0].path == root / "whatsup" / "controlled_images" / "mug_on_plate.jpeg"
    coco = next(i for i in instances if i.category == "coco_one_obj")
    assert coco.images[0].path == root / "coco" / "val2017" / "000000000139.jpg" and len(coco.texts) == 2
    gqa = next(i for i in instances if i.category == "gqa_two_obj")
    assert gqa.images[0].path.parent == root / "whatsup" / "vg_images" and gqa.gold["preposition"] == "front"


def test_prepositions_as_upstream_derives_them():
    assert preposition("controlled_a", {"image_path": "data/controlled_images/mug_left_of_plate.jpeg"}) == "left_of"
    assert preposition("controlled_a", {"image_path": "data/controlled_images/mug_on_plate.jpeg"}) == "on"
    assert preposition("controlled_b", {"image_path": "x/cube_in-front_of_ball.jpeg"}) == "in-front_of"
    assert preposition("controlled_b", {"image_path": "x/cube_behind_ball.jpeg"}) == "behind"
    assert preposition("coco_one_obj", [1, "A dog on the left", "A dog on the right"]) == "left"
    assert preposition("coco_two_obj", [1, "A lamp below a bed", "A lamp above a bed"]) == "below"
    assert preposition("gqa_two_obj", [1, "A hat on top of a box", "A hat under a box"]) == "top"


def test_first_index_argmax_ties_count_right(root):
    b = bench(root, version="custom")
    instances = b.load_instances()

    def row(inst: object, k: int) -> list[float]:
        n = len(inst.texts)
        if k % 3 == 0:
            return [1.0] * n  # all tied: upstream's argmax returns index 0, the correct caption
        if k % 3 == 1:
            return [0.2] + [0.9] * (n - 1)  # a wrong caption wins
        return [0.9] + [0.1] * (n - 1)

    results = [InstanceScores(i, np.array([row(i, k)])) for k, i in enumerate(instances)]
    expected = [np.argmax(row(i, k)) == 0 for k, i in enumerate(instances)]
    got = values(b.compute(results))
    a = [e for e, i in zip(expected, instances) if i.category == "controlled_a"]
    assert got[("controlled_accuracy", "controlled_a")].value == pytest.approx(np.mean(a))
    assert got[("controlled_accuracy", "controlled_a")].tie_rule == "first-index"
    b_ = [e for e, i in zip(expected, instances) if i.category == "controlled_b"]
    assert got[("controlled_accuracy", "all")].value == pytest.approx((np.mean(a) + np.mean(b_)) / 2)
    coco = [e for e, i in zip(expected, instances) if i.category.startswith("coco")]
    assert got[("coco_spatial_accuracy", "all")].value == pytest.approx(np.mean(coco))  # equal sizes here
    assert ("spatial_accuracy", "controlled_a") not in got and ("controlled_accuracy", "coco_one_obj") not in got
    assert got[("controlled_accuracy", "controlled_a: on")].n == 2


RIGHT, WRONG, ALL_TIED, TIED_WITH_ONE = [0.9, 0.1, 0.1, 0.1], [0.2, 0.9, 0.1, 0.1], [1.0] * 4, [0.5, 0.5, 0.1, 0.1]
CONTROLLED_SCORES = {
    # controlled_a: mug on, under, left of, right of a plate; then book and box
    "controlled_a": [RIGHT, ALL_TIED, RIGHT, WRONG, WRONG, RIGHT, TIED_WITH_ONE, RIGHT],
    # controlled_b: mug in front of, behind, left of, right of a plate; then book and box
    "controlled_b": [RIGHT, RIGHT, RIGHT, RIGHT, RIGHT, WRONG, RIGHT, RIGHT],
}


def controlled_results(instances) -> list[InstanceScores]:
    k = Counter()
    out = []
    for inst in instances:
        if inst.category in CONTROLLED:
            row = CONTROLLED_SCORES[inst.category][k[inst.category]]
            k[inst.category] += 1
        else:
            row = [0.9, 0.1]
        out.append(InstanceScores(inst, np.array([row])))
    return out


def test_pair_and_set_accuracy_by_hand(root):
    b = bench(root, version="custom")
    instances = b.load_instances()
    assert [object_pair(i) for i in instances[:8]] == ["mug | plate"] * 4 + ["book | box"] * 4
    assert [opposite_pair(i) for i in instances[8:10]] == ["mug | plate | in-front/behind"] * 2
    assert object_pair(instances[-1]) is None and opposite_pair(instances[-1]) is None
    got = values(b.compute(controlled_results(instances)))
    # A: mug on/under right (under by a first-index tie), mug left/right wrong (right fails),
    # book on/under wrong (on fails), book left/right right (left by a first-index tie)
    pair_a = got[("controlled_pair_accuracy", "controlled_a")]
    assert (pair_a.value, pair_a.n, pair_a.ties, pair_a.tie_rule) == (0.5, 4, 2, "first-index")
    # at random: mug on/under 1 x 1/4, book left/right 1/2 x 1
    assert got[("controlled_pair_accuracy_ties_half", "controlled_a")].value == pytest.approx((1 / 4 + 1 / 2) / 4)
    set_a = got[("controlled_set_accuracy", "controlled_a")]
    assert (set_a.value, set_a.n, set_a.ties) == (0.0, 2, 2)  # one member of each set fails
    # B: only book behind fails, so book's in-front/behind pair and book's set
    assert got[("controlled_pair_accuracy", "controlled_b")].value == 0.75
    assert got[("controlled_set_accuracy", "controlled_b")].value == 0.5
    assert got[("controlled_accuracy", "controlled_a")].value == 0.75  # individual accuracy, unchanged
    assert not any(m == "controlled_pair_accuracy" and c not in CONTROLLED for m, c in got)


def upstream_pair_set(instances, rows, scored=None) -> dict[str, tuple[float, float]]:
    """Pair and set accuracy as upstream ``Controlled_Images.evaluate_scores`` defines them
    (dataset_zoo/aro_datasets.py at 7c1f255): verdicts by the file name's first and last ``_`` tokens,
    then its second, every member of every record's object pair starting at 0 (lines 395-398: a member
    never scored is wrong); over len/2 pairs and len/4 sets of the whole file (499-500). ``scored[k]``
    False: instance ``k`` has no verdict (its image was dropped)."""
    out = {}
    scored = [True] * len(instances) if scored is None else scored
    for subset in CONTROLLED:
        axes = (("left", "right"), ("on", "under") if subset == "controlled_a" else ("in-front", "behind"))
        verdicts: dict[tuple[str, str], dict[str, bool]] = {}
        mine = [(i, r, s) for i, r, s in zip(instances, rows, scored, strict=True) if i.category == subset]
        for inst, row, has in mine:
            tokens = inst.images[0].path.stem.split("_")
            verdict = verdicts.setdefault((tokens[0], tokens[-1]), {})
            if has:
                verdict[tokens[1]] = bool(np.argmax(row) == 0)
        pairs = sum(all(v.get(p, False) for p in axis) for v in verdicts.values() for axis in axes)
        sets = sum(sum(v.values()) == 4 for v in verdicts.values())
        out[subset] = (pairs / (len(mine) / 2), sets / (len(mine) / 4))
    return out


def test_pair_and_set_accuracy_match_upstream_on_tie_heavy_scores(tmp_path):
    write_example(tmp_path, pairs=3)
    b = bench(tmp_path, version="custom")
    instances = b.load_instances()
    rng = np.random.default_rng(7)
    for _ in range(20):
        rows = [np.round(rng.random(len(i.texts)), 1) for i in instances]  # a tenth's grid: many ties
        got = values(b.compute([InstanceScores(i, r[None, :]) for i, r in zip(instances, rows)]))
        for subset, (pair, set_) in upstream_pair_set(instances, rows).items():
            assert got[("controlled_pair_accuracy", subset)].value == pytest.approx(pair)
            assert got[("controlled_set_accuracy", subset)].value == pytest.approx(set_)


def test_a_missing_member_counts_wrong_over_upstreams_denominators(tmp_path):
    """Three images of a subset dropped (one per object pair): their pairs and sets count as wrong, over
    the denominators of the whole file, as upstream's; metrics version 2 left those groups out."""
    write_example(tmp_path, pairs=3)
    b = bench(tmp_path, version="custom")
    instances = b.load_instances()
    rng = np.random.default_rng(11)
    for _ in range(20):
        rows = [np.round(rng.random(len(i.texts)), 1) for i in instances]
        scored = [True] * len(instances)
        for subset in CONTROLLED:
            mine = [k for k, i in enumerate(instances) if i.category == subset]
            for set_ in range(3):  # one member of each object pair's set of 4
                scored[mine[4 * set_ + int(rng.integers(4))]] = False
        kept = [InstanceScores(i, r[None, :]) for i, r, s in zip(instances, rows, scored) if s]
        got = values(b.compute(kept))
        for subset, (pair, set_) in upstream_pair_set(instances, rows, scored).items():
            assert got[("controlled_pair_accuracy", subset)].value == pytest.approx(pair)
            assert got[("controlled_set_accuracy", subset)].value == pytest.approx(set_)
            assert got[("controlled_set_accuracy", subset)].value == 0.0  # every set lost a member


def test_missing_files_name_their_google_drive_ids(root, tmp_path):
    (root / "whatsup" / FILES["gqa_two_obj"][0]).unlink()
    with pytest.raises(DataUnavailable, match=FILES["gqa_two_obj"][1]):
        bench(root).check_data()
    bench(root, version="custom").check_data()
    assert bench(root).data_version.startswith("gdrive-unpinned-")
    with pytest.raises(DataUnavailable, match="not ready: missing .*controlled_images_dataset.json"):
        bench(tmp_path / "empty", version="custom").check_data()


def test_real_controlled_subsets_have_four_prepositions_per_object_pair():
    shared = shared_data_dir()
    folder = shared / "whatsup" if shared else None
    if folder is None or not all((folder / name).is_file() for name, _ in FILES.values()):
        pytest.skip("What'sUp's annotation files (Google Drive) are not in ../shared/data")
    b = bench(shared)
    b.check_data()
    instances = b.load_instances()
    for subset in CONTROLLED:
        mine = [i for i in instances if i.category == subset]
        assert len(mine) % 4 == 0 and all(len(i.texts) == 4 for i in mine)
        counts = Counter(i.gold["preposition"] for i in mine)
        assert len(counts) == 4 and len(set(counts.values())) == 1  # balanced, as upstream's pair/set accuracy needs
        sets, pairs = Counter(object_pair(i) for i in mine), Counter(opposite_pair(i) for i in mine)
        assert set(sets.values()) == {4} and set(pairs.values()) == {2}  # every group complete: none left out
    assert all(len(i.texts) == 2 for i in instances if i.category in SPATIAL)


def test_board_renders_whatsup(vlc_run, tmp_path, root):
    registry = tmp_path / "registry.yaml"
    registry.write_text(
        "models:\n  - {id: random, type: random, params: {seed: 1}, meta: {display_name: Random, family: baseline}}\n"
        "benchmarks:\n  - {id: whatsup, type: whatsup, params: {version: custom}}\n"
    )
    ran = vlc_run("--all", "--registry", str(registry), data_root=root)
    assert ran.exit_code == 0, ran.output
    assert "controlled_accuracy=" in ran.output
    out = tmp_path / "site"
    assert vlc_run.cli("render", "--out", str(out), "--registry", str(registry)).exit_code == 0
    page = (out / "benchmarks" / "whatsup.html").read_text()
    assert "What" in page and "coco_spatial_accuracy" in page


def test_fetch_downloads_the_annotation_files_unpinned(tmp_path, monkeypatch, root):
    import vlc_harness.datafetch

    urls: list[str] = []

    def download(url, dest, sha256=None, progress=True):
        assert sha256 is None  # unpinned: no published checksum
        urls.append(url)
        name = Path(dest).name
        Path(dest).parent.mkdir(parents=True, exist_ok=True)
        Path(dest).write_bytes((root / "whatsup" / name).read_bytes())
        return str(dest)

    monkeypatch.setattr(vlc_harness.datafetch, "download", download)
    target = tmp_path / "fetched"
    lines = bench(target).fetch(progress=False)
    assert len(urls) == 6 and all(gid in url for url, (_, gid) in zip(urls, FILES.values()))
    assert all(line.startswith("fetched") for line in lines)
    assert all(line.startswith("present") for line in bench(target).fetch(progress=False)) and len(urls) == 6
    assert bench(target).data_version == bench(root).data_version


def test_chance_rows_are_the_declared_chance_levels(root):
    b = bench(root, version="custom")
    chance = {s.id: s.chance for s in b.metric_specs()}
    rows = [r for r in b.reference_rows() if r.matches == "chance"]
    individual = {"controlled_accuracy", "spatial_accuracy", "coco_spatial_accuracy", "gqa_spatial_accuracy"}
    assert {r.metric for r in rows} == individual | {"controlled_pair_accuracy", "controlled_set_accuracy"}
    assert all(r.value == chance[r.metric] for r in rows)  # 1/4, 1/2, (1/4)^2 and (1/4)^4 are exact
