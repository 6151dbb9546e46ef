"""VALSE: the upstream schema, the README's mturk filter, image sources (COCO 2014 images by file name),
acc_r per instrument and piece, the paper's Avg. over 11 instruments (recomputed from the paper's rows),
the pinned files, the real-data counts (counted from the pinned files) and the board."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest

from tests.conftest import shared_data_dir
from vlc_harness.benchmarks import InstanceScores
from vlc_harness.errors import DataUnavailable, InputError
from vlc_harness.params import build
from vlc_harness_builtins.benchmarks.valse import INSTRUMENTS, PIECES, SHA256, UPSTREAM, Valse
from vlc_harness_builtins.testing.data_valse import write_example

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "valse_sample"
REFERENCE = Valse.references  # the card's rows


def bench(root: Path, **params) -> Valse:
    return Valse(build(Valse.Params, params), root)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    data = tmp_path / "data"
    write_example(data)
    for instrument in INSTRUMENTS:
        rel = Path("valse") / f"{instrument}.json"
        assert (data / rel).read_text() == (FIXTURE / rel).read_text()
    return data


def values(metrics) -> dict[tuple[str, str], object]:
    return {(m.metric, m.category): m for m in metrics}


def test_valid_samples_only_with_images_from_their_sources(root):
    b = bench(root, version="custom")
    b.check_data()
    instances = b.load_instances()
    assert len(instances) == 2 * len(INSTRUMENTS)  # the third sample of each file has mturk.caption == 1
    assert len(bench(root, version="custom", valid_only=False).load_instances()) == 3 * len(INSTRUMENTS)
    assert bench(root, valid_only=False).data_version == "github-2152d90-all"
    by_id = {i.id: i for i in instances}
    assert by_id["existence/existence_test_0"].images[0].path == root / "visual7w/images/v7w_0.jpg"
    assert by_id["plurals/plurals_val_1"].images[0].path == root / "coco/val2017/000000001001.jpg"
    assert by_id["actant-swap/actant-swap_test_0"].images[0].path.parent == root / "swig/images_512"
    assert by_id["coreference-standard/coreference-standard_train_0"].images[0].path.parent == root / "coco/train2014"
    assert by_id["coreference-standard/coreference-standard_train_1"].images[0].path == (
        root / "coco/val2014/COCO_val2014_000000008001.jpg"  # VisDial v1.0 train holds COCO val2014 images too
    )
    assert (
        by_id["coreference-hard/coreference-hard_val_0"].images[0].path.parent == root / "visdial/VisualDialog_val2018"
    )
    assert by_id["foil-it/foil-it_test_0"].images[0].path.parent == root / "coco/val2014"
    assert all(i.texts[0].startswith("There are") and i.gold == {"positive": 0} for i in instances)


def test_pairwise_accuracy_per_instrument_piece_and_macro(root):
    b = bench(root, version="custom")
    instances = b.load_instances()
    # the caption wins in the first valid sample of each file, ties in the second (a tie is wrong)
    results = [InstanceScores(i, np.array([[0.9, 0.1] if i.id.endswith("_0") else [0.5, 0.5]])) for i in instances]
    got = values(b.compute(results))
    assert all(
        got[("pairwise_accuracy", i)].value == 0.5 and got[("pairwise_accuracy", i)].ties == 1 for i in INSTRUMENTS
    )
    assert got[("pairwise_accuracy_piece", "counting")].n == 6
    assert got[("pairwise_accuracy_piece_macro", "actions")].value == 0.5
    macro = got[("pairwise_accuracy_macro", "all")]
    assert macro.value == 0.5 and "foil-it" in macro.averaging and "11 instruments" in macro.averaging
    assert got[("pairwise_accuracy_micro", "all")].n == 22 and macro.tie_rule == "wrong"
    assert {i for members in PIECES.values() for i in members} == set(INSTRUMENTS) - {"foil-it"}
    # FOIL-it! counts in the headline: winning only its instances gives the mean of 11 instruments 1/11
    foil_only = [
        InstanceScores(i, np.array([[0.9, 0.1] if i.category == "foil-it" else [0.5, 0.5]])) for i in instances
    ]
    assert values(b.compute(foil_only))[("pairwise_accuracy_macro", "all")].value == pytest.approx(1 / 11)


def test_an_image_name_of_no_known_folder_is_refused(root):
    path = root / "valse" / "coreference-standard.json"
    records = json.loads(path.read_text())
    records["coreference-standard_train_0"]["image_file"] = "VisualDialog_train2018_000000000001.jpg"
    path.write_text(json.dumps(records))
    with pytest.raises(
        InputError,
        match=r"coreference-standard_train_0.*COCO_train2014_\*, COCO_val2014_\*, VisualDialog_val2018_\*",
    ):
        bench(root, version="custom").load_instances()


def test_pinned_files_and_missing_data(root, tmp_path):
    b = bench(tmp_path)
    files = b.data_files()
    assert len(files) == 11 and all(f.url.startswith(UPSTREAM) for f in files)
    with pytest.raises(DataUnavailable, match="raw.githubusercontent.com/Heidelberg-NLP/VALSE"):
        b.check_data()
    with pytest.raises(DataUnavailable, match="sha256"):
        bench(root).check_data()  # generated files are not the pinned ones
    with pytest.raises(DataUnavailable, match="no instrument file"):
        bench(tmp_path, version="custom").check_data()


def test_the_papers_avg_is_the_mean_of_its_11_instrument_columns():
    """The Avg. of VALSE's Table 2 (CLIP 64.0, LXMERT 59.6) recomputed from the rows' 11 acc_r columns."""
    rows = [r for r in REFERENCE if r.matches != "chance"]
    avg = {r.source: r.value * 100 for r in rows if (r.metric, r.category) == ("pairwise_accuracy_macro", "all")}
    assert set(avg) == {
        "CLIP",
        "ViLBERT 12-in-1",
        "ViLBERT",
        "LXMERT",
        "VisualBERT",
        "GPT2 (text only)",
        "GPT1 (text only)",
    }
    for source in ("CLIP", "LXMERT"):
        columns = {r.category: r.value * 100 for r in rows if r.source == source and r.metric == "pairwise_accuracy"}
        assert list(columns) == list(INSTRUMENTS)
        assert abs(np.mean(list(columns.values())) - avg[source]) <= 0.05 + 1e-9  # printed to one decimal
        without_foil = np.mean([v for k, v in columns.items() if k != "foil-it"])
        assert abs(without_foil - avg[source]) > 1  # the 10 instruments without FOIL-it! are not the Avg.
    assert Valse.headline == "pairwise_accuracy_macro" and "11 instrument" in Valse.headline_source


VALID_COUNTS = {
    "existence": 505,
    "plurals": 851,
    "counting-hard": 868,
    "counting-small-quant": 900,
    "counting-adversarial": 691,
    "relations": 535,
    "action-replacement": 648,
    "actant-swap": 949,
    "coreference-standard": 708,
    "coreference-hard": 104,
    "foil-it": 943,
}
"""Samples with ``mturk.caption >= 2`` per pinned file (counted from the files at commit 2152d90; the card
``cards/valse.md`` lists them too)."""


def test_real_files_give_the_valid_counts():
    shared = shared_data_dir()
    folder = shared / "valse" if shared else None
    if folder is None or not all((folder / f"{i}.json").is_file() for i in INSTRUMENTS):
        pytest.skip("VALSE's data/*.json (github.com/Heidelberg-NLP/VALSE @ 2152d90) are not in ../shared/data")
    for instrument, sha in SHA256.items():
        assert hashlib.sha256((folder / f"{instrument}.json").read_bytes()).hexdigest() == sha
    b = bench(shared)
    b.check_data()
    instances = b.load_instances()
    assert {i: sum(x.category == i for x in instances) for i in INSTRUMENTS} == VALID_COUNTS
    coreference = [x.images[0].path for x in instances if x.category == "coreference-standard"]
    folders = {name: shared / "coco" / name for name in ("train2014", "val2014")}
    assert all(p.parent == folders[p.name.split("_")[1]] for p in coreference)  # COCO_<split>_<id>.jpg
    assert sum(p.parent == folders["val2014"] for p in coreference) == 215 and len(coreference) == 708
    raw = sum(len(json.loads((folder / f"{i}.json").read_text())) for i in INSTRUMENTS)
    assert len(bench(shared, valid_only=False).load_instances()) == raw


def test_board_renders_valse(vlc_run, tmp_path, root):
    registry = tmp_path / "registry.yaml"
    registry.write_text(
        "models:\n  - {id: random, type: random, params: {seed: 1}, meta: {display_name: Random, family: baseline}}\n"
        "benchmarks:\n  - {id: valse, type: valse, params: {version: custom}}\n"
    )
    ran = vlc_run("--all", "--registry", str(registry), data_root=root)
    assert ran.exit_code == 0, ran.output
    out = tmp_path / "site"
    assert vlc_run.cli("render", "--out", str(out), "--registry", str(registry)).exit_code == 0
    assert "VALSE" in (out / "benchmarks" / "valse.html").read_text()
    assert 'class="num gap' not in (out / "index.html").read_text()  # image-to-text only
