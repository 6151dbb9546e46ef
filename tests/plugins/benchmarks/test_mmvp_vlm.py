"""MMVP-VLM: the upstream schema, the first-index tie rule against upstream's '> 0.5' verdicts,
malformed data, the paper rows, the pinned snapshot fetch, the real-data counts and the board."""

from __future__ import annotations

import csv
import json
import sys
import types
from pathlib import Path

import numpy as np
import pytest
from markupsafe import escape

from tests.conftest import shared_data_dir
from vlc_harness.benchmarks import InstanceScores
from vlc_harness.errors import DataUnavailable
from vlc_harness.params import build
from vlc_harness_builtins.benchmarks.mmvp_vlm import HF_DATASET, HF_REVISION, MMVPVLM, PATTERNS, QUESTIONS
from vlc_harness_builtins.testing.data_mmvp_vlm import write_example

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "mmvp_vlm_sample"
REFERENCE = MMVPVLM.references  # the card's rows


def bench(root: Path, **params) -> MMVPVLM:
    return MMVPVLM(build(MMVPVLM.Params, params), root)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """The generated 270-statement data root; its Questions.csv is the committed fixture."""
    data = tmp_path / "data"
    write_example(data)
    assert (data / "mmvp_vlm" / QUESTIONS).read_text() == (FIXTURE / "mmvp_vlm" / QUESTIONS).read_text()
    return data


def values(metrics) -> dict[tuple[str, str], object]:
    return {(m.metric, m.category): m for m in metrics}


def test_loads_pairs_by_position_second_image_first(root):
    b = bench(root)
    b.check_data()  # the default version checks 270 statements, pairs and 15-pair blocks
    assert b.data_version.startswith("hf-211372d-")
    instances = b.load_instances()
    assert len(instances) == 135
    assert [i.category for i in instances[::15]] == list(PATTERNS)
    first = instances[0]
    assert first.id == "Orientation and Direction/1-2"
    assert [p.path.name for p in first.images] == ["2.jpg", "1.jpg"]
    assert first.images[0].path.parent.name == "Orientation"
    assert first.texts == ("a photo of the door number 0 is closed", "a photo of the door number 0 is open")
    assert bench(root, text_prefix="").load_instances()[0].texts[0] == "the door number 0 is closed"


def upstream_pair_correct(s: np.ndarray) -> bool:
    """Upstream's verdict on scores[image, text] of one pair, in upstream's order (image 1, image 2;
    statement 1, statement 2): image 1 is predicted only when its score is strictly greater."""
    pred1 = "img1" if s[0, 0] > s[1, 0] else "img2"
    pred2 = "img1" if s[0, 1] > s[1, 1] else "img2"
    return pred1 == "img1" and pred2 == "img2"


def test_first_index_rule_reproduces_upstreams_verdicts_on_ties(root):
    b = bench(root)
    instances = b.load_instances()
    rng = np.random.default_rng(7)
    upstream = rng.integers(0, 3, size=(len(instances), 2, 2)).astype(float)  # many exact ties
    # our instances list upstream's image 2 and statement 2 first: reverse both axes
    results = [InstanceScores(inst, up[::-1, ::-1]) for inst, up in zip(instances, upstream)]
    got = values(b.compute(results))
    expected = np.array([upstream_pair_correct(up) for up in upstream])
    assert got[("pair_accuracy", "all")].value == pytest.approx(expected.mean())
    assert got[("pair_accuracy", "all")].tie_rule == "first-index"
    assert got[("pair_accuracy", "all")].ties > 0
    for k, pattern in enumerate(PATTERNS):
        assert got[("pair_accuracy", pattern)].value == pytest.approx(expected[15 * k : 15 * (k + 1)].mean())
        assert got[("pair_accuracy", pattern)].n == 15
    per_pattern = [got[("pair_accuracy", p)].value for p in PATTERNS]
    assert got[("pair_accuracy_macro", "all")].value == pytest.approx(np.mean(per_pattern))

    # an all-tie pair: upstream picks image 2 for both statements, so statement 1 is wrong
    tie = b.compute([InstanceScores(instances[0], np.zeros((2, 2)))])
    assert values(tie)[("pair_accuracy", "all")].value == 0.0
    assert values(tie)[("pair_accuracy_ties_half", "all")].value == pytest.approx(0.25)
    # a tie on statement 2 alone is right (it picks image 2, its gold)
    only_second = np.array([[1.0, 0.0], [0.0, 0.0]])  # upstream order: s[img, text]
    assert upstream_pair_correct(only_second)
    assert (
        values(b.compute([InstanceScores(instances[0], only_second[::-1, ::-1])]))[("pair_accuracy", "all")].value == 1
    )


def rewrite(root: Path, rows: list[list[str]]) -> None:
    with open(root / "mmvp_vlm" / QUESTIONS, "w", newline="") as f:
        csv.writer(f).writerows([["Question ID", "Type", "Statement"], *rows])


def read_rows(root: Path) -> list[list[str]]:
    with open(root / "mmvp_vlm" / QUESTIONS, newline="") as f:
        return list(csv.reader(f))[1:]


