"""SugarCrepe++: the upstream schema, the image-to-text task exactly as test_Variants_CLIP.py computes
it (strict), P1/P2-vs-negative, the text-only task from text-text scores (strict; hand-computed and
against upstream's own code path on a tiny open_clip), the pinned files and counts, and the board."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest

from tests.conftest import shared_data_dir
from vlc_harness.benchmarks import InstanceScores
from vlc_harness.errors import DataUnavailable
from vlc_harness.metrics.cell import cell_metrics, compute_values, declared_ids
from vlc_harness.metrics.outcomes import Outcomes
from vlc_harness.params import build
from vlc_harness.store import open_store
from vlc_harness.store.scores import text_pair_key
from vlc_harness_builtins.benchmarks.sugarcrepe_pp import COUNTS, SHA256, SUBSETS, UPSTREAM, SugarCrepePP
from vlc_harness_builtins.testing.data_sugarcrepe_pp import write_example

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
    assert {"itt_accuracy", "p1_neg_accuracy", "p2_neg_accuracy", "tot_accuracy", "tot_accuracy_macro"} <= ids
    assert not any(m.startswith("tot") for m, _ in got)  # image-text scores alone: no text-only task


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
        "meta: {note: 'The random baseline takes no text-only task.'}}\n"
    )
    ran = vlc_run("--all", "--registry", str(registry), data_root=root)
    assert ran.exit_code == 0, ran.output
    out = tmp_path / "site"
    assert vlc_run.cli("render", "--out", str(out), "--registry", str(registry)).exit_code == 0
    page = (out / "benchmarks" / "sugarcrepe-pp.html").read_text()
    assert "SugarCrepe++" in page and "The random baseline takes no text-only task." in page


# -- the text-only task (TOT) -------------------------------------------------------------------
def upstream_tot(p1p2: float, p1_neg: float, p2_neg: float) -> bool:
    """test_Variants_CLIP.py line 88 (and evaluate_ulms.py line 169): strict on both sides."""
    return p1p2 > p1_neg and p1p2 > p2_neg


def with_text_scores(instances, triplets, image_scores=None) -> Outcomes:
    """Outcomes holding s(P1, P2), s(P1, N) and s(P2, N) of each instance at the entries TOT reads
    (NaN everywhere else), and image-text scores (random unless given)."""
    n = len(instances)
    texts = np.full((n, 3, 3), np.nan)
    for k, (inst, (p1p2, p1n, p2n)) in enumerate(zip(instances, triplets)):
        p1, p2, neg = (inst.gold[r] for r in ("original", "positive", "negative"))
        texts[k, p1, p2], texts[k, p1, neg], texts[k, p2, neg] = p1p2, p1n, p2n
    if image_scores is None:
        image_scores = np.random.default_rng(5).random((n, 1, 3))
    return Outcomes(instances, np.asarray(image_scores, dtype=np.float64), np.ones(n, dtype=bool), texts)


HAND = [  # s(P1, P2), s(P1, N), s(P2, N); upstream's verdict; a tie of the task; credit under random ties
    ((0.9, 0.5, 0.4), 1, False, 1.0),  # replace_att
    ((0.5, 0.5, 0.1), 0, True, 0.5),  # P1-P2 tied with P1-N: wrong; half of the orders right
    ((0.3, 0.6, 0.2), 0, False, 0.0),  # replace_obj
    ((0.7, 0.1, 0.7), 0, True, 0.5),
    ((0.5, 0.5, 0.5), 0, True, 1 / 3),  # replace_rel: all three tied
    ((0.8, 0.2, 0.2), 1, False, 1.0),  # N tied with itself only: no tie of the task
    ((0.4, 0.9, 0.9), 0, False, 0.0),  # swap_att
    ((0.6, 0.7, 0.1), 0, False, 0.0),  # closer to N on one side is enough to fail
    ((-0.2, -0.3, -0.25), 1, False, 1.0),  # swap_obj: negative cosines
    ((0.95, 0.2, 0.96), 0, False, 0.0),
]


def test_tot_equals_a_hand_computed_case_with_its_ties(root):
    b = bench(root, version="custom")
    instances = b.load_instances()
    assert [i.category for i in instances] == [s for s in SUBSETS for _ in range(2)]
    triplets = [t for t, _, _, _ in HAND]
    assert [int(upstream_tot(*t)) for t in triplets] == [v for _, v, _, _ in HAND]
    got = values(compute_values(b, with_text_scores(instances, triplets)))
    tot = got[("tot_accuracy", "all")]
    assert (tot.value, tot.n, tot.ties, tot.tie_rule) == (pytest.approx(0.3), 10, 3, "wrong")
    per_subset = {s: got[("tot_accuracy", s)].value for s in SUBSETS}
    assert per_subset == {"replace_att": 0.5, "replace_obj": 0.0, "replace_rel": 0.5, "swap_att": 0.0, "swap_obj": 0.5}
    assert got[("tot_accuracy_macro", "all")].value == pytest.approx(0.3)
    assert got[("tot_accuracy", "REPLACE")].value == pytest.approx(2 / 6)
    assert got[("tot_accuracy", "SWAP")].value == pytest.approx(1 / 4)
    half = got[("tot_accuracy_ties_half", "all")]
    assert half.value == pytest.approx(np.mean([h for _, _, _, h in HAND])) and half.tie_rule == "random"
    spec = next(s for s in b.metric_specs() if s.id == "tot_accuracy")
    assert (spec.tie_rule, spec.chance, spec.direction) == ("wrong", pytest.approx(1 / 3), "t2t")


def test_tot_equals_upstreams_verdicts_on_random_scores_with_ties(root):
    b = bench(root, version="custom")
    instances = b.load_instances()
    rng = np.random.default_rng(12)
    for _ in range(5):
        triplets = rng.integers(0, 3, size=(len(instances), 3)).astype(float)
        got = values(compute_values(b, with_text_scores(instances, triplets)))
        verdicts = np.array([upstream_tot(*t) for t in triplets])
        assert got[("tot_accuracy", "all")].value == pytest.approx(verdicts.mean())
        for s in SUBSETS:
            mask = [i.category == s for i in instances]
            assert got[("tot_accuracy", s)].value == pytest.approx(verdicts[mask].mean())


def test_text_scores_change_no_image_to_text_value(root):
    b = bench(root, version="custom")
    instances = b.load_instances()
    rng = np.random.default_rng(8)
    image = rng.integers(0, 3, size=(len(instances), 1, 3)).astype(float)  # ties included
    with_texts = with_text_scores(instances, rng.random((len(instances), 3)), image)
    without = Outcomes(instances, image, np.ones(len(instances), dtype=bool))
    full, plain = cell_metrics(b, with_texts, samples=50), cell_metrics(b, without, samples=50)
    assert [m for m in full.metrics if not m["metric"].startswith("tot_")] == plain.metrics
    itt_replicates = {k: v for k, v in full.replicates.items() if not k[0].startswith("tot_")}
    assert itt_replicates.keys() == plain.replicates.keys()
    assert all(np.array_equal(itt_replicates[k], plain.replicates[k]) for k in plain.replicates)


# -- against upstream's own code path: open_clip text features and torch's cosine ---------------
def upstream_text_only(checkpoint: str, records: list[dict]) -> list[tuple[float, float, float]]:
    """test_Variants_CLIP.py @ c083bbf, lines 63-78: each caption tokenized and encoded alone with
    ``normalize=True``, then ``nn.CosineSimilarity(dim=1, eps=1e-6)`` of P1-P2, P1-N and P2-N."""
    import open_clip
    import torch

    from vlc_harness_builtins.models.openclip import register_inline_config
    from vlc_harness_builtins.testing.tiny_openclip import TINY_CONFIG

    name = register_inline_config(TINY_CONFIG)
    model, _, _ = open_clip.create_model_and_transforms(name, pretrained=checkpoint, pretrained_text=False)
    model.eval()
    tokenizer = open_clip.get_tokenizer(name)
    cos = torch.nn.CosineSimilarity(dim=1, eps=1e-6)
    out = []
    with torch.no_grad():
        for rec in records:
            p1, p2, neg = (
                model.encode_text(tokenizer(rec[f]), normalize=True)
                for f in ("caption", "caption2", "negative_caption")
            )
            out.append((cos(p1, p2).item(), cos(p1, neg).item(), cos(p2, neg).item()))
    return out


def harness_text_only(cell, store) -> dict[str, tuple[float, float, float]]:
    """Each instance's stored s(P1, P2), s(P1, N), s(P2, N) (P1, P2, N are texts 0, 1, 2)."""
    return {
        o.instance_id: (o.text_scores[0][1], o.text_scores[0][2], o.text_scores[1][2]) for o in store.outcomes(cell.id)
    }


