"""SugarCrepe++: the upstream schema, the image-to-text task exactly as test_Variants_CLIP.py computes
it (strict), P1/P2-vs-negative, the pinned files and counts, no text-only task, and the board."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pytest

from tests.conftest import shared_data_dir
from vlc_harness.benchmarks import InstanceScores
from vlc_harness.errors import DataUnavailable
from vlc_harness.metrics.cell import declared_ids
from vlc_harness.params import build
from vlc_harness_builtins.benchmarks.sugarcrepe_pp import COUNTS, SHA256, SUBSETS, UPSTREAM, SugarCrepePP, write_example

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "sugarcrepe_pp_sample"


def bench(root: Path, **params) -> SugarCrepePP:
    return SugarCrepePP(build(SugarCrepePP.Params, params), root)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    data = tmp_path / "data"
    write_example(data)
    for subset in SUBSETS:
        rel = Path("sugarcrepe_pp") / f"{subset}.json"
        assert (data / rel).read_text() == (FIXTURE / rel).read_text()
    return data


def values(metrics) -> dict[tuple[str, str], object]:
    return {(m.metric, m.category): m for m in metrics}


def upstream(p1: float, p2: float, neg: float) -> tuple[bool, bool, bool]:
    """test_Variants_CLIP.py's verdicts: the image-to-text task, Image-P1-Neg and Image-P2-Neg."""
    return (p1 > neg and p2 > neg), p1 > neg, p2 > neg


def test_itt_and_positive_vs_negative_equal_upstreams_with_ties(root):
    b = bench(root, version="custom")
    b.check_data()
    instances = b.load_instances()
    assert instances[0].id == "replace_att/0" and len(instances[0].texts) == 3
    assert instances[0].texts[1].startswith("Next to") and instances[0].images[0].path.parent.name == "val2017"
    rng = np.random.default_rng(11)
    rows = rng.integers(0, 3, size=(len(instances), 3)).astype(float)  # P1, P2, N with many ties
    got = values(b.compute([InstanceScores(i, r[None, :]) for i, r in zip(instances, rows)]))
    verdicts = np.array([upstream(*r) for r in rows])
    for k, metric in enumerate(("itt_accuracy", "p1_neg_accuracy", "p2_neg_accuracy")):
        assert got[(metric, "all")].value == pytest.approx(verdicts[:, k].mean()), metric
        assert got[(metric, "all")].tie_rule == "wrong"
        per_subset = [verdicts[[j for j, i in enumerate(instances) if i.category == s], k].mean() for s in SUBSETS]
        assert got[(f"{metric}_macro", "all")].value == pytest.approx(np.mean(per_subset))
    assert got[("itt_accuracy", "SWAP")].n == 4 and got[("itt_accuracy", "REPLACE")].n == 6
    ids = declared_ids(s.id for s in b.metric_specs())
    assert {"itt_accuracy", "p1_neg_accuracy", "p2_neg_accuracy"} <= ids
    assert not any("tot" in i or "text_only" in i for i in ids)  # the text-only task needs text-text scores


def test_pinned_files_and_custom(root, tmp_path):
    files = bench(tmp_path).data_files()
    assert [Path(f.relpath).stem for f in files] == list(SUBSETS) and all(f.url.startswith(UPSTREAM) for f in files)
    with pytest.raises(DataUnavailable, match="raw.githubusercontent.com/Sri-Harsha/scpp"):
        bench(tmp_path).check_data()
    with pytest.raises(DataUnavailable, match="sha256"):
        bench(root).check_data()
    with pytest.raises(DataUnavailable, match="no subset file"):
        bench(tmp_path, version="custom").check_data()
    assert bench(root).data_version == "github-c083bbf" and bench(root, version="custom").data_version.startswith(
        "custom-"
    )


def test_real_files_have_the_published_counts():
    shared = shared_data_dir()
    folder = shared / "sugarcrepe_pp" if shared else None
    if folder is None or not all((folder / f"{s}.json").is_file() for s in SUBSETS):
        pytest.skip("SugarCrepe++'s VLMs/data/*.json (github.com/Sri-Harsha/scpp @ c083bbf) are not in ../shared/data")
    for subset, sha in SHA256.items():
        assert hashlib.sha256((folder / f"{subset}.json").read_bytes()).hexdigest() == sha
    b = bench(shared)
    b.check_data()
    instances = b.load_instances()
    assert {s: sum(i.category == s for i in instances) for s in SUBSETS} == COUNTS
    assert len(instances) == 4757


def test_board_renders_sugarcrepe_pp(vlc_run, tmp_path, root):
    registry = tmp_path / "registry.yaml"
    registry.write_text(
        "models:\n  - {id: random, type: random, params: {seed: 1}, meta: {display_name: Random, family: baseline}}\n"
        "benchmarks:\n  - {id: sugarcrepe-pp, type: sugarcrepe_pp, params: {version: custom}, "
        "meta: {note: 'The text-only task (TOT) is left out.'}}\n"
    )
    ran = vlc_run("--all", "--registry", str(registry), data_root=root)
    assert ran.exit_code == 0, ran.output
    out = tmp_path / "site"
    assert vlc_run.cli("render", "--out", str(out), "--registry", str(registry)).exit_code == 0
    page = (out / "benchmarks" / "sugarcrepe-pp.html").read_text()
    assert "SugarCrepe++" in page and "The text-only task (TOT) is left out." in page