def test_malformed_data_is_refused_with_what_to_do(root, tmp_path):
    with pytest.raises(DataUnavailable, match="fetch -b mmvp_vlm"):
        bench(tmp_path / "empty").check_data()
    rows = read_rows(root)
    rewrite(root, rows[:-2])
    with pytest.raises(DataUnavailable, match="268 statements, expected 270"):
        bench(root).check_data()
    bench(root, version="custom").check_data()  # a custom subset may be shorter
    mixed = [r[:] for r in rows]
    mixed[4][1] = "Presence"  # the first row of the third pair names the folder
    rewrite(root, mixed)
    with pytest.raises(DataUnavailable, match="mixes the Types"):
        bench(root).check_data()
    swapped = [r[:] for r in rows]
    swapped[0], swapped[1] = swapped[1], swapped[0]
    rewrite(root, swapped)
    with pytest.raises(DataUnavailable, match="pairs question 2 with 1"):
        bench(root).check_data()


def test_reference_rows_are_the_papers_table_with_consistent_averages():
    rows = REFERENCE
    models = [r for r in rows if r.matches != "chance"]
    assert len(models) == 10 * 10 and {r.matches for r in rows if r.source == "Random chance"} == {"chance"}
    for source in {r.source for r in models}:
        mine = {r.category: r.value for r in models if r.source == source and r.metric == "pair_accuracy"}
        assert list(mine) == list(PATTERNS)
        counts = [round(v * 15) for v in mine.values()]  # printed to one decimal: k/15 of the pairs
        assert all(abs(k / 15 - v) < 0.0006 for k, v in zip(counts, mine.values()))
        (avg,) = [r.value for r in models if r.source == source and r.metric == "pair_accuracy_macro"]
        assert abs(sum(counts) / 135 - avg) < 0.0006, source
    openai = [r for r in models if r.matches == "open_clip:ViT-L-14/openai"]
    assert {r.category for r in openai if r.metric == "pair_accuracy_macro"} == {"all"}
    assert [r.value for r in openai if r.metric == "pair_accuracy_macro"] == [0.193]


def test_fetch_downloads_the_pinned_snapshot(tmp_path, monkeypatch):
    calls: list = []

    def snapshot_download(repo_id, repo_type, revision, local_dir):
        calls.append((repo_id, repo_type, revision))
        write_example(Path(local_dir).parent, patterns=9)
        return local_dir

    module = types.ModuleType("huggingface_hub")
    module.snapshot_download = snapshot_download
    monkeypatch.setitem(sys.modules, "huggingface_hub", module)
    root = tmp_path / "data"
    lines = bench(root).fetch(progress=False)
    assert calls == [(HF_DATASET, "dataset", HF_REVISION)] and lines[0].startswith("fetched")
    bench(root).check_data()
    assert bench(root).fetch(progress=False)[0].startswith("present") and len(calls) == 1
    monkeypatch.setitem(sys.modules, "huggingface_hub", None)
    from vlc_harness.datafetch import FetchError

    with pytest.raises(FetchError, match=r"pip install 'vlc-harness\[data\]'"):
        bench(tmp_path / "other").fetch(progress=False)


def test_real_data_has_135_pairs_of_9_patterns():
    shared = shared_data_dir()
    if shared is None or not (shared / "mmvp_vlm" / QUESTIONS).is_file():
        pytest.skip("MMVP-VLM's Questions.csv is not in ../shared/data (fetch it from Hugging Face MMVP/MMVP_VLM)")
    b = bench(shared)
    b.check_data()
    instances = b.load_instances()
    assert len(instances) == 135
    assert {p: sum(i.category == p for i in instances) for p in PATTERNS} == dict.fromkeys(PATTERNS, 15)
    assert all(img.path.is_file() for i in instances for img in i.images)


def test_board_renders_mmvp_vlm_without_a_gap(vlc_run, tmp_path, root):
    registry = tmp_path / "registry.yaml"
    registry.write_text(
        "models:\n  - {id: random, type: random, params: {seed: 1}, meta: {display_name: Random, family: baseline}}\n"
        "benchmarks:\n  - {id: mmvp-vlm, type: mmvp_vlm}\n"
    )
    ran = vlc_run("--all", "--registry", str(registry), data_root=root)
    assert ran.exit_code == 0, ran.output
    assert "pair_accuracy_macro=" in ran.output
    out = tmp_path / "site"
    rendered = vlc_run.cli("render", "--out", str(out), "--registry", str(registry))
    assert rendered.exit_code == 0, rendered.output
    page = (out / "benchmarks" / "mmvp-vlm.html").read_text()
    from vlc_harness.metrics.ties import tie_rule_words

    assert "MMVP-VLM" in page and str(escape(tie_rule_words("first-index"))) in page  # the tie rule, in words
    index = (out / "index.html").read_text()
    assert "MMVP-VLM" in index and 'class="num gap' not in index  # text-to-image only
    assert json.loads(json.dumps(MMVPVLM.gap_metrics)) is None
