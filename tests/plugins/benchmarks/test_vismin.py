"""VisMin: the exported schema, upstream metric.py's scores per category (strict), the paper's AVG over the
12 per-category scores (values and bootstrap), the table's rows recomputed, the pinned snapshot export
(stand-in huggingface_hub and datasets), the real-data counts and the board."""

from __future__ import annotations

import json
import sys
import types
from pathlib import Path

import numpy as np
import pytest

from tests.conftest import shared_data_dir
from tests.plugins.benchmarks.hf_standins import StandInSplit, stand_in_datasets
from vlc_harness.benchmarks import InstanceScores
from vlc_harness.errors import DataUnavailable, InputError
from vlc_harness.metrics.cell import cell_metrics
from vlc_harness.metrics.outcomes import outcomes_from_matrices
from vlc_harness.params import build
from vlc_harness_builtins.benchmarks.vismin import COUNTS, HF_DATASET, HF_REVISION, ROWS, VisMin
from vlc_harness_builtins.testing.data_vismin import write_example

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "vismin_sample"
REFERENCE = VisMin.references  # the card's rows
SCORES = ("text_score", "image_score", "group_score")
TABLE_COLUMNS = [(c, m) for c in ("object", "attribute", "relation", "counting") for m in SCORES]
"""The paper table's 12 columns in its order (Object, Attribute, S. Relation, Count; T, I, G each)."""


def bench(root: Path, **params) -> VisMin:
    return VisMin(build(VisMin.Params, params), root)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    data = tmp_path / "data"
    write_example(data, per_category=2)
    assert (data / "vismin" / ROWS).read_text() == (FIXTURE / "vismin" / ROWS).read_text()
    return data


def values(metrics) -> dict[tuple[str, str], object]:
    return {(m.metric, m.category): m for m in metrics}


def upstream(t0i0: float, t0i1: float, t1i0: float, t1i1: float) -> tuple[bool, bool]:
    """Upstream compute_contrastive_accuracy's text and image verdicts on its four similarities."""
    return (t0i0 > t1i0 and t1i1 > t0i1), (t0i0 > t0i1 and t1i1 > t1i0)


def test_scores_equal_upstreams_per_category_with_ties(root):
    b = bench(root, version="custom")
    b.check_data()
    instances = b.load_instances()
    assert [i.id for i in instances][:2] == ["object/obj0", "object/obj1"]
    rng = np.random.default_rng(3)
    sims = rng.integers(0, 3, size=(len(instances), 2, 2)).astype(float)  # sims[text, image], many ties
    results = [InstanceScores(inst, s.T) for inst, s in zip(instances, sims)]  # ours: [image, text]
    got = values(b.compute(results))
    verdicts = [upstream(s[0, 0], s[0, 1], s[1, 0], s[1, 1]) for s in sims]
    for category in COUNTS:
        idx = [k for k, inst in enumerate(instances) if inst.category == category]
        assert got[("text_score", category)].value == pytest.approx(np.mean([verdicts[k][0] for k in idx]))
        assert got[("image_score", category)].value == pytest.approx(np.mean([verdicts[k][1] for k in idx]))
        group = np.mean([verdicts[k][0] and verdicts[k][1] for k in idx])
        assert got[("group_score", category)].value == pytest.approx(group)
    per_cat = [got[("group_score", c)].value for c in COUNTS]
    assert got[("group_score_macro", "all")].value == pytest.approx(np.mean(per_cat))
    pooled = got[("group_score_pooled", "all")]
    assert pooled.n == 8 and pooled.tie_rule == "wrong" and ("group_score", "all") not in got
    assert pooled.value == pytest.approx(np.mean([t and i for t, i in verdicts]))
    twelve = [got[(m, c)].value for c in COUNTS for m in SCORES]
    assert got[("avg_score", "all")].value == pytest.approx(np.mean(twelve))  # the paper's AVG
    for c in COUNTS:
        assert got[("avg_score", c)].value == pytest.approx(np.mean([got[(m, c)].value for m in SCORES]))
    halves = [got[(f"{m}_ties_half", c)].value for c in COUNTS for m in SCORES]
    assert got[("avg_score_ties_half", "all")].value == pytest.approx(np.mean(halves))


def test_average_is_the_headline_and_its_interval_follows_the_categories(root):
    b = bench(root, version="custom")
    write_example(root, per_category=5)
    instances = b.load_instances()[3:]  # categories of 2, 5, 5 and 5 samples: a pooled mean would differ
    rng = np.random.default_rng(11)
    matrices = [rng.normal(size=(2, 2)) + np.eye(2) * rng.uniform(0, 2) for _ in instances]
    cell = cell_metrics(b, outcomes_from_matrices(instances, matrices), samples=300)
    headline = [m for m in cell.metrics if m.get("headline")]
    assert [(m["metric"], m["category"]) for m in headline] == [("avg_score", "all")] and "ci95" in headline[0]
    got = {(m["metric"], m["category"]): m["value"] for m in cell.metrics}
    assert headline[0]["value"] == pytest.approx(np.mean([got[(m, c)] for c in COUNTS for m in SCORES]))
    assert headline[0]["value"] != pytest.approx(np.mean([got[(f"{m}_pooled", "all")] for m in SCORES]))
    reps = cell.replicates
    # every resample's AVG is the mean of that resample's 12 per-category scores (drawn within categories)
    twelve = np.mean([reps[(m, c)] for c in COUNTS for m in SCORES], axis=0)
    assert reps[("avg_score", "all")].shape == (300,)
    np.testing.assert_allclose(reps[("avg_score", "all")], twelve, rtol=0, atol=1e-12)
    assert b.headline_source.startswith("VisMin index.html @29ce2c0, AVG")