def check_against_upstream(cell, store, folder: Path, checkpoint: str, per_subset: int | None = None) -> None:
    """Every text-text score within 1e-5 of upstream's, the same verdicts, the same subset means."""
    ours = harness_text_only(cell, store)
    tot = {m["category"]: m["value"] for m in cell.metrics if m["metric"] == "tot_accuracy"}
    for subset in SUBSETS:
        records = json.loads((folder / f"{subset}.json").read_text())[:per_subset]
        theirs = upstream_text_only(checkpoint, records)
        for rec, up in zip(records, theirs):
            mine = ours[f"{subset}/{rec['id']}"]
            assert mine == pytest.approx(up, abs=1e-5)
            if min(abs(up[0] - up[1]), abs(up[0] - up[2])) > 1e-5 or up[0] in (up[1], up[2]):
                assert upstream_tot(*mine) == upstream_tot(*up), rec["id"]
        if per_subset is None:  # the mean over the subset file, upstream line 98
            assert tot[subset] == pytest.approx(np.mean([upstream_tot(*up) for up in theirs]))


def run_tiny_clip(tiny_clip: dict, root: Path, store_url: str, **params):
    """The tiny open_clip model (random weights) on SugarCrepe++ through the harness."""
    from vlc_harness import evaluate
    from vlc_harness_builtins.testing.tiny_openclip import TINY_CONFIG

    model = {
        "type": "open_clip",
        "params": {"arch": TINY_CONFIG, "pretrained": tiny_clip["checkpoint"]},
        "run": {"batch_size": 256},
    }
    bench_spec = {"type": "sugarcrepe_pp", "params": params}
    return evaluate(model, [bench_spec], store=store_url, data_root=root, executor="inprocess")


