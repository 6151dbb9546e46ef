"""ARO: VG-Relation/VG-Attribution macro rules, the Order tie rule, perturbations, tagger, end to end."""

from __future__ import annotations

import itertools
import json
import shutil
import sqlite3
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from vlc_harness.benchmarks import InstanceScores
from vlc_harness.errors import DataUnavailable, InputError, ScoreError, Unavailable
from vlc_harness.params import build
from vlc_harness.testing import write_standin_images
from vlc_harness.types import ImageSource, Instance
from vlc_harness_builtins.benchmarks import aro_order
from vlc_harness_builtins.benchmarks.aro import VGAttribution, VGRelation, relation_rules
from vlc_harness_builtins.benchmarks.aro_order import COCOOrder, Flickr30kOrder
from vlc_harness_builtins.benchmarks.pos_tagging import (
    SPACY_INSTALL,
    TableTagger,
    TaggerUnavailable,
    load_tagger,
    spacy_available,
    tagger_identity,
)

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "aro_sample"
TABLE = "table:karpathy/order_tags.json"


@pytest.fixture
def aro_root(tmp_path: Path) -> Path:
    """The ARO fixture as a data root, with stand-in images for every file name it uses."""
    root = tmp_path / "data"
    shutil.copytree(FIXTURE, root)
    for name in ("visual_genome_relation.json", "visual_genome_attribution.json"):
        records = json.loads((root / "aro" / name).read_text())
        write_standin_images({r["image_path"] for r in records}, root / "aro" / "images")
    for name, images in (("coco_karpathy_test.json", "coco"), ("flickr30k_test.json", "flickr30k")):
        for ann in json.loads((root / "karpathy" / name).read_text()):
            path = Path(ann["image"])
            write_standin_images([path.name], root / images / path.parent)
    return root


def bench(cls, root: Path, **params):
    return cls(build(cls.Params, {"version": "custom", **params}), root)


def scored(instances: list[Instance], fill) -> list[InstanceScores]:
    """Score matrices from ``fill(instance, k) -> row of text scores``."""
    return [InstanceScores(inst, np.array([fill(inst, k)], dtype=float)) for k, inst in enumerate(instances)]


def values(metrics) -> dict[tuple[str, str], object]:
    return {(m.metric, m.category): m for m in metrics}


# ---------------------------------------------------------------------------------------------
# VG-Relation / VG-Attribution


def test_vg_relation_loads_the_upstream_schema_with_crops(aro_root):
    b = bench(VGRelation, aro_root)
    b.check_data()
    instances = b.load_instances()
    assert Counter(i.category for i in instances) == {
        "on": 4,
        "behind": 2,
        "wearing": 3,
        "eating": 2,
        "near": 2,
        "next to": 1,
        "floating above": 1,
    }
    first = instances[0]
    assert first.id == "on/0" and first.gold == {"positive": 0}
    assert first.texts == ("the horse is on the shirt", "the shirt is on the horse")
    assert first.images[0].transform == {"crop": [4, 3, 48, 36]}
    # two cases share an image file but not a crop: the crop is part of the image identity
    assert first.images[0].path == instances[1].images[0].path
    assert first.images[0].transform_spec() != instances[1].images[0].transform_spec()
    assert b.data_version.startswith("custom-")


def test_vg_relation_macro_excludes_symmetric_relations_and_reports_groups(aro_root):
    b = bench(VGRelation, aro_root)
    instances = b.load_instances()
    # correct for the first `right[relation]` cases of each relation, wrong for the rest
    right = {"on": 3, "behind": 1, "wearing": 3, "eating": 0, "near": 2, "next to": 1, "floating above": 0}
    seen: Counter[str] = Counter()

    def fill(inst, k):
        seen[inst.category] += 1
        return [0.9, 0.1] if seen[inst.category] <= right[inst.category] else [0.1, 0.9]

    got = values(b.compute(scored(instances, fill)))
    per = {"on": 0.75, "behind": 0.5, "wearing": 1.0, "eating": 0.0, "near": 1.0, "next to": 1.0, "floating above": 0}
    for rel, acc in per.items():
        assert got[("i2t_accuracy", rel)].value == pytest.approx(acc)
    kept = [per[r] for r in per if r not in ("near", "next to")]
    macro = got[("i2t_accuracy_macro", "all")]
    assert macro.value == pytest.approx(np.mean(kept)) and macro.n == 12 and macro.tie_rule == "wrong"
    assert "5 relations" in macro.averaging and "symmetric" in macro.averaging
    assert got[("i2t_accuracy_macro", "spatial")].value == pytest.approx((0.75 + 0.5) / 2)
    assert got[("i2t_accuracy_macro", "verb")].value == pytest.approx((1.0 + 0.0) / 2)
    assert got[("i2t_accuracy_micro", "all")].value == pytest.approx(10 / 15)

    seen.clear()
    everything = values(bench(VGRelation, aro_root, exclude_symmetric=False).compute(scored(instances, fill)))
    assert everything[("i2t_accuracy_macro", "all")].value == pytest.approx(np.mean(list(per.values())))


