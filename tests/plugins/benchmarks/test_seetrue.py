"""SeeTRUE: the real CSV's counts, AUC metrics on hand-built scores, Winoground pairs, fetch, and a CLI run."""

from __future__ import annotations

import csv
import json
import re
import shutil
import sys
import types
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from vlc_harness.benchmarks import InstanceScores
from vlc_harness.datafetch import FetchError
from vlc_harness.errors import DataUnavailable, ScoreError
from vlc_harness.hashing import sha256_file
from vlc_harness.params import build
from vlc_harness.testing import write_standin_images
from vlc_harness.types import ImageSource, Instance
from vlc_harness_builtins.benchmarks.seetrue import CSV_SHA256, CSV_URL, HF_DATASET, SAMPLE_IMAGE, SeeTrue

# Data README section 4: rows per source and (label 1, label 0) counts.
COUNTS = {"editbench": (3827, 2133, 1694), "coco_t2i": (1791, 1163, 628), "drawbench": (1312, 488, 824)}


def bench(root: Path, **params) -> SeeTrue:
    return SeeTrue(build(SeeTrue.Params, params), root)


def pair(source: str, key: str, label: int) -> Instance:
    return Instance(f"{source}/{key}", source, (ImageSource(Path(f"{key}.png")),), ("a caption",), {"label": label})


def scored(rows: list[tuple[str, int, float]]) -> list[InstanceScores]:
    return [InstanceScores(pair(s, str(k), y), np.array([[v]])) for k, (s, y, v) in enumerate(rows)]


def test_public_csv_counts_match_the_data_readme(shared_data):
    b = bench(shared_data)
    b.check_data()
    assert b.data_version == "hf-6930"
    instances = b.load_instances()
    assert len(instances) == 6930 and len({i.id for i in instances}) == 6930
    assert len({i.images[0].path.name for i in instances}) == 6930  # every row has its own image
    for source, (n, pos, neg) in COUNTS.items():
        labels = [i.gold["label"] for i in instances if i.category == source]
        assert (len(labels), labels.count(1), labels.count(0)) == (n, pos, neg)
    assert Counter(i.category for i in instances).keys() == COUNTS.keys()
    (sample,) = [i for i in instances if i.images[0].path.name == SAMPLE_IMAGE]
    assert sample.category == "drawbench" and sample.gold == {"label": 0}
    assert sha256_file(shared_data / "seetrue" / "sample_images" / SAMPLE_IMAGE).startswith("5eea67d6")


def test_missing_and_altered_csv_name_what_to_get(shared_data, tmp_path):
    with pytest.raises(DataUnavailable, match=re.escape(CSV_URL)):
        bench(tmp_path).check_data()
    (tmp_path / "seetrue").mkdir()
    altered = tmp_path / "seetrue" / "SeeTRUE.csv"
    shutil.copyfile(shared_data / "seetrue" / "SeeTRUE.csv", altered)
    altered.write_bytes(altered.read_bytes() + b"x.png,extra row,1,0,drawbench\n")
    with pytest.raises(DataUnavailable, match="SeeTRUE.csv has sha256"):
        bench(tmp_path).check_data()
    custom = bench(tmp_path, version="custom")
    custom.check_data()
    assert custom.data_version.startswith("custom-") and len(custom.load_instances()) == 6931