def test_tot_of_a_tiny_open_clip_equals_upstreams_code_path(root, tiny_clip, tmp_path):
    url = f"sqlite:///{tmp_path / 'store.sqlite'}"
    (cell,) = run_tiny_clip(tiny_clip, root, url, version="custom").cells
    assert cell.status == "ok" and cell.provenance["text_similarity"] == "cosine"
    check_against_upstream(cell, open_store(url), root / "sugarcrepe_pp", tiny_clip["checkpoint"])


@pytest.fixture(scope="module")
def real_root(shared_data: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data root with the real SugarCrepe++ files and a stand-in image for each COCO file name."""
    from vlc_harness.testing import write_standin_images

    folder = shared_data / "sugarcrepe_pp"
    if not all((folder / f"{s}.json").is_file() for s in SUBSETS):
        pytest.skip("SugarCrepe++'s VLMs/data/*.json are not in ../shared/data")
    root = tmp_path_factory.mktemp("sugarcrepe_pp_real")
    (root / "sugarcrepe_pp").symlink_to(folder)
    names = {r["filename"] for s in SUBSETS for r in json.loads((folder / f"{s}.json").read_text())}
    write_standin_images(names, root / "coco" / "val2017")
    return root


@pytest.mark.slow
def test_tot_over_the_real_files_with_a_tiny_open_clip(real_root, tiny_clip, tmp_path):
    url = f"sqlite:///{tmp_path / 'store.sqlite'}"
    (cell,) = run_tiny_clip(tiny_clip, real_root, url).cells
    assert cell.status == "ok" and cell.n_scored == 4757, cell.error
    tot = {m["category"]: m for m in cell.metrics if m["metric"] == "tot_accuracy"}
    assert {s: tot[s]["n"] for s in SUBSETS} == COUNTS and tot["all"]["n"] == 4757
    # swap_obj's two cases whose negative is P1 itself: s(P2, N) is s(P1, P2), a tie, so wrong
    assert tot["swap_obj"]["ties"] == 2
    store = open_store(url)
    n_text = store.stats()["tables"]["text_scores"]
    records = [r for s in SUBSETS for r in json.loads((real_root / "sugarcrepe_pp" / f"{s}.json").read_text())]
    triplets = [(r["caption"], r["caption2"], r["negative_caption"]) for r in records]
    assert n_text == len({text_pair_key(t[a], t[b]) for t in triplets for a, b in ((0, 1), (0, 2), (1, 2))})
    check_against_upstream(cell, store, real_root / "sugarcrepe_pp", tiny_clip["checkpoint"], per_subset=8)
    again = run_tiny_clip(tiny_clip, real_root, url)
    assert again.cells[0].reused and open_store(url).stats()["tables"]["text_scores"] == n_text