def test_vg_tie_counts_wrong_and_nan_is_rejected(aro_root):
    for cls in (VGRelation, VGAttribution):
        b = bench(cls, aro_root)
        instances = b.load_instances()
        got = values(b.compute(scored(instances, lambda inst, k: [0.5, 0.5])))
        micro = got[("i2t_accuracy_micro", "all")]
        assert micro.value == 0.0 and micro.ties == len(instances) and micro.tie_rule == "wrong"
        with pytest.raises(ScoreError):
            b.compute(scored(instances, lambda inst, k: [float("nan"), 0.1]))


def test_vg_attribution_skips_pairs_under_25_cases(aro_root):
    b = bench(VGAttribution, aro_root)
    instances = b.load_instances()
    assert Counter(i.category for i in instances) == {"white_black": 25, "black_white": 2, "red_blue": 24}

    def fill(inst, k):  # white_black all right, black_white and red_blue all wrong
        return [0.9, 0.1] if inst.category == "white_black" else [0.1, 0.9]

    got = values(b.compute(scored(instances, fill)))
    macro = got[("i2t_accuracy_macro", "all")]
    assert macro.value == 1.0 and macro.n == 25 and "at least 25" in macro.averaging
    assert got[("i2t_accuracy", "red_blue")].n == 24  # reported, not averaged
    assert got[("i2t_accuracy_micro", "all")].value == pytest.approx(25 / 51)
    loose = values(bench(VGAttribution, aro_root, min_pair_count=1).compute(scored(instances, fill)))
    assert loose[("i2t_accuracy_macro", "all")].value == pytest.approx(1 / 3)
    # with no pair above the threshold (e.g. a --limit run) there is no macro value rather than NaN
    few = values(b.compute(scored(instances[:3], fill)))
    assert ("i2t_accuracy_macro", "all") not in few and ("i2t_accuracy_micro", "all") in few


def test_table2_macro_is_reproduced_from_its_per_relation_rows():
    """ARO Table 2's Accuracy rows equal our macro over its 45 per-relation accuracies (symmetric dropped).

    Inputs and outputs are both rounded to 2 decimals, so they agree within 0.005 + 0.005.
    """
    rows = VGRelation(build(VGRelation.Params, {}), Path("/nonexistent")).reference_rows()
    rules = relation_rules()
    for model in {r.source for r in rows if r.table == "Table 2"}:
        per = {
            r.category: r.value
            for r in rows
            if r.table == "Table 2" and r.source == model and r.metric == "i2t_accuracy"
        }
        assert len(per) == 45 and not set(per) & rules.symmetric
        per |= {"near": 0.0, "next to": 1.0}  # symmetric relations must not move the macro
        instances, fills = [], []
        for rel, acc in per.items():
            for k in range(100):
                instances.append(
                    Instance(f"{rel}/{k}", rel, (ImageSource(Path("x.jpg")),), ("t", "f"), {"positive": 0})
                )
                fills.append([1.0, 0.0] if k < round(acc * 100) else [0.0, 1.0])
        got = values(
            VGRelation(build(VGRelation.Params, {}), Path(".")).compute(
                scored(instances, lambda i, k, fills=fills: fills[k])
            )
        )
        reported = {
            (r.category): r.value
            for r in rows
            if r.table == "Table 2" and r.source == model and r.metric == "i2t_accuracy_macro"
        }
        for category in ("all", "spatial", "verb"):
            assert got[("i2t_accuracy_macro", category)].value == pytest.approx(reported[category], abs=0.01), (
                model,
                category,
            )


