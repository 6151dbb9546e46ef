"""Winoground: the real tags file in ../shared/data, the metrics per tag on hand-built scores, the
gated Hugging Face export (stand-in ``datasets``; no network) and an end-to-end run of the tiny
open_clip model on generated stand-in data (Winoground's own captions and images are gated)."""

from __future__ import annotations

import json
import shutil
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from tests.plugins.benchmarks.hf_standins import StandInSplit, stand_in_datasets
from vlc_harness.benchmarks import InstanceScores
from vlc_harness.datafetch import FetchError
from vlc_harness.errors import DataUnavailable, ScoreError
from vlc_harness.metrics.cell import declared_ids
from vlc_harness.params import build
from vlc_harness_builtins.benchmarks.winoground import TAGS, TAGS_SHA256, Winoground
from vlc_harness_builtins.testing.data_winoground import write_example

REFERENCE = Winoground.references  # the card's rows
TAG_COUNTS = {
    "Complex Reasoning": 78,
    "Unusual Image": 56,
    "Unusual Text": 50,
    "Ambiguously Correct": 46,
    "Visually Difficult": 38,
    "Non Minimal": 30,
}
RIGHT = np.array([[0.9, 0.1], [0.2, 0.8]])  # every comparison right
TEXT_ONLY = np.array([[0.5, 0.1], [0.6, 0.9]])  # both images right, caption 0 prefers image 1
TIED = np.full((2, 2), 0.5)


def bench(root: Path, **params) -> Winoground:
    return Winoground(build(Winoground.Params, params), root)


def generated_400(root: Path, tags: dict) -> None:
    """A generated examples.jsonl with 400 ids (no images), as the pinned version expects."""
    folder = root / "winoground"
    folder.mkdir(parents=True, exist_ok=True)
    lines = []
    for i in range(400):
        rec = {
            "id": i,
            "image_0": f"ex_{i}_img_0",
            "image_1": f"ex_{i}_img_1",
            "caption_0": f"generated caption {i} a",
            "caption_1": f"generated caption {i} b",
            "tag": "Object",
            "secondary_tag": "",
            "num_main_preds": 1,
            "collapsed_tag": ["Object", "Relation", "Both"][i % 3],
        }
        lines.append(json.dumps(rec))
    (folder / "examples.jsonl").write_text("\n".join(lines) + "\n")


def test_real_tags_file_counts_match_the_data_readme(shared_data):
    path = shared_data / "winoground" / TAGS
    import hashlib

    assert hashlib.sha256(path.read_bytes()).hexdigest() == TAGS_SHA256
    tags = json.loads(path.read_text())
    assert sorted(tags, key=int) == [str(i) for i in range(400)]
    assert Counter(t for ts in tags.values() for t in ts) == TAG_COUNTS
    assert sum(1 for ts in tags.values() if not ts) == 172  # scored as "No Tag"


def test_pinned_version_checks_tags_and_the_400_examples(shared_data, tmp_path):
    root = tmp_path / "root"
    (root / "winoground").mkdir(parents=True)
    with pytest.raises(DataUnavailable, match="new_tag_assignments.json.*why-winoground-hard"):
        bench(root).check_data()
    shutil.copy(shared_data / "winoground" / TAGS, root / "winoground" / TAGS)
    with pytest.raises(DataUnavailable) as info:
        bench(root).check_data()
    message = str(info.value)
    assert "examples.jsonl" in message and "huggingface-cli login" in message and "HF_TOKEN" in message
    generated_400(root, {})
    b = bench(root)
    b.check_data()
    instances = b.load_instances()
    assert len(instances) == 400 and b.data_version == "hf-400"
    assert instances[3].id == "Object/3" and instances[3].images[1].path.name == "ex_3_img_1.png"
    no_tag = sum(1 for i in instances if i.gold["why_hard_tags"] == ["No Tag"])
    assert no_tag == 172
    lines = (root / "winoground" / "examples.jsonl").read_text().splitlines()
    (root / "winoground" / "examples.jsonl").write_text("\n".join(lines[:-1]) + "\n")
    with pytest.raises(DataUnavailable, match="399 examples"):
        bench(root).check_data()


