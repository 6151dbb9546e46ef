"""Hard positives: metrics against every ordering of 3 scores, the real REPLACE files, SWAP fixtures, end to end."""

from __future__ import annotations

import itertools
import json
import shutil
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from vlc_harness.benchmarks import InstanceScores
from vlc_harness.errors import DataUnavailable, ScoreError
from vlc_harness.metrics.outcomes import outcomes_from_matrices
from vlc_harness.params import build
from vlc_harness.testing import write_standin_images
from vlc_harness.types import ImageSource, Instance
from vlc_harness_builtins.benchmarks.hard_positives import HardPositives
from vlc_harness_builtins.testing.data_hard_positives import write_example

SWAP_FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "hard_positives_swap_sample"
README_COUNTS = {"replace_att": 10575, "replace_rel": 16868}
README_IMAGES = {"replace_att": 4947, "replace_rel": 6776}


def bench(root: Path, **params) -> HardPositives:
    return HardPositives(build(HardPositives.Params, params), root)


def values(metrics) -> dict[tuple[str, str], object]:
    return {(m.metric, m.category): m for m in metrics}


# ---------------------------------------------------------------------------------------------
# Metrics against a brute-force enumeration of orderings


def oracle(c: float, p: float, n: float) -> dict[str, bool]:
    """The paper's definitions, read off the ranking of (c, c_p, c_n) with ties as equal ranks."""
    above = {name: score > n for name, score in (("c", c), ("p", p))}
    below = {name: score < n for name, score in (("c", c), ("p", p))}
    return {
        "orig": above["c"],
        "aug": above["c"] and above["p"],
        # c_n strictly between the two positives: one strictly above it, the other strictly below
        "brittle": (above["c"] and below["p"]) or (above["p"] and below["c"]),
        "tie": c == n or p == n,
        "orig_tie": c == n,
    }


ASSIGNMENTS = list(itertools.product((0.0, 1.0, 2.0), repeat=3))


def test_every_weak_ordering_of_three_scores():
    # 27 assignments cover all 13 weak orderings of 3 items (6 strict, 6 with one tie, 1 all tied)
    weak = {tuple(sum(b < a for b in scores) for a in scores) for scores in ASSIGNMENTS}
    assert len(weak) == 13
    outcomes = outcomes_from_matrices(
        [r.instance for r in instances_for("swap", ASSIGNMENTS)], [np.array([a]) for a in ASSIGNMENTS]
    )
    columns = {c.metric: c for f in bench(Path("."), version="custom").metric_families() for c in f.columns(outcomes)}
    got = {
        "orig": columns["orig_accuracy"].credit,
        "aug": columns["aug_accuracy"].credit,
        "brittle": columns["brittleness"].credit,
        "tie": columns["aug_accuracy"].ties,
        "orig_tie": columns["orig_accuracy"].ties,
    }
    for k, (ck, pk, nk) in enumerate(ASSIGNMENTS):
        expected = oracle(ck, pk, nk)
        assert {key: bool(got[key][k]) for key in expected} == expected, (ck, pk, nk)
    # strict orderings only: brittle in exactly 2 of the 6 (c > n > p and p > n > c), aug in 2, orig in 3
    strict = [a for a in ASSIGNMENTS if len(set(a)) == 3]
    assert len(strict) == 6
    assert sum(oracle(*a)["brittle"] for a in strict) == 2 and sum(oracle(*a)["aug"] for a in strict) == 2
    assert sum(oracle(*a)["orig"] for a in strict) == 3


def instances_for(category: str, assignments) -> list[InstanceScores]:
    out = []
    for k, (c, p, n) in enumerate(assignments):
        inst = Instance(
            f"{category}/{k}",
            category,
            (ImageSource(Path("x.jpg")),),
            ("c", "cp", "cn"),
            {"original": 0, "positive": 1, "negative": 2},
        )
        out.append(InstanceScores(inst, np.array([[c, p, n]])))
    return out


