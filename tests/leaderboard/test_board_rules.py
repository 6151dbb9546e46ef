"""The board's rules without a browser: paired-bootstrap ranks exactly as the core's, human values
derived only where the declaration allows, failure reasons worded by their reason code (never by
their text) with no local path, and BibTeX derived from the citation lines."""

from __future__ import annotations

import numpy as np
import pytest

from vlc_harness.reasons import Reason


def test_all_pairs_significance_is_the_cores_bit_for_bit():
    from vlc_harness.metrics import bootstrap
    from vlc_harness.results import ranks, significance

    rng = np.random.default_rng(7)
    for trial in range(40):
        m = int(rng.integers(2, 9))
        samples = int(rng.choice([20, 37, 200, 1000]))
        base = rng.random(m) * 0.1
        reps = {f"m{i}": np.round(base[i] + rng.normal(0, 0.03, samples), int(rng.integers(1, 4))) for i in range(m)}
        reps["twin"] = reps["m0"].copy()  # identical replicates: never significant either way
        if trial % 4 == 0:  # ROC AUC on a one-class resample is NaN: the core then finds nothing significant
            reps["m1"] = reps["m1"] + 0.5  # far better, but for the NaN resamples
            reps["m1"][rng.integers(0, samples, 3)] = np.nan
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
    from vlc_harness.results import derived_means
    from vlc_leaderboard.declared import drilldown
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
        derived[cell.benchmark_id] = derived_means(bench, humans, cell.metrics)
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


def test_a_human_macro_is_the_same_with_or_without_a_stored_cell():
    """One rule (issue 41, item 8): a benchmark no model has a result on yet (the quickstart's SugarCrepe)
    derives the same human macro from the papers' per-category values as one with a stored cell."""
    import tempfile
    from pathlib import Path

    from bench.render_speed import synthetic_cells
    from vlc_harness.plugins import get_plugins
    from vlc_harness.results import derived_means
    from vlc_leaderboard.tables import benchmark_of

    plugins = get_plugins()
    _, cells = synthetic_cells(1, Path(tempfile.mkdtemp()), ["sugarcrepe", "hard_positives", "bivlc"], samples=0)
    for cell in cells:
        bench = benchmark_of(cell, plugins.benchmarks)
        humans = {(r.metric, r.category): r.value for r in bench.reference_rows() if r.matches == "human"}
        assert derived_means(bench, humans, None) == derived_means(bench, humans, cell.metrics), cell.benchmark_id
    assert derived_means(bench, {}, None) == {}


def test_a_pooled_value_is_never_derived():
    from vlc_harness.metrics.aggregate import Micro, PerCategory
    from vlc_harness.metrics.pairwise import PairwiseAccuracy
    from vlc_harness.results import derived_means

    class Bench:
        def metric_families(self):
            return (PairwiseAccuracy("acc", "accuracy", (PerCategory(), Micro())),)

    rows = [
        {"metric": "acc", "category": "a", "n": 10, "averaging": PerCategory().averaging()},
        {"metric": "acc", "category": "b", "n": 30, "averaging": PerCategory().averaging()},
    ]
    assert derived_means(Bench(), {("acc", "a"): 1.0, ("acc", "b"): 0.5}, rows) == {}
    assert derived_means(Bench(), {("acc", "a"): 1.0, ("acc", "b"): 0.5}, None) == {}  # no stored cell either


@pytest.mark.parametrize(
    "status, code, phrase",
    [
        ("unavailable", "weights_missing", "could not be downloaded"),
        ("unavailable", "gated", "could not be downloaded"),
        ("unavailable", "data_missing", "data files"),
        ("unavailable", "version_too_old", "software versions"),
        ("unavailable", "package_missing", "software package it needs was not installed"),
        ("failed", "scores_missing", "scores file has no score"),
        ("failed", "out_of_memory", "ran out of memory"),
        ("failed", "timeout", "stopped making progress"),
        ("failed", "instances_failed", "Some instances could not be scored"),
        ("failed", "score_error", "Some instances could not be scored"),
        ("failed", "worker_died", "failed on the machine"),
        ("failed", "worker_error", "failed on the machine"),
        ("partial", "auth", "not queried"),
        ("partial", "limited", "part of the benchmark"),
        ("partial", "request_failed", "part of the benchmark"),
        ("skipped", "not_applicable", "Not applicable"),
        ("not run", None, "not been evaluated"),
    ],
)
def test_failure_reasons_are_phrased_for_readers_by_their_code(status, code, phrase):
    from vlc_leaderboard.public import public_reason

    text = public_reason(status, code)
    assert phrase in text and "/" not in text and "HF_" not in text


# the sentences readers saw before reason codes, and the one sentence added since (a missing plugin
# package, issue 30): a code is worded by one of them, never by another
SENTENCES = {
    "Not evaluated: the model's weights could not be downloaded when this board was built.",
    "Not evaluated: the benchmark's data files were not present when this board was built.",
    "Not evaluated: the data this model is fitted on was not present when this board was built.",
    "The model's scores file has no score for some of this benchmark's pairs, so no number is published.",
    "Not evaluated: this API model was not queried for this board.",
    "The evaluation ran out of memory.",
    "The evaluation stopped making progress and was stopped.",
    "Not evaluated: the software versions on the build machine cannot run this model.",
    "Some instances could not be scored, so no number is published.",
    "Not evaluated: the model's weights or the benchmark's data could not be had on the machine that built this board.",
    "The evaluation failed on the machine that built this board.",
    "Not applicable: this model's way of scoring does not apply to this benchmark.",
    "Only part of the benchmark was scored (a limited or interrupted run), so no number is published.",
    "Not evaluated: a software package it needs was not installed on the machine that built this board.",
    "Not evaluated: an input file (the benchmark's data or the submitted scores) was malformed when this board was "
    "built.",
}

