"""BiVLC: the real files in ../shared/data (counts, COCO join, golden reproduction of the paper's
CLIP rows), the I2T-only mode, the Hugging Face export (with a stand-in ``datasets``) and an
end-to-end run of the tiny open_clip model on generated stand-in data."""

from __future__ import annotations

import csv
import json
import shutil
import sys
from collections import Counter
from itertools import permutations
from pathlib import Path

import numpy as np
import pytest

from tests.plugins.benchmarks.hf_standins import StandInSplit, stand_in_datasets
from vlc_harness.benchmarks import InstanceScores
from vlc_harness.datafetch import FetchError
from vlc_harness.errors import DataUnavailable
from vlc_harness.metrics.cell import declared_ids
from vlc_harness.params import build
from vlc_harness_builtins.benchmarks.bivlc import I2T_ONLY_METRIC, ROWS_FILE, SOURCES_FILE, BiVLC, coco_filenames
from vlc_harness_builtins.testing.data_bivlc import write_example

REFERENCE = BiVLC.references  # the card's rows
COUNTS = {
    "replace_obj": 1200,
    "replace_rel": 462,
    "replace_att": 437,
    "add_obj": 399,
    "swap_att": 278,
    "swap_obj": 81,
    "add_att": 76,
}
# CLIP ViT-B-32 per subset, recomputed from the authors' per-instance CSV (digest bivlc_hardpos.md,
# "[repo+derived] Finer per-type/subtype breakdown"; not in the paper): I2T, T2I, group, four directions
CLIP_SUBSETS = {
    "replace_obj": (92.00, 76.25, 73.42, 93.75, 98.17, 84.33, 91.83),
    "replace_att": (77.80, 47.83, 45.31, 85.13, 91.08, 68.42, 78.95),
    "replace_rel": (60.39, 30.95, 26.62, 79.22, 78.14, 54.55, 75.54),
    "swap_obj": (45.68, 12.35, 9.88, 66.67, 69.14, 50.62, 61.73),
    "swap_att": (46.76, 17.27, 14.75, 65.83, 73.38, 41.37, 74.82),
    "add_obj": (74.69, 48.37, 42.86, 80.70, 92.73, 67.92, 80.20),
    "add_att": (47.37, 25.00, 22.37, 67.11, 76.32, 52.63, 72.37),
    "replace": (82.09, 60.36, 57.27, 88.76, 92.28, 74.46, 85.56),
    "swap": (46.52, 16.16, 13.65, 66.02, 72.42, 43.45, 71.87),
    "add": (70.32, 44.63, 39.58, 78.53, 90.11, 65.47, 78.95),
}
FULL = ("i2t_score", "t2i_score", "group_score", "i_pos2t", "i_neg2t", "t_pos2i", "t_neg2i")


def bench(root: Path, **params) -> BiVLC:
    return BiVLC(build(BiVLC.Params, params), root)


def read_csv(path: Path) -> list[dict[str, str]]:
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


