"""EqBen: EqBen-Mini's schema, YouCook2 .npy frames converted losslessly, the full per-subset formats,
Winoground scores with strict ties, unpinned data versions, the real-data count and the board."""

from __future__ import annotations

import json
from itertools import permutations
from pathlib import Path

import numpy as np
import pytest

from tests.conftest import shared_data_dir
from vlc_harness.benchmarks import InstanceScores
from vlc_harness.datafetch import FetchError
from vlc_harness.errors import DataUnavailable, InputError
from vlc_harness.params import build
from vlc_harness_builtins.benchmarks.eqben import MINI_DIR, MINI_FILE, N_MINI, SUBSETS, EqBen, full_subset_records
from vlc_harness_builtins.testing.data_eqben import write_example

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "eqben_sample"


def bench(root: Path, **params) -> EqBen:
    return EqBen(build(EqBen.Params, params), root)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    data = tmp_path / "data"
    write_example(data, per_subset=2)
    rel = Path("eqben") / MINI_DIR / MINI_FILE
    assert (data / rel).read_text() == (FIXTURE / rel).read_text()
    return data


def values(metrics) -> dict[tuple[str, str], object]:
    return {(m.metric, m.category): m for m in metrics}


def test_mini_schema_subsets_and_npy_frames(root):
    b = bench(root, version="custom")
    b.check_data()
    instances = b.load_instances()
    assert len(instances) == 14 and {i.category for i in instances} == set(SUBSETS)
    cook = next(i for i in instances if i.category == "eqbenyoucook2")
    assert cook.id == "eqbenyoucook2/0" and [p.path.suffix for p in cook.images] == [".png", ".png"]
    # the PNG holds the .npy frame's pixels in RGB order, as upstream's image_loader decodes it
    from PIL import Image

    bgr = np.load(cook.images[0].path.with_suffix(".npy"))
    assert np.array_equal(np.asarray(Image.open(cook.images[0].path)), bgr[:, :, [2, 1, 0]])
    bench(root, version="mini").check_data()  # the mini size (280) is checked by the count test only


def test_unconverted_frames_and_missing_data_say_what_to_do(root, tmp_path):
    cook = root / "eqben" / MINI_DIR / "images" / "eqbenyoucook2" / "clip0" / "frame_0.png"
    cook.unlink()
    with pytest.raises(DataUnavailable, match="fetch -b eqben"):
        bench(root, version="custom").check_data()
    lines = bench(root, version="custom").fetch(progress=False)
    assert "1 .npy frames converted" in lines[0] and cook.is_file()
    bench(root, version="custom").check_data()
    with pytest.raises(DataUnavailable, match="11YUTf06uzRHtFV8rYi96z4vTPi8_GNEM"):
        bench(tmp_path / "empty").check_data()
    with pytest.raises(FetchError, match="not downloadable"):
        bench(tmp_path / "empty").fetch(progress=False)
    assert bench(root).data_version.startswith("mini-") and bench(tmp_path).data_version != bench(root).data_version


def scores_for(booleans: tuple[bool, bool, bool, bool]) -> np.ndarray:
    """scores[image, caption] giving (image0, image1, caption0, caption1) comparisons."""
    for p in permutations(range(4)):
        s = np.array(p, dtype=float).reshape(2, 2)
        if (s[0, 0] > s[0, 1], s[1, 1] > s[1, 0], s[0, 0] > s[1, 0], s[1, 1] > s[0, 1]) == booleans:
            return s
    raise AssertionError(booleans)


def test_winoground_scores_per_subset_kubric_group_and_all(root):
    b = bench(root, version="custom")
    instances = b.load_instances()
    patterns = [(True, True, True, True), (True, True, False, True), (False, True, True, True)]
    results = [InstanceScores(inst, scores_for(patterns[k % 3])) for k, inst in enumerate(instances)]
    got = values(b.compute(results))
    text = np.mean([p[0] and p[1] for p in (patterns[k % 3] for k in range(14))])
    assert got[("text_score", "all")].value == pytest.approx(text)
    assert got[("group_score", "eqbenk")].n == 6 and ("group_score", "eqbensd") in got
    tied = values(b.compute([InstanceScores(i, np.ones((2, 2))) for i in instances]))
    assert tied[("group_score", "all")].value == 0 and tied[("group_score", "all")].ties == 14
    assert tied[("image_score", "all")].tie_rule == "wrong"


def test_full_format_reads_each_subset_schema_as_upstream(tmp_path):
    frame = {"image0": "a.png", "image1": "b.png"}
    ag = {"video1": {"subject1": [{**frame, "caption0": ["first", "second"], "caption1": ["other", "x"]}]}}
    assert full_subset_records("eqbenag", ag, "ag")[0]["caption0"] == "first"  # the first caption only
    video = {"v": [{**frame, "caption0": "c0", "caption1": "c1"}] * 2}
    assert len(full_subset_records("eqbenyoucook2", video, "yc")) == 2
    assert len(full_subset_records("eqbensd", [{**frame, "caption0": "c0", "caption1": "c1"}], "sd")) == 1
    full = tmp_path / "eqben" / "full"
    full.mkdir(parents=True)
    (full / "eqbenag.json").write_text(json.dumps(ag))
    (full / "eqbensd.json").write_text(json.dumps([{**frame, "caption0": "c0", "caption1": "c1"}]))
    b = bench(tmp_path, version="full")
    b.check_data()
    assert [i.id for i in b.load_instances()] == ["eqbenag/0", "eqbensd/0"]
    assert b.data_version.startswith("full-")
    (full / "eqbensd.json").write_text(json.dumps([{"image0": "a.png"}]))
    with pytest.raises(InputError, match="eqbensd.json, item 0, field 'image1'"):
        bench(tmp_path, version="full").check_data()


def test_real_mini_has_280_examples():
    shared = shared_data_dir()
    if shared is None or not (shared / "eqben" / MINI_DIR / MINI_FILE).is_file():
        pytest.skip("EqBen-Mini (eqben_vllm/all_select.json, Google Drive) is not in ../shared/data")
    b = bench(shared)
    b.check_data()
    assert len(b.load_instances()) == N_MINI


def test_board_renders_eqben_with_its_gap(vlc_run, tmp_path, root):
    registry = tmp_path / "registry.yaml"
    registry.write_text(
        "models:\n  - {id: random, type: random, params: {seed: 1}, meta: {display_name: Random, family: baseline}}\n"
        "benchmarks:\n  - {id: eqben-mini, type: eqben, params: {version: custom}}\n"
    )
    ran = vlc_run("--all", "--registry", str(registry), data_root=root)
    assert ran.exit_code == 0, ran.output
    out = tmp_path / "site"
    assert vlc_run.cli("render", "--out", str(out), "--registry", str(registry)).exit_code == 0
    assert "EqBen" in (out / "benchmarks" / "eqben-mini.html").read_text()
    assert 'class="num gap' in (out / "index.html").read_text()


def test_chance_rows_are_the_declared_chance_levels(root):
    b = bench(root, version="custom")
    chance = {s.id: s.chance for s in b.metric_specs()}
    rows = [r for r in b.reference_rows() if r.matches == "chance"]
    assert {r.metric for r in rows} == {"text_score", "image_score", "group_score"}
    assert all(abs(r.value - chance[r.metric]) < 5e-5 for r in rows)  # printed to four decimals