def test_scores_overall_per_collapsed_tag_and_per_tag(tmp_path):
    write_example(tmp_path, 6)
    b = bench(tmp_path, version="custom")
    b.check_data()
    instances = b.load_instances()
    assert [i.id for i in instances] == ["Object/0", "Relation/1", "Both/2", "Object/3", "Relation/4", "Both/5"]
    fills = [RIGHT, TEXT_ONLY, TIED, RIGHT, RIGHT, TEXT_ONLY]
    values = {(v.metric, v.category): v for v in b.compute([InstanceScores(i, s) for i, s in zip(instances, fills)])}
    assert values[("text_score", "all")].value == pytest.approx(5 / 6)
    assert values[("image_score", "all")].value == pytest.approx(3 / 6)
    assert values[("group_score", "all")].value == pytest.approx(3 / 6)
    assert values[("group_score", "all")].ties == 1 and values[("group_score", "all")].n == 6
    assert values[("group_score", "Both")].value == 0.0 and values[("group_score", "Both")].ties == 1
    assert values[("text_score", "Relation")].value == 1.0
    # why-winoground-hard tags (generated: ids 0,3 untagged; 1,4 Visually Difficult; 2,5 two tags)
    assert values[("group_score", "No Tag")].n == 2 and values[("group_score", "No Tag")].value == 1.0
    assert values[("group_score", "Visually Difficult")].value == 0.5
    assert values[("image_score", "Complex Reasoning")].n == 2
    # number of main predicates and secondary tags
    assert values[("group_score", "1 Main Pred")].n == 3 and values[("group_score", "2 Main Preds")].n == 3
    assert values[("text_score", "Symbolic")].n == 1
    assert {v.tie_rule for k, v in values.items() if k[0] in declared_ids([k[0]])} == {"wrong"}
    with pytest.raises(ScoreError):
        b.compute([InstanceScores(i, np.array([[0.1, np.nan], [0.2, 0.3]])) for i in instances])


def test_specs_chance_and_reference_rows(tmp_path):
    b = bench(tmp_path)
    specs = {s.id: s for s in b.metric_specs()}
    assert declared_ids(specs) == {"text_score", "image_score", "group_score"} and Winoground.headline == "group_score"
    assert (specs["text_score"].chance, specs["image_score"].chance) == (0.25, 0.25)
    assert specs["group_score"].chance == pytest.approx(1 / 6)
    assert not Winoground.captions_redistributable
    rows = REFERENCE
    assert len(rows) == 36 and all(r.metric in specs and 0 <= r.value <= 1 and r.citation for r in rows)
    human = {r.metric: r.value for r in rows if r.source == "Human"}
    assert human == {"text_score": 0.895, "image_score": 0.885, "group_score": 0.855}
    chance = {r.metric: r.value for r in rows if r.source == "Random chance"}
    assert chance == {"text_score": 0.25, "image_score": 0.25, "group_score": 0.1667}
    assert {r.data_version for r in rows} == {"hf-400"} == {b.data_version}


# -- fetch from the gated Hugging Face dataset (stand-in datasets module) ------------------------


def test_fetch_exports_the_upstream_layout(shared_data, tmp_path, monkeypatch):
    root = tmp_path / "root"
    (root / "winoground").mkdir(parents=True)
    shutil.copy(shared_data / "winoground" / TAGS, root / "winoground" / TAGS)
    records = [
        {
            "id": i,
            "image_0": {"bytes": b"\x89PNG0-" + bytes([i % 256]), "path": None},
            "image_1": {"bytes": b"\x89PNG1-" + bytes([i % 256]), "path": None},
            "caption_0": f"c{i} a",
            "caption_1": f"c{i} b",
            "tag": "Relation",
            "secondary_tag": "",
            "num_main_preds": 2,
            "collapsed_tag": "Relation",
        }
        for i in range(400)
    ]
    calls = []
    module = stand_in_datasets(load_dataset=lambda name, split: calls.append((name, split)) or StandInSplit(records))
    monkeypatch.setitem(sys.modules, "datasets", module)
    lines = bench(root).fetch(progress=False)
    assert calls == [("facebook/winoground", "test")] and any("400 examples" in line for line in lines)
    assert (root / "winoground" / "images" / "ex_7_img_1.png").read_bytes() == b"\x89PNG1-\x07"
    first = json.loads((root / "winoground" / "examples.jsonl").read_text().splitlines()[0])
    assert first["image_0"] == "ex_0_img_0" and first["collapsed_tag"] == "Relation"
    bench(root).check_data()
    assert any(line.startswith("present") for line in bench(root).fetch(progress=False)) and len(calls) == 1

    def gated(name, split):
        raise RuntimeError("Dataset 'facebook/winoground' is a gated dataset on the Hub.")

    module.load_dataset = gated
    (root / "winoground" / "examples.jsonl").unlink()
    with pytest.raises(FetchError, match="huggingface-cli login.*HF_TOKEN"):
        bench(root).fetch(progress=False)
    monkeypatch.setitem(sys.modules, "datasets", None)
    with pytest.raises(FetchError, match=r"pip install 'vlc-harness\[data\]'"):
        bench(root).fetch(progress=False)


# -- end to end ----------------------------------------------------------------------------------


def test_tiny_openclip_end_to_end(vlc_run, tmp_path, tiny_spec):
    root = tmp_path / "data"
    write_example(root, 6)
    ran = vlc_run("-m", tiny_spec, "-b", "winoground:version=custom", data_root=root)
    assert ran.exit_code == 0, ran.output
    assert "group_score=" in ran.output
    (cell,) = vlc_run.store().latest_cells()
    assert cell.status == "ok" and cell.complete and cell.n_scored == 6
    metrics = {(m["metric"], m["category"]): m for m in cell.metrics}
    assert metrics[("group_score", "all")]["n"] == 6 and metrics[("text_score", "No Tag")]["n"] == 2
    table = vlc_run.cli("show")
    assert "group_score" in table.output and "(chance)" in table.output
