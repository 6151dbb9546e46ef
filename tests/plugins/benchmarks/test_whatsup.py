"""What'sUp: the six upstream schemas, upstream's first-index argmax, the per-preposition tags,
unpinned data versions, the real-data structure and the board."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from tests.conftest import shared_data_dir
from vlc_harness.benchmarks import InstanceScores
from vlc_harness.errors import DataUnavailable
from vlc_harness.params import build
from vlc_harness_builtins.benchmarks.whatsup import CONTROLLED, FILES, SPATIAL, WhatsUp, preposition, write_example

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


def test_missing_files_name_their_google_drive_ids(root, tmp_path):
    (root / "whatsup" / FILES["gqa_two_obj"][0]).unlink()
    with pytest.raises(DataUnavailable, match=FILES["gqa_two_obj"][1]):
        bench(root).check_data()
    bench(root, version="custom").check_data()
    assert bench(root).data_version.startswith("gdrive-unpinned-")
    with pytest.raises(DataUnavailable, match="none of the six"):
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