def test_missing_vg_file_names_the_google_drive_id_and_is_unpinned(tmp_path):
    b = VGRelation(build(VGRelation.Params, {}), tmp_path)
    with pytest.raises(DataUnavailable) as info:
        b.check_data()
    assert "1kX2iCHEv0CADL8dSO1nMdW-V0NqIAiP3" in str(info.value) and "not pinned" in str(info.value)
    (file,) = b.data_files()
    assert file.sha256 == "unpinned" and file.relpath == "aro/visual_genome_relation.json"
    assert b.data_version == "upstream-unpinned-missing"
    (tmp_path / "aro").mkdir()
    (tmp_path / "aro" / "visual_genome_relation.json").write_text('{"not": "a list"}')
    b.check_data()
    assert b.data_version.startswith("upstream-unpinned-") and "missing" not in b.data_version
    with pytest.raises(InputError, match="expected a JSON list of records"):
        b.load_instances()
    hint = VGAttribution(build(VGAttribution.Params, {}), tmp_path).image_hint()
    assert "1qaPlrwhGNMrR3a11iopZUT_GPP_LrgP9" in hint


def test_real_vg_files_have_the_paper_counts(shared_data):
    folder = shared_data / "aro"
    if not (folder / "visual_genome_relation.json").is_file():
        pytest.skip("ARO's VG files are not in ../shared/data (upstream hosts them on Google Drive)")
    for cls, n in ((VGRelation, 23937), (VGAttribution, 28748)):
        b = cls(build(cls.Params, {}), shared_data)
        assert len(b.load_instances()) == n


# ---------------------------------------------------------------------------------------------
# Order tasks: perturbations, seeds, tie rule


def test_pre_caption_matches_aro():
    assert aro_order.pre_caption("A man.  Riding (a) horse!\n") == "a man riding a horse"
    assert aro_order.pre_caption("x ; y: z~") == "x y z"
    long = " ".join(f"w{i}" for i in range(40))
    assert aro_order.pre_caption(long).split() == [f"w{i}" for i in range(30)]


def test_perturbations_move_only_what_they_should():
    tagger = TableTagger.from_file(FIXTURE / "karpathy" / "order_tags.json")
    caption = "remarkable scene with a blue ball behind a green chair"
    tagged, words = tagger.tag(caption), tagger.words(caption)
    nouns = {i for i, (_, t) in enumerate(tagged) if t in aro_order.NOUN_TAGS}
    adjs = {i for i, (_, t) in enumerate(tagged) if t in aro_order.ADJ_TAGS}
    tokens = [w for w, _ in tagged]
    outs = set()
    for seed in range(8):
        rng = aro_order.case_rng(seed, "k")
        a = aro_order.shuffle_nouns_and_adj(tagged, rng).split()
        assert all(a[i] == tokens[i] for i in range(len(tokens)) if i not in nouns | adjs)
        assert sorted(a[i] for i in nouns) == sorted(tokens[i] for i in nouns)
        assert sorted(a[i] for i in adjs) == sorted(tokens[i] for i in adjs)
        b = aro_order.shuffle_allbut_nouns_and_adj(tagged, rng).split()
        assert all(b[i] == tokens[i] for i in nouns | adjs) and sorted(b) == sorted(tokens)
        c = aro_order.shuffle_within_trigrams(words, rng).split()
        assert [sorted(c[i : i + 3]) for i in range(0, 10, 3)] == [sorted(words[i : i + 3]) for i in range(0, 10, 3)]
        d = aro_order.shuffle_trigrams(words, rng)
        groups = [" ".join(g) for g in aro_order.trigrams(words)]
        assert d in {" ".join(p) for p in itertools.permutations(groups)}
        outs.add((tuple(a), tuple(b), tuple(c), d))
    assert len(outs) > 1  # seeds differ
    assert aro_order.trigrams(["a", "b", "c", "d"]) == [["a", "b", "c"], ["d"]]
    first = aro_order.order_case(caption, tagged, words, aro_order.case_rng(3, "k"))
    again = aro_order.order_case(caption, tagged, words, aro_order.case_rng(3, "k"))
    assert first == again and first.texts[0] == caption


