"""The board's rules without a browser: paired-bootstrap ranks exactly as the core's, human values
derived only where the declaration allows, failure reasons phrased for readers with no local path,
and BibTeX derived from the citation lines."""

from __future__ import annotations

import numpy as np
import pytest


def test_all_pairs_significance_is_the_cores_bit_for_bit():
    from vlc_harness.metrics import bootstrap
    from vlc_leaderboard.stats import ranks, significance

    rng = np.random.default_rng(7)
    for trial in range(40):
        m = int(rng.integers(2, 9))
        samples = int(rng.choice([20, 37, 200, 1000]))
        base = rng.random(m) * 0.1
        reps = {f"m{i}": np.round(base[i] + rng.normal(0, 0.03, samples), int(rng.integers(1, 4))) for i in range(m)}
        reps["twin"] = reps["m0"].copy()  # identical replicates: never significant either way
        for higher in (True, False):
            assert ranks(reps, higher) == bootstrap.ranks(reps, higher), (trial, higher)
            names = list(reps)
            matrix = significance(np.stack([reps[n] for n in names]), higher)
            for i, a in enumerate(names):
                for j, b in enumerate(names):
                    if i != j:
                        assert (matrix[i, j] == 1) == bootstrap.significantly_better(reps[a], reps[b], higher)


def test_human_macro_is_derived_only_from_a_declared_unweighted_mean():
    from bench.render_speed import synthetic_cells
    from vlc_harness.plugins import get_plugins
    from vlc_leaderboard.declared import derive_humans, drilldown
    from vlc_leaderboard.tables import benchmark_of

    plugins = get_plugins()
    import tempfile
    from pathlib import Path

    _, cells = synthetic_cells(1, Path(tempfile.mkdtemp()), ["sugarcrepe", "hard_positives", "bivlc"], samples=0)
    derived = {}
    for cell in cells:
        bench = benchmark_of(cell, plugins.benchmarks)
        assert bench is not None
        humans = {(r.metric, r.category): r.value for r in bench.reference_rows() if r.matches == "human"}
        derived[cell.benchmark_id] = derive_humans(bench, humans, cell.metrics)
        drill = drilldown(bench, bench.headline_metric(), cell.metrics)
        assert drill is not None
        if cell.benchmark_id == "sugarcrepe":
            assert drill.metric == "i2t_accuracy" and drill.unit == "subset" and len(drill.categories) == 7
    # SugarCrepe's headline is the unweighted mean of its 7 subsets: (100+99+97+99+100+99+99)/7
    assert derived["sugarcrepe"] == {("i2t_accuracy_macro", "all"): pytest.approx(0.99)}
    # hard positives: 'all' is the mean of the two forms (REPLACE, SWAP), each given by the paper
    assert derived["hard_positives"][("aug_accuracy", "all")] == pytest.approx((0.97 + 1.0) / 2)
    # BiVLC's humans are overall already; nothing per category to derive from
    assert derived["bivlc"] == {}


def test_a_pooled_value_is_never_derived():
    from vlc_harness.metrics.aggregate import Micro, PerCategory
    from vlc_harness.metrics.pairwise import PairwiseAccuracy
    from vlc_leaderboard.declared import derive_humans

    class Bench:
        def metric_families(self):
            return (PairwiseAccuracy("acc", "accuracy", (PerCategory(), Micro())),)

    rows = [
        {"metric": "acc", "category": "a", "n": 10, "averaging": PerCategory().averaging()},
        {"metric": "acc", "category": "b", "n": 30, "averaging": PerCategory().averaging()},
    ]
    assert derive_humans(Bench(), {("acc", "a"): 1.0, ("acc", "b"): 0.5}, rows) == {}


@pytest.mark.parametrize(
    "status, raw, phrase",
    [
        (
            "unavailable",
            "timm/x is not in the local Hugging Face cache and HF_HUB_OFFLINE is set",
            "could not be downloaded",
        ),
        (
            "unavailable",
            "SugarCrepe data is not ready under /data: missing /data/sugarcrepe/x.json (get https://a/b)",
            "data files",
        ),
        (
            "failed",
            "28 of 28 instances failed, e.g. a/0: /home/u/blip.jsonl has no score for bivlc",
            "submitted scores file",
        ),
        ("failed", "worker died", "failed on the machine"),
        ("skipped", "protocol choose does not apply", "Not applicable"),
        ("partial", "", "part of the benchmark"),
    ],
)
def test_failure_reasons_are_phrased_for_readers(status, raw, phrase):
    from vlc_leaderboard.public import public_reason

    text = public_reason(status, raw)
    assert phrase in text and "/" not in text and "HF_" not in text


def test_local_paths_are_redacted_and_urls_and_model_names_kept():
    from vlc_leaderboard.public import has_local_path, page_slug, redact_paths

    assert redact_paths("/home/a/models/blip.jsonl has no score") == "<local folder>/blip.jsonl has no score"
    assert redact_paths("open_clip:arch=ViT-B-32,pretrained=/ckpt/epoch_3.pt") == (
        "open_clip:arch=ViT-B-32,pretrained=<local folder>/epoch_3.pt"
    )
    kept = "OpenAI ViT-B/32, I2T/T2I, (get https://raw.githubusercontent.com/x/y.json) and hf:laion/CLIP@abc"
    assert redact_paths(kept) == kept and not has_local_path(kept)
    assert redact_paths("C:\\Users\\me\\w.pt and ~/data/x.json") == "<local folder>/w.pt and <local folder>/x.json"
    a, b = page_slug("precomputed:path=/a/scores.jsonl"), page_slug("precomputed:path=/b/scores.jsonl")
    assert a != b and "/a" not in a and page_slug("openai-vit-b-32") == "openai-vit-b-32"


def test_bibtex_is_derived_from_the_citation_line():
    from vlc_harness.plugins import get_plugins
    from vlc_leaderboard.cite import benchmark_bibtex, board_bibtex

    plugins = get_plugins()
    wino = benchmark_bibtex(plugins.benchmarks.get("winoground").cls, "winoground")
    assert wino.startswith("@inproceedings{thrush2022winoground,") and "booktitle = {CVPR}" in wino
    assert "author = {Thrush and Jiang and Bartolo and Singh and Williams and Kiela and Ross}" in wino
    bivlc = benchmark_bibtex(plugins.benchmarks.get("bivlc").cls, "bivlc")
    assert "eprint = {2406.09952}" in bivlc and "title = {BiVLC: Extending" in bivlc
    for name, registered in plugins.benchmarks.entries.items():
        entry = benchmark_bibtex(registered.cls, name)
        assert entry.count("{") == entry.count("}"), name  # balanced: a BibTeX parser reads it
    board = board_bibtex({"harness_version": "1.0", "registry_digest": "abc"}, "2026-05-01 10:00 UTC", "2026-05")
    assert "@misc{vlcharness2026leaderboard_202605," in board and "release 2026-05" in board