def test_auc_per_source_and_macro_on_hand_built_scores():
    from sklearn.metrics import roc_auc_score

    rows = [
        ("a", 1, 0.9), ("a", 1, 0.4), ("a", 0, 0.4), ("a", 0, 0.1),  # auc 0.875, one tied pair
        ("b", 1, 0.6), ("b", 0, 0.6), ("b", 0, 0.7), ("b", 1, 0.2),  # auc 0.125
        ("c", 1, 0.3), ("c", 1, 0.8),  # one class only: no AUC, left out of the mean
    ]  # fmt: skip
    values = {(v.metric, v.category): v for v in bench(Path("."), threshold=0.5).compute(scored(rows))}
    a = values[("auc", "a")]
    assert a.value == 0.875 and a.n == 4 and a.ties == 1 and a.tie_rule == "half"
    assert a.value == pytest.approx(roc_auc_score([1, 1, 0, 0], [0.9, 0.4, 0.4, 0.1]))
    assert values[("auc", "b")].value == pytest.approx(roc_auc_score([1, 0, 0, 1], [0.6, 0.6, 0.7, 0.2]))
    assert ("auc", "c") not in values and ("auc_binary", "c") not in values
    # binary: a -> preds 1,0,0,0 (TPR 1/2, TNR 1) ; b -> preds 1,1,1,0 (TPR 1/2, TNR 0)
    assert values[("auc_binary", "a")].value == pytest.approx(0.75)
    assert values[("auc_binary", "b")].value == pytest.approx(0.25)
    assert values[("auc_binary", "a")].value == pytest.approx(roc_auc_score([1, 1, 0, 0], [1, 0, 0, 0]))
    macro = values[("auc_macro", "all")]
    assert macro.value == pytest.approx((0.875 + 0.125) / 2) and macro.n == 8
    assert macro.averaging == "macro: unweighted mean over 2 sources: a, b"
    assert values[("auc_binary_macro", "all")].value == pytest.approx(0.5)
    # a threshold under every score predicts all aligned: every pair ties, AUC 0.5
    low = {(v.metric, v.category): v for v in bench(Path("."), threshold=0.0).compute(scored(rows))}
    assert low[("auc_binary", "a")].value == 0.5 and low[("auc_binary", "a")].ties == 4


def test_nan_is_rejected_even_in_a_single_class_source():
    rows = [("a", 1, 0.9), ("a", 0, 0.1), ("c", 1, float("nan"))]
    with pytest.raises(ScoreError):
        bench(Path(".")).compute(scored(rows))