def test_order_cases_per_seed_with_ids_identity_flags_and_data_version(aro_root):
    b = bench(COCOOrder, aro_root, tagger=TABLE)
    b.check_data()
    instances = b.load_instances()
    assert len(instances) == 3 * 6  # 3 seeds x 6 captions
    assert [i.id for i in instances[:2]] == ["seed0/0", "seed0/1"] and instances[6].id == "seed1/0"
    assert {i.category for i in instances} == {"seed0", "seed1", "seed2"}
    for inst in instances:
        assert len(inst.texts) == 5 and inst.gold["positive"] == 0
        assert inst.gold["identical"] == [t == inst.texts[0] for t in inst.texts[1:]]
        assert inst.images[0].path.parent == aro_root / "coco" / "val2014"
    dog = [i for i in instances if i.texts[0] == "a dog"]
    assert len(dog) == 3 and all(i.gold["identical"][0] for i in dog)  # one noun, no adjective
    version = b.data_version
    assert "seeds-0.1.2" in version and "table-" in version and aro_order.PERTURBATION_VERSION in version
    assert bench(COCOOrder, aro_root, tagger=TABLE, seeds=[5]).data_version != version
    assert [i.id for i in bench(COCOOrder, aro_root, tagger=TABLE, seeds=[5]).load_instances()][:1] == ["seed5/0"]
    flickr = bench(Flickr30kOrder, aro_root, tagger=TABLE).load_instances()
    assert len(flickr) == 3 * 6 and flickr[0].images[0].path.parent == aro_root / "flickr30k" / "flickr30k-images"


def test_order_tie_with_the_original_counts_right(aro_root):
    b = bench(COCOOrder, aro_root, tagger=TABLE)
    instances = b.load_instances()
    tied = values(b.compute(scored(instances, lambda inst, k: [0.5] * 5)))
    overall = tied[("i2t_accuracy", "all")]
    assert overall.value == 1.0 and overall.ties == len(instances) and overall.tie_rule == "right"
    assert "3 seeds" in overall.averaging

    # per seed: seed0 all right, seed1 right on even cases, seed2 all wrong (a perturbation above)
    def fill(inst, k):
        seed, case = inst.gold["seed"], int(inst.id.split("/")[1])
        good = seed == 0 or (seed == 1 and case % 2 == 0)
        return [0.9, 0.1, 0.2, 0.3, 0.4] if good else [0.5, 0.1, 0.2, 0.8, 0.4]

    got = values(b.compute(scored(instances, fill)))
    assert [got[("i2t_accuracy", f"seed{s}")].value for s in range(3)] == [1.0, 0.5, 0.0]
    assert got[("i2t_accuracy", "all")].value == pytest.approx(0.5)
    assert got[("i2t_accuracy_seed_std", "all")].value == pytest.approx(0.5)
    assert got[("i2t_pairwise_accuracy", "shuffle_within_trigrams")].value == pytest.approx(9 / 18)
    assert got[("i2t_pairwise_accuracy", "shuffle_nouns_and_adj")].value == 1.0
    flags = np.array([i.gold["identical"] for i in instances])
    assert got[("identical_rate", "shuffle_nouns_and_adj")].value == pytest.approx(flags[:, 0].mean())
    assert got[("identical_rate", "any")].value == pytest.approx(flags.any(axis=1).mean())
    assert got[("identical_rate", "any")].value > 0
    with pytest.raises(ScoreError):
        b.compute(scored(instances, lambda inst, k: [0.5, 0.1, float("nan"), 0.2, 0.3]))