def test_the_tables_avg_is_the_mean_of_its_12_columns():
    """Golden: each row of the paper table (index.html @29ce2c0) recomputed from its 12 columns."""
    rows = [r for r in REFERENCE if r.matches != "chance"]
    by_source: dict[str, dict[tuple[str, str], float]] = {}
    for r in rows:
        by_source.setdefault(r.source, {})[(r.category, r.metric)] = r.value
    assert len(by_source) == 12 and "MTurk Human" in by_source  # 11 models and the human row
    kept_apart = set()
    for source, values in by_source.items():
        columns = [values[c] for c in TABLE_COLUMNS]
        mean = np.mean(columns) * 100
        if ("all", "avg_score") in values:
            # printed to two decimals from two-decimal columns: within half a unit of the last place
            assert abs(mean - values[("all", "avg_score")] * 100) <= 0.005 + 1e-9, source
        else:
            kept_apart.add(source)
            assert abs(mean - values[("table-avg", "avg_score")] * 100) > 1, source
    assert kept_apart == {"LlaVa1.6 (7B)", "Gemini1.0 Pro", "GPT4-o"}
    for source in ("Gemini1.0 Pro", "GPT4-o"):  # their printed AVG is the mean of their group scores
        groups = [by_source[source][(c, "group_score")] for c in ("object", "attribute", "relation", "counting")]
        assert abs(np.mean(groups) - by_source[source][("table-avg", "avg_score")]) <= 0.00005 + 1e-12
    clip = by_source["CLIP (ViT-B/32)"]
    assert clip[("all", "avg_score")] == 0.4115 and np.mean([clip[c] for c in TABLE_COLUMNS]) * 100 == pytest.approx(
        41.145
    )
    assert {r.matches for r in rows if r.source == "CLIP (ViT-B/32)"} == {"open_clip:ViT-B-32/openai"}


def test_counts_are_checked_unless_custom(root, tmp_path):
    with pytest.raises(DataUnavailable, match="8 samples"):
        bench(root).check_data()
    with pytest.raises(DataUnavailable, match="fetch -b vismin"):
        bench(tmp_path / "empty").check_data()
    (root / "vismin" / ROWS).write_text(json.dumps({"id": 1}) + "\n")
    with pytest.raises(InputError, match="test.jsonl, line 1, field 'text_0'"):
        bench(root, version="custom").check_data()


def test_fetch_exports_the_pinned_snapshot(tmp_path, monkeypatch, root):
    png = (root / "vismin" / "images" / "obj0_0.png").read_bytes()
    rows = [json.loads(line) for line in (root / "vismin" / ROWS).read_text().splitlines()]
    hf_rows = [{**r, "image_0": {"bytes": png, "path": None}, "image_1": {"bytes": png, "path": None}} for r in rows]
    calls: list = []
    hub = types.ModuleType("huggingface_hub")
    hub.snapshot_download = lambda repo, repo_type, revision, local_dir: calls.append((repo, revision)) or local_dir
    datasets = stand_in_datasets(
        load_from_disk=lambda path: calls.append(Path(path).name) or {"test": StandInSplit(hf_rows)}
    )
    monkeypatch.setitem(sys.modules, "huggingface_hub", hub)
    monkeypatch.setitem(sys.modules, "datasets", datasets)
    target = tmp_path / "fetched"
    lines = bench(target, version="hf-2f379d5").fetch(progress=False)
    assert calls == [(HF_DATASET, HF_REVISION), "data"] and "8 samples" in lines[0]
    assert (target / "vismin" / ROWS).read_text() == (root / "vismin" / ROWS).read_text()
    assert (target / "vismin" / "images" / "rel1_1.png").read_bytes() == png
    assert bench(target).fetch(progress=False)[0].startswith("present")


def test_real_data_has_the_published_counts():
    shared = shared_data_dir()
    if shared is None or not (shared / "vismin" / ROWS).is_file():
        pytest.skip("VisMin's export is not in ../shared/data (run `vlc-harness data fetch -b vismin`)")
    b = bench(shared)
    b.check_data()
    instances = b.load_instances()
    assert {c: sum(i.category == c for i in instances) for c in COUNTS} == COUNTS
    assert len(instances) == 2084


def test_board_renders_vismin_with_its_gap(vlc_run, tmp_path, root):
    registry = tmp_path / "registry.yaml"
    registry.write_text(
        "models:\n  - {id: random, type: random, params: {seed: 1}, meta: {display_name: Random, family: baseline}}\n"
        "benchmarks:\n  - {id: vismin, type: vismin, params: {version: custom}}\n"
    )
    ran = vlc_run("--all", "--registry", str(registry), data_root=root)
    assert ran.exit_code == 0, ran.output
    out = tmp_path / "site"
    assert vlc_run.cli("render", "--out", str(out), "--registry", str(registry)).exit_code == 0
    assert "VisMin" in (out / "benchmarks" / "vismin.html").read_text()
    assert 'class="num gap' in (out / "index.html").read_text()  # text_score_macro - image_score_macro