def test_compute_pools_categories_then_takes_the_paper_means():
    b = bench(Path("."), version="custom")
    strict = [a for a in ASSIGNMENTS if len(set(a)) == 3]
    results = instances_for("replace_att", ASSIGNMENTS) + instances_for("replace_rel", strict)
    results += instances_for("swap", ASSIGNMENTS[:9])
    got = values(b.compute(results))
    for category, assignments in (("replace_att", ASSIGNMENTS), ("replace_rel", strict), ("swap", ASSIGNMENTS[:9])):
        truth = [oracle(*a) for a in assignments]
        for metric, key in (("orig_accuracy", "orig"), ("aug_accuracy", "aug"), ("brittleness", "brittle")):
            v = got[(metric, category)]
            assert v.value == pytest.approx(np.mean([t[key] for t in truth])) and v.n == len(assignments)
            assert v.tie_rule == "wrong"
        assert got[("aug_accuracy", category)].ties == sum(t["tie"] for t in truth)
        assert got[("orig_accuracy", category)].ties == sum(t["orig_tie"] for t in truth)
        drop = got[("orig_accuracy", category)].value - got[("aug_accuracy", category)].value
        assert got[("accuracy_drop", category)].value == pytest.approx(drop)
        assert got[("mean_score_negative", category)].value == pytest.approx(np.mean([a[2] for a in assignments]))
    for metric in ("orig_accuracy", "aug_accuracy", "brittleness", "accuracy_drop", "mean_score_original"):
        replace = np.mean([got[(metric, "replace_att")].value, got[(metric, "replace_rel")].value])
        assert got[(metric, "replace")].value == pytest.approx(replace)  # unweighted, not pooled
        assert got[(metric, "all")].value == pytest.approx(np.mean([replace, got[(metric, "swap")].value]))
    assert "macro" in got[("aug_accuracy", "replace")].averaging
    assert {s.id: s for s in b.metric_specs()}["brittleness"].higher_is_better is False
    assert b.headline == "aug_accuracy"


def test_all_tied_scores_count_ties_and_nan_is_rejected():
    b = bench(Path("."), version="custom")
    got = values(b.compute(instances_for("swap", [(0.3, 0.3, 0.3)] * 4)))
    assert got[("aug_accuracy", "swap")].value == 0.0 and got[("aug_accuracy", "swap")].ties == 4
    assert got[("brittleness", "swap")].value == 0.0
    assert got[("aug_accuracy", "all")].value == 0.0  # SWAP alone
    with pytest.raises(ScoreError):
        b.compute(instances_for("swap", [(0.3, float("nan"), 0.1)]))


# ---------------------------------------------------------------------------------------------
# Data: the real REPLACE files (../shared/data), SWAP fixtures


def test_real_replace_counts_match_the_readme(shared_data):
    b = bench(shared_data, forms="replace")
    b.check_data()  # sha256-pinned
    assert b.data_version == "upstream-33addaa-replace"
    instances = b.load_instances()
    assert Counter(i.category for i in instances) == README_COUNTS and len(instances) == 27443
    for category, n_images in README_IMAGES.items():
        assert len({i.images[0].path for i in instances if i.category == category}) == n_images
    first = instances[0]
    assert first.id == "replace_att/0" and first.images[0].transform is None
    assert first.images[0].path == shared_data / "visual_genome" / "VG_100K_2" / "2401814.jpg"
    assert len(first.texts) == 3 and first.gold == {"original": 0, "positive": 1, "negative": 2}
    by_id = {i.id: i for i in instances}
    assert by_id["replace_att/10157"].texts[1] == by_id["replace_att/10157"].texts[2]  # upstream's c_p == c_n
    assert sum(i.texts[1] == i.texts[2] for i in instances) == 1
    with pytest.raises(DataUnavailable) as info:
        bench(shared_data).check_data()  # the default includes SWAP, which is not in ../shared/data
    assert "visual_genome_attribution.json" in str(info.value) and "amitakamath/hard_positives" in str(info.value)


def test_altered_replace_file_is_refused(shared_data, tmp_path):
    root = tmp_path / "root"
    shutil.copytree(shared_data / "hard_positives", root / "hard_positives")
    path = root / "hard_positives" / "swapped_data" / "vl_checklist_relations.json"
    records = json.loads(path.read_text())
    records[3]["false_caption"] = "edited"
    path.chmod(0o644)
    path.write_text(json.dumps(records))
    with pytest.raises(DataUnavailable, match="vl_checklist_relations.json has sha256"):
        bench(root, forms="replace").check_data()
    with pytest.raises(DataUnavailable, match="differ at record 3"):
        bench(root, forms="replace", version="custom").load_instances()