def test_reference_rows_are_fractions_for_known_metrics():
    for cls in (VGRelation, VGAttribution, COCOOrder, Flickr30kOrder):
        b = cls(build(cls.Params, {}), Path("."))
        specs = {s.id for s in b.metric_specs()}
        rows = b.reference_rows()
        assert rows and all(r.benchmark == cls.type_name for r in rows)
        assert all(r.metric in specs and 0.0 <= r.value <= 1.0 and r.citation for r in rows)
    order = {(r.table, r.source): r.value for r in COCOOrder(build(COCOOrder.Params, {}), Path(".")).reference_rows()}
    assert order[("Table 5", "CLIP ViT-B/32")] == 0.46 and order[("Table 5", "Chance-level")] == 0.2
    assert order[("Table 6", "NegCLIP ViT-B/32")] == 0.86


# ---------------------------------------------------------------------------------------------
# POS tagger


def test_missing_spacy_says_how_to_install(monkeypatch, aro_root):
    monkeypatch.setitem(sys.modules, "spacy", None)  # import spacy -> ImportError
    with pytest.raises(TaggerUnavailable) as info:
        load_tagger("spacy")
    assert SPACY_INSTALL in str(info.value)
    assert SPACY_INSTALL == "pip install spacy && python -m spacy download en_core_web_sm"
    assert isinstance(info.value, Unavailable)  # a run reports the cell as unavailable
    b = COCOOrder(build(COCOOrder.Params, {"version": "custom"}), aro_root)
    assert "en_core_web_sm" in b.data_version  # naming the tagger loads nothing
    with pytest.raises(TaggerUnavailable):
        b.load_instances()


def test_table_tagger_and_specs(tmp_path, aro_root):
    with pytest.raises(ValueError, match="unknown tagger"):
        load_tagger("stanza")
    with pytest.raises(TaggerUnavailable, match="does not exist"):
        load_tagger("table:nothing.json", tmp_path)
    assert tagger_identity(TABLE, aro_root).startswith("table-")
    tagger = load_tagger(TABLE, aro_root)
    assert tagger.tag("A dog.") == [("A", "DT"), ("dog", "NN"), (".", ".")]
    table = json.loads((aro_root / "karpathy" / "order_tags.json").read_text())
    del table["captions"]["A dog."]
    (aro_root / "karpathy" / "order_tags.json").write_text(json.dumps(table))
    with pytest.raises(DataUnavailable, match="no entry for 'A dog.'"):
        bench(COCOOrder, aro_root, tagger=TABLE).load_instances()


# ---------------------------------------------------------------------------------------------
# End to end through the command line with the tiny open_clip model


@pytest.mark.slow  # two real ARO files end to end
def test_tiny_openclip_end_to_end_on_vg_relation_and_coco_order(vlc_run, aro_root, tiny_spec):
    out = vlc_run(
        "-m",
        tiny_spec,
        "-b",
        "aro_vg_relation:version=custom",
        "-b",
        f"aro_coco_order:version=custom,tagger={TABLE}",
        data_root=aro_root,
    )
    assert out.exit_code == 0, out.output
    shown = json.loads(vlc_run.cli("show", "--format", "json").stdout)
    cells = {c["benchmark"]: c for c in shown["cells"]}
    assert len(cells) == 2 and all(c["status"] == "ok" for c in cells.values())
    vgr = {(m["metric"], m["category"]): m for m in cells["aro_vg_relation:version=custom"]["metrics"]}
    assert vgr[("i2t_accuracy_macro", "all")]["tie_rule"] == "wrong" and vgr[("i2t_accuracy", "on")]["n"] == 4
    order = {(m["metric"], m["category"]): m for m in cells[f"aro_coco_order:version=custom,tagger={TABLE}"]["metrics"]}
    assert order[("i2t_accuracy", "all")]["tie_rule"] == "right" and order[("i2t_accuracy", "seed2")]["n"] == 6
    # each (image file, crop) is its own image key; identical texts are scored once
    with sqlite3.connect(vlc_run.store_path) as conn:
        keys = {k for (k,) in conn.execute("SELECT DISTINCT image_key FROM scores")}
    crops = {k for k in keys if '"crop"' in k}
    assert len(crops) == 15 and len({k.split("|")[0] for k in crops}) == 8
    # spaCy absent here: the default tagger leaves the cell unavailable with the install line
    if not spacy_available():
        out = vlc_run("-m", "random", "-b", "aro_coco_order:version=custom", data_root=aro_root)
        assert out.exit_code == 3 and "unavailable" in out.output and "pip install spacy" in out.output