def write_csv(path: Path, rows: list[list[object]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["image", "text", "label", "original_dataset_id", "dataset_source"])
        writer.writerows(rows)


def test_winoground_in_seetrue_form(tmp_path):
    write_csv(tmp_path / "seetrue" / "mine.csv", [["g0.png", "a red square", 1, "k0", "gen"]])
    folder = tmp_path / "winoground" / "data"
    folder.mkdir(parents=True)
    examples = [
        {"id": i, "image_0": f"ex_{i}_img_0", "image_1": f"ex_{i}_img_1", "caption_0": f"c{i}a", "caption_1": f"c{i}b"}
        for i in range(3)
    ]
    b = bench(tmp_path, version="custom", csv="seetrue/mine.csv", winoground_dir="winoground/data")
    with pytest.raises(DataUnavailable, match="facebook/winoground"):
        b.check_data()
    (folder / "examples.jsonl").write_text("".join(json.dumps(e) + "\n" for e in examples))
    b.check_data()
    assert "+winoground-" in b.data_version
    wino = [i for i in b.load_instances() if i.category == "winoground"]
    assert len(wino) == 12  # 3 examples x 2 images x 2 captions
    assert [i.id for i in wino[:4]] == [f"winoground/{n}_image_0_caption_0" for n in range(3)] + [
        "winoground/0_image_0_caption_1"
    ]
    first = {i.id: i for i in wino}
    assert first["winoground/2_image_1_caption_1"].gold == {"label": 1}
    assert first["winoground/2_image_1_caption_0"].gold == {"label": 0}
    assert first["winoground/2_image_1_caption_0"].texts == ("c2a",)
    assert first["winoground/2_image_1_caption_0"].images[0].path == folder / "images" / "ex_2_img_1.png"
    assert sum(i.gold["label"] for i in wino) == 6


def test_reference_rows_never_pair_the_paper_average_with_our_mean():
    b = bench(Path("."))
    specs = {s.id for s in b.metric_specs()}
    rows = b.reference_rows()
    assert rows and all(r.metric in specs and 0 <= r.value <= 1 for r in rows)
    averages = [r for r in rows if r.metric == "auc_macro"]
    assert len(averages) == 14 and all(r.category.startswith("mean(7 sources:") for r in averages)
    assert all(r.data_version == "paper-31855" for r in averages)
    vq2 = {r.category: r for r in rows if r.source == "VQ2 (Ours)" and r.metric == "auc"}
    assert vq2["editbench"].value == 0.736 and vq2["editbench"].data_version is None
    assert vq2["drawbench"].data_version == "paper-31855"  # the public CSV lacks the Imagen images
    # the paper's Avg. is the plain mean of its 7 source AUCs (to rounding)
    by_source = [r.value for r in rows if r.source == "VQ2 (Ours)" and r.metric == "auc" and r.table == "Table 2"]
    assert len(by_source) == 7 and sum(by_source) / 7 == pytest.approx(0.80, abs=5e-4)


def test_fetch_explains_the_missing_client_and_the_gated_dataset(tmp_path, monkeypatch, shared_data):
    monkeypatch.setitem(sys.modules, "huggingface_hub", None)
    with pytest.raises(FetchError, match="pip install 'vlc-harness\\[data\\]'"):
        bench(tmp_path).fetch(progress=False)

    class GatedRepoError(Exception):
        pass

    def gated(*args, **kwargs):
        raise GatedRepoError("401 Client Error: access to this dataset is restricted")

    monkeypatch.setitem(sys.modules, "huggingface_hub", types.SimpleNamespace(hf_hub_download=gated))
    with pytest.raises(FetchError, match="huggingface-cli login.*HF_TOKEN"):
        bench(tmp_path).fetch(progress=False)

    calls = []

    def local_copy(repo_id, filename, repo_type, revision, local_dir=None):
        calls.append((repo_id, filename, repo_type, revision))
        return str(shared_data / "seetrue" / "SeeTRUE.csv")

    monkeypatch.setitem(sys.modules, "huggingface_hub", types.SimpleNamespace(hf_hub_download=local_copy))
    (line,) = bench(tmp_path).fetch(progress=False)
    assert line.startswith("fetched") and sha256_file(tmp_path / "seetrue" / "SeeTRUE.csv") == CSV_SHA256
    assert calls[0][:3] == (HF_DATASET, "SeeTRUE.csv", "dataset") and len(calls[0][3]) == 40
    assert bench(tmp_path).fetch(progress=False)[0].startswith("present")


def test_tiny_openclip_on_the_real_csv_with_standin_images(vlc_run, tmp_path, shared_data, tiny_spec):
    root = tmp_path / "data"
    (root / "seetrue").mkdir(parents=True)
    (root / "seetrue" / "SeeTRUE.csv").symlink_to(shared_data / "seetrue" / "SeeTRUE.csv")
    # stand-ins for the images the run reads: the real CSV's first 8 file names of each source
    per_source: dict[str, list[str]] = {}
    with open(shared_data / "seetrue" / "SeeTRUE.csv", encoding="utf-8", newline="") as f:
        for row in csv.DictReader(f):
            per_source.setdefault(row["dataset_source"], []).append(row["image"])
    write_standin_images([n for names in per_source.values() for n in names[:8]], root / "seetrue" / "images")
    result = vlc_run("-m", tiny_spec, "-b", "seetrue", "--limit", "8", data_root=root)
    assert result.exit_code == 0, result.output
    assert "auc_macro=" in result.output
    shown = json.loads(vlc_run.cli("show", "--partial", "--format", "json").stdout)
    (cell,) = shown["cells"]
    metrics = {(m["metric"], m["category"]): m for m in cell["metrics"]}
    for source in COUNTS:
        auc = metrics[("auc", source)]
        assert auc["n"] == 8 and 0.0 <= auc["value"] <= 1.0 and auc["tie_rule"] == "half"
        assert ("auc_binary", source) in metrics
    macro = metrics[("auc_macro", "all")]
    assert macro["averaging"] == "macro: unweighted mean over 3 sources: coco_t2i, drawbench, editbench"
    assert macro["value"] == pytest.approx(np.mean([metrics[("auc", s)]["value"] for s in COUNTS]))
    # the paper's rows: EditBench is comparable; its 7-source Avg. never sits next to our 3-source mean
    refs = json.loads(vlc_run.cli("show", "--partial", "--references", "--format", "json").stdout)
    papers = [r for r in refs["reference"] if r["model"] != "(chance)"]
    shown_refs = {(r["metric"], r["category"]) for r in papers}
    assert ("auc", "editbench") in shown_refs and ("auc", "drawbench") not in shown_refs
    assert not [r for r in papers if r["metric"] == "auc_macro"]