@pytest.fixture
def swap_root(tmp_path: Path) -> Path:
    root = tmp_path / "data"
    shutil.copytree(SWAP_FIXTURE, root / "hard_positives", ignore=shutil.ignore_patterns("SOURCE.md"))
    records = json.loads((root / "hard_positives" / "data" / "visual_genome_attribution.json").read_text())
    write_standin_images({r["image_path"] for r in records}, root / "aro" / "images")
    return root


def test_swap_fixture_joins_original_and_hard_positive_with_aro_crops(swap_root):
    b = bench(swap_root, forms="swap", version="custom")
    b.check_data()
    instances = b.load_instances()
    assert [i.id for i in instances] == [f"swap/{k}" for k in range(6)]
    first = instances[0]
    assert first.texts == (
        "the striped cat and the wooden fence",
        "the wooden fence and the striped cat",
        "the wooden cat and the striped fence",
    )
    assert first.images[0].path == swap_root / "aro" / "images" / "2300050.jpg"
    assert first.images[0].transform == {"crop": [4, 3, 48, 36]}
    assert b.data_version.startswith("custom-")


def test_upstream_swap_is_checked_by_git_blob_id(swap_root):
    b = bench(swap_root, forms="swap")
    files = {f.relpath: f for f in b.data_files()}
    assert {f.sha256 for f in files.values()} == {"unpinned"}
    assert all(
        f.url.startswith("https://raw.githubusercontent.com/amitakamath/hard_positives/33addaa") for f in files.values()
    )
    with pytest.raises(DataUnavailable, match="git blob id .* expected 64f742c8"):
        b.check_data()  # the fixture is not upstream's file
    replace = {f.relpath: f.sha256 for f in bench(swap_root, forms="replace").data_files()}
    assert replace["hard_positives/data/vl_checklist_attributes.json"].startswith("4c7d262e")


def test_reference_rows():
    b = bench(Path("."))
    specs = {s.id for s in b.metric_specs()}
    rows = b.reference_rows()
    assert all(r.metric in specs and 0.0 <= r.value <= 1.0 and r.citation for r in rows)
    ref = {(r.table, r.source, r.metric, r.category): r.value for r in rows}
    assert ref[("Table 1", "CLIP ViT-B/32", "aug_accuracy", "replace")] == 0.468
    assert ref[("Table 1", "CLIP ViT-B/32", "accuracy_drop", "replace")] == 0.149  # printed from unrounded values
    assert ref[("Table 1", "Human Estimate", "brittleness", "swap")] == 0.0
    assert ref[("Table 1", "Random Chance", "aug_accuracy", "swap")] == 0.333
    assert ref[("Table 3", "0.50 HN", "orig_accuracy", "swap")] == 0.725
    assert ref[("Table 2", "DAC-LLM", "mean_score_original", "replace")] == 0.16


# ---------------------------------------------------------------------------------------------
# End to end through the command line


def test_tiny_openclip_end_to_end_on_generated_replace_and_swap_fixture(vlc_run, swap_root, tiny_spec):
    write_example(swap_root, forms="replace")  # generated REPLACE files beside the SWAP fixture
    out = vlc_run("-m", tiny_spec, "-b", "hard_positives:version=custom", data_root=swap_root)
    assert out.exit_code == 0, out.output
    assert "aug_accuracy=" in out.output
    (cell,) = json.loads(vlc_run.cli("show", "--format", "json").stdout)["cells"]
    assert cell["status"] == "ok"
    metrics = {(m["metric"], m["category"]): m for m in cell["metrics"]}
    assert metrics[("aug_accuracy", "swap")]["n"] == 6 and metrics[("aug_accuracy", "replace_att")]["n"] == 4
    assert metrics[("brittleness", "replace")]["n"] == 8 and metrics[("aug_accuracy", "all")]["n"] == 14
    assert metrics[("orig_accuracy", "all")]["tie_rule"] == "wrong"