@pytest.fixture(scope="module")
def real_root(shared_data: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("bivlc_real")
    (root / "bivlc").symlink_to(shared_data / "bivlc")
    return root


def scores_for(booleans: tuple[bool, bool, bool, bool]) -> np.ndarray:
    """A 2x2 matrix (scores[image, caption]) whose four comparisons give these outcomes:
    (s00 > s01, s11 > s10, s00 > s10, s11 > s01) = (I_pos2T, I_neg2T, T_pos2I, T_neg2I)."""
    for p in permutations(range(4)):
        s = np.array(p, dtype=float).reshape(2, 2)
        if (s[0, 0] > s[0, 1], s[1, 1] > s[1, 0], s[0, 0] > s[1, 0], s[1, 1] > s[0, 1]) == booleans:
            return s
    raise AssertionError(f"no strict ordering gives {booleans}")


# -- the real files ------------------------------------------------------------------------------


def test_real_file_counts_match_the_data_readme(shared_data, real_root):
    rows = read_csv(shared_data / "bivlc" / ROWS_FILE)
    assert len(rows) == 2933
    assert len(read_csv(shared_data / "bivlc" / SOURCES_FILE)) == 7512
    assert len(read_csv(shared_data / "bivlc" / "test_SugarCrepe.csv")) == 7512
    assert len(read_csv(shared_data / "bivlc" / "bivlc_test_derived_coco_mapping.csv")) == 2933
    b = bench(real_root, mode="i2t-only")
    b.check_data()  # both CSVs match their pinned sha256
    instances = b.load_instances()
    assert len(instances) == 2933 and 4 * len(instances) == 11732  # the paper's retrieval examples
    assert Counter(i.category for i in instances) == COUNTS
    assert len({i.images[0].path.name for i in instances}) == 1161


def test_coco_join_equals_the_derived_mapping(shared_data):
    rows = read_csv(shared_data / "bivlc" / ROWS_FILE)
    names = coco_filenames(rows, read_csv(shared_data / "bivlc" / SOURCES_FILE))
    mapping = read_csv(shared_data / "bivlc" / "bivlc_test_derived_coco_mapping.csv")
    assert names == [m["coco_val2017_filename"] for m in mapping]
    # rows 818 and 830 share their captions (two SugarCrepe cases); the order tells them apart
    assert (names[818], names[830]) == ("000000343218.jpg", "000000372577.jpg")


def test_join_uses_order_for_twin_captions_and_fails_loudly():
    def case(name, caption):
        return {"filename": name, "caption": caption, "negative_caption": "neg", "type": "add", "subtype": "obj"}

    sources = [case("a.jpg", "Twin."), case("b.jpg", "other"), case("c.jpg", "twin")]
    rows = [case("", "Twin"), case("", "Other!"), case("", "TWIN.")]
    assert coco_filenames(rows, sources) == ["a.jpg", "b.jpg", "c.jpg"]
    with pytest.raises(ValueError, match="row 2"):
        coco_filenames([case("", "twin"), case("", "twin"), case("", "twin")], sources)


def test_golden_clip_rows_of_tables_3_and_4(shared_data, real_root):
    """The authors' per-instance CLIP ViT-B-32 outcomes, turned back into scores, give the paper's
    numbers through compute() to within 0.005 percentage points."""
    rows = read_csv(shared_data / "bivlc" / ROWS_FILE)
    b = bench(real_root)
    instances = b.load_instances()
    results = []
    for inst, row in zip(instances, rows):
        keys = ("text_score_i0", "text_score_i1", "image_score_c0", "image_score_c1")
        booleans = tuple(row[k] == "True" for k in keys)
        scores = scores_for(booleans)
        assert (row["text_score"] == "True") == (booleans[0] and booleans[1])
        assert (row["group_score"] == "True") == all(booleans)
        results.append(InstanceScores(inst, scores))
    values = {(v.metric, v.category): v for v in b.compute(results)}
    clip = [r for r in REFERENCE if r.source == "CLIP" and r.metric in FULL]
    assert len(clip) == 7 + 9  # Table 3 (all) and Table 4 (replace, swap, add x I2T, T2I, group)
    for ref in clip:
        ours = values[(ref.metric, ref.category)]
        assert abs(100 * ours.value - 100 * ref.value) <= 0.005 + 1e-9, (ref, ours)
        assert ours.ties == 0 and ours.tie_rule == "wrong"
    for category, expected in CLIP_SUBSETS.items():
        for metric, pct in zip(FULL, expected):
            assert abs(100 * values[(metric, category)].value - pct) <= 0.005 + 1e-9, (metric, category)
    assert values[("group_score", "all")].n == 2933 and values[("group_score", "swap")].n == 359
    assert values[("group_score", "replace")].n == 2099 and values[("group_score", "add")].n == 475

    # I2T-only mode: the natural image alone reproduces Table 3's I_pos2T (84.32)
    only = bench(real_root, mode="i2t-only")
    by_id = {r.instance.id: r.scores for r in results}
    only_results = [InstanceScores(i, by_id[i.id][:1]) for i in only.load_instances()]
    only_values = {(v.metric, v.category): v for v in only.compute(only_results)}
    assert declared_ids(m for m, _ in only_values) == {I2T_ONLY_METRIC}
    (ref,) = [r for r in only.reference_rows() if r.source == "CLIP"]
    assert ref.data_version == only.data_version == "test-2933-i2t-only"
    assert abs(only_values[(I2T_ONLY_METRIC, "all")].value - ref.value) <= 0.00005 + 1e-12


def test_missing_altered_and_imageless_data_name_what_to_get(shared_data, tmp_path):
    root = tmp_path / "root"
    shutil.copytree(shared_data / "bivlc", root / "bivlc")
    b = bench(root)
    with pytest.raises(DataUnavailable, match="2933 of 2933 negative images are missing.*mode=i2t-only"):
        b.check_data()
    (root / "bivlc" / SOURCES_FILE).unlink()
    with pytest.raises(DataUnavailable) as info:
        bench(root, mode="i2t-only").check_data()
    assert SOURCES_FILE in str(info.value) and "raw.githubusercontent.com/IMirandaM/BiVLC" in str(info.value)
    shutil.copy(shared_data / "bivlc" / SOURCES_FILE, root / "bivlc" / SOURCES_FILE)
    rows = (root / "bivlc" / ROWS_FILE).read_text(encoding="utf-8")
    (root / "bivlc" / ROWS_FILE).write_text(rows.replace("A man", "One man", 1), encoding="utf-8")
    with pytest.raises(DataUnavailable, match=f"{ROWS_FILE} has sha256"):
        bench(root, mode="i2t-only").check_data()


# -- modes, references ---------------------------------------------------------------------------


def test_modes_never_mix(tmp_path):
    full, only = bench(tmp_path), bench(tmp_path, mode="i2t-only")
    assert (full.data_version, only.data_version) == ("test-2933", "test-2933-i2t-only")
    full_ids = declared_ids(s.id for s in full.metric_specs())
    only_ids = declared_ids(s.id for s in only.metric_specs())
    assert full_ids == set(FULL) and only_ids == {I2T_ONLY_METRIC}
    assert BiVLC.headline in full_ids
    assert {r.metric for r in only.reference_rows()} == {I2T_ONLY_METRIC}
    assert {r.data_version for r in only.reference_rows()} == {"test-2933-i2t-only"}
    assert {r.data_version for r in full.reference_rows()} == {"test-2933"}
    specs = {s.id: s for s in full.metric_specs()}
    assert specs["group_score"].chance == pytest.approx(1 / 6) and specs["i2t_score"].chance == 0.25
    assert specs["t_neg2i"].direction == "t2i" and specs["i_neg2t"].chance == 0.5


def test_reference_rows_are_fractions_with_citations():
    rows = REFERENCE
    assert len(rows) == 147
    assert all(0 <= r.value <= 1 and r.citation and r.table and r.matches for r in rows)
    human = {r.metric: r.value for r in rows if r.source == "Human"}
    assert human == {"i2t_score": 0.904, "t2i_score": 0.93, "group_score": 0.868}
    keys = [(r.source, r.metric, r.category, r.data_version) for r in rows]
    assert len(set(keys)) == len(keys)


def test_i2t_only_ties_and_nan(tmp_path):
    write_example(tmp_path, per_subset=1, with_negative_images=False)
    b = bench(tmp_path, version="custom", mode="i2t-only")
    b.check_data()  # no negative images needed
    instances = b.load_instances()
    assert all(len(i.images) == 1 and i.gold == {"positive": 0} for i in instances)
    values = b.compute([InstanceScores(i, np.array([[0.4, 0.4]])) for i in instances])
    overall = next(v for v in values if v.category == "all")
    assert overall.value == 0.0 and overall.ties == 7
    from vlc_harness.errors import ScoreError

    with pytest.raises(ScoreError):
        b.compute([InstanceScores(i, np.array([[np.nan, 0.1]])) for i in instances])


# -- fetch from Hugging Face (stand-in datasets module; no network) -----------------------------


def test_fetch_exports_negative_images_and_checks_alignment(shared_data, tmp_path, monkeypatch):
    root = tmp_path / "root"
    (root / "bivlc").mkdir(parents=True)
    for name in (ROWS_FILE, SOURCES_FILE):  # pinned files present: nothing is downloaded
        shutil.copy(shared_data / "bivlc" / name, root / "bivlc" / name)
    rows = read_csv(root / "bivlc" / ROWS_FILE)
    records = [
        {
            "caption": r["caption"],
            "negative_caption": r["negative_caption"],
            "type": r["type"],
            "subtype": r["subtype"],
            "image": {"bytes": b"\xff\xd8\xffpositive", "path": None},
            "negative_image": {"bytes": b"\xff\xd8\xff" + str(k).encode(), "path": None},
        }
        for k, r in enumerate(rows)
    ]
    calls: list = []
    monkeypatch.setitem(
        sys.modules,
        "datasets",
        stand_in_datasets(load_dataset=lambda name, split: calls.append((name, split)) or StandInSplit(records)),
    )
    lines = bench(root).fetch(progress=False)
    assert calls == [("imirandam/BiVLC", "test")]
    assert any("fetched" in line and "2933 negative images" in line for line in lines)
    assert (root / "bivlc" / "negative_images" / "17.jpg").read_bytes() == b"\xff\xd8\xff17"
    bench(root).check_data()
    assert any(line.startswith("present") for line in bench(root).fetch(progress=False))
    assert len(calls) == 1  # nothing downloaded the second time

    (root / "bivlc" / "negative_images" / "5.jpg").unlink()
    records[5] = dict(records[5], caption="something else")
    with pytest.raises(FetchError, match="row 5 has caption"):
        bench(root).fetch(progress=False)


def test_fetch_without_datasets_says_what_to_install(shared_data, tmp_path, monkeypatch):
    root = tmp_path / "root"
    (root / "bivlc").mkdir(parents=True)
    for name in (ROWS_FILE, SOURCES_FILE):
        shutil.copy(shared_data / "bivlc" / name, root / "bivlc" / name)
    monkeypatch.setitem(sys.modules, "datasets", None)
    with pytest.raises(FetchError, match=r"pip install 'vlc-harness\[data\]'"):
        bench(root).fetch(progress=False)
    assert all(line.startswith("present") for line in bench(root, mode="i2t-only").fetch(progress=False))


# -- end to end ----------------------------------------------------------------------------------


def test_tiny_openclip_end_to_end_full_and_i2t_only(vlc_run, tmp_path, tiny_spec):
    root = tmp_path / "data"
    write_example(root, per_subset=2)
    both = ["-b", "bivlc:version=custom", "-b", "bivlc:version=custom,mode=i2t-only"]
    ran = vlc_run("-m", tiny_spec, *both, data_root=root)
    assert ran.exit_code == 0, ran.output
    assert "group_score=" in ran.output

    store = vlc_run.store()
    cells = {c.data_version: c for c in store.latest_cells()}
    assert len(cells) == 2
    (full_version,) = [v for v in cells if not v.endswith("-i2t-only")]
    only_cell, full_cell = cells[f"{full_version}-i2t-only"], cells[full_version]
    assert full_cell.status == "ok" and full_cell.complete and full_cell.n_scored == 14
    assert only_cell.status == "ok" and only_cell.complete and only_cell.n_scored == 14
    full_metrics = {(m["metric"], m["category"]): m for m in full_cell.metrics}
    only_metrics = {(m["metric"], m["category"]): m for m in only_cell.metrics}
    assert declared_ids(m for m, _ in full_metrics) == set(FULL)
    assert declared_ids(m for m, _ in only_metrics) == {I2T_ONLY_METRIC}
    assert full_metrics[("group_score", "all")]["n"] == 14 and full_metrics[("t2i_score", "swap")]["n"] == 4
    assert full_metrics[("i_pos2t", "all")]["tie_rule"] == "wrong"
    # the natural image's comparison is the same in both modes (scores are cached and shared)
    assert only_metrics[(I2T_ONLY_METRIC, "all")]["value"] == full_metrics[("i_pos2t", "all")]["value"]

    shown = json.loads(vlc_run.cli("show", "--format", "json").stdout)
    assert len(shown["cells"]) == 2