# texts the board's old patterns read as something else than what happened (the first names
# Hugging Face, OOM ('boom'), a 401 and a timeout at once; the second says 'version' and 'API key')
MISLEADING = [
    "ValueError: boom while reading huggingface.co/x (HTTP 401), then timed out",
    "the API key file names version 2 needed by /home/u/run.py; HF_HUB_OFFLINE",
    "",
]


def test_a_failure_reason_counts_what_is_missing_and_says_submitted_only_of_a_submitted_entry():
    from vlc_leaderboard.public import public_reason

    scores = "scores_missing"
    assert public_reason("failed", scores, 94, 7512) == (
        "The model's scores file has no score for 94 of this benchmark's 7,512 instances, so no number is published."
    )
    assert public_reason("failed", scores, 7512, 7512) == "The model's scores file has no scores for this benchmark."
    assert public_reason("failed", scores, 7512, 7512, submitted=True) == (
        "The submitted scores file has no scores for this benchmark."
    )
    assert public_reason("failed", "image_error", 3, 400) == (
        "3 of 400 instances could not be scored (images missing or unreadable), so no number is published."
    )
    assert (
        public_reason("failed", "out_of_memory", 3, 400) == "The evaluation ran out of memory."
    )  # not an instance count


def test_the_board_words_each_cell_by_its_code_whatever_its_text_says(tmp_path):
    import json

    from vlc_harness.plugins import get_plugins
    from vlc_harness.registry import load_registry
    from vlc_harness.store import CellRecord
    from vlc_leaderboard.board import build_board
    from vlc_leaderboard.public import public_reason

    status_of = {Reason.LIMITED: "partial", Reason.AUTH: "partial", Reason.NOT_APPLICABLE: "skipped"}
    cells, expected = [], {}
    for code in sorted(Reason):
        status = status_of.get(code, "unavailable" if "missing" in code or code == "gated" else "failed")
        for k, message in enumerate(MISLEADING):
            model = f"{code}-{k}"
            cells.append(CellRecord(model, "sugarcrepe", "sugarcrepe", status, error=message or None, reason_code=code))
            expected[model] = public_reason(status, code)
    models = [{"id": c.model_id, "type": "random", "params": {"seed": k}} for k, c in enumerate(cells)]
    benchmarks = [{"id": "sugarcrepe", "type": "sugarcrepe", "params": {"version": "custom"}}]
    (tmp_path / "registry.yaml").write_text(json.dumps({"models": models, "benchmarks": benchmarks}))
    plugins = get_plugins()
    board = build_board(cells, load_registry([tmp_path / "registry.yaml"], plugins), plugins)
    shown = {row.id: cv.public_reason for row in board.rows for cv in row.cells.values()}
    assert shown == expected  # the same words for every text a code comes with
    for code in Reason:
        assert len({shown[f"{code}-{k}"] for k in range(len(MISLEADING))}) == 1
        for status in ("unavailable", "failed", "partial", "skipped"):
            assert public_reason(status, code) in SENTENCES, (status, code)
    # what the old patterns would have said of the first text (weights), the board now says by code
    assert (
        shown["data_missing-0"]
        == "Not evaluated: the benchmark's data files were not present when this board was built."
    )
    assert shown["worker_error-0"] == "The evaluation failed on the machine that built this board."


def test_the_reason_words_read_no_message():
    import inspect

    from vlc_leaderboard.public import public_reason

    parameters = inspect.signature(public_reason).parameters
    assert list(parameters) == ["status", "code", "failed", "instances", "submitted"]  # counts and a flag, no text
    assert [parameters[p].annotation for p in ("failed", "instances", "submitted")] == ["int", "int", "bool"]


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


def test_bibtex_is_the_cards_and_never_derived_from_the_citation_line():
    from vlc_harness.plugins import get_plugins
    from vlc_leaderboard.cite import benchmark_bibtex, board_bibtex

    plugins = get_plugins()
    wino = plugins.benchmarks.get("winoground").cls
    assert benchmark_bibtex(wino) == wino.card.bibtex.strip()
    assert benchmark_bibtex(wino).startswith("@inproceedings{thrush2022winoground,\n  title = {{Winoground}: Probing")
    shapes = plugins.benchmarks.get("shapes").cls
    assert shapes.citation and benchmark_bibtex(shapes) == ""  # prose only: nothing is guessed from it

    class Prose:
        citation = "Doe, Roe. A Title. CVPR 2026."

    assert benchmark_bibtex(Prose) == ""
    board = board_bibtex({"harness_version": "1.0", "registry_digest": "abc"}, "2026-05-01 10:00 UTC", "2026-05")
    assert "@misc{vlcharness2026leaderboard_202605," in board and "release 2026-05" in board
