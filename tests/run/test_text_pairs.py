"""Text-text scores (SugarCrepe++'s text-only task): planned, computed from the text vectors the
image-text pairs already need, stored per batch under (model, text, text), reused warm, and never
lost to a crash; models without text vectors leave the task out and say why."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pytest

from vlc_harness import evaluate
from vlc_harness.models import EmbeddingModel, PairScoringModel, TextOnlyModel
from vlc_harness.params import build
from vlc_harness.run.chunks import last_uses, plan_chunks
from vlc_harness.run.compute import run_job
from vlc_harness.run.jobs import ImageTask, Job, Scores, TextScores
from vlc_harness.run.protocols import protocol_for
from vlc_harness.store import open_store
from vlc_harness.store.scores import text_pair_key
from vlc_harness_builtins.benchmarks.sugarcrepe_pp import SugarCrepePP
from vlc_harness_builtins.testing.data_sugarcrepe_pp import write_example

BENCH = "sugarcrepe_pp:version=custom"


def text_vector(text: str) -> np.ndarray:
    """A fixed pseudo-random vector per text (8 dimensions, from its sha256)."""
    seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")
    return np.random.default_rng(seed).normal(size=8)


class HashEmbed(EmbeddingModel):
    """A deterministic embed model for tests: text vectors from the text's hash, image vectors from
    the mean pixel colour; it counts what it encodes and may fail on a chosen text-pair batch."""

    type_name = "test_hash_embed"

    def __init__(self, params=None, run=None, fail_at_text_batch: int | None = None) -> None:
        from vlc_harness.models import RunOptions
        from vlc_harness.params import NoParams

        super().__init__(params or NoParams(), run or RunOptions(batch_size=2))
        self.fail_at_text_batch = fail_at_text_batch
        self.encoded: list[str] = []
        self.text_pairs_scored = 0
        self.text_batches = 0

    def preprocess(self, image):
        return np.asarray(image, dtype=np.float64).mean(axis=(0, 1))

    def embed_images(self, batch):
        return np.array([np.resize(np.ones(3) if x is None else x, 8) for x in batch], dtype=np.float64)

    def embed_texts(self, texts):
        self.encoded += texts
        return np.stack([text_vector(t) for t in texts])

    def text_pair_scores(self, a_vecs, b_vecs):
        self.text_batches += 1
        if self.text_batches == self.fail_at_text_batch:
            raise RuntimeError("the model crashed")
        self.text_pairs_scored += len(a_vecs)
        return super().text_pair_scores(a_vecs, b_vecs)


def cosine(a: str, b: str) -> float:
    x, y = text_vector(a), text_vector(b)
    return float(x @ y / np.linalg.norm(x) / np.linalg.norm(y))


@pytest.fixture
def pp_root(tmp_path: Path) -> Path:
    root = tmp_path / "data"
    write_example(root)
    return root


def _tasks(n: int, texts_of) -> list[ImageTask]:
    return [ImageTask(f"k{i:04d}", "-", None, texts_of(i)) for i in range(n)]


# -- which chunk scores which text pair ---------------------------------------------------------
def test_a_text_pair_is_scored_where_both_vectors_are_at_hand_and_tail_pairs_come_last():
    tasks = _tasks(5, lambda i: [f"t{i}", "shared"])
    pairs = [("t0", "t1"), ("t0", "t4"), ("shared", "t3"), ("only", "t2"), ("x", "y"), ("x", "z"), ("y", "z")]
    chunks = plan_chunks(tasks, pairs, size=2)
    assert [len(c.tasks) for c in chunks] == [2, 2, 1, 0, 0]
    assert chunks[0].pairs == [("t0", "t1")]
    assert chunks[1].pairs == [("shared", "t3"), ("only", "t2")]  # "only" is encoded with t2's chunk
    assert chunks[2].pairs == [("t0", "t4")]  # t0 (chunk 0) is kept until t4's chunk
    assert [c.pairs for c in chunks[3:]] == [[("x", "y"), ("x", "z")], [("y", "z")]]
    last = last_uses(chunks)
    assert last["t0"] == 2 and last["shared"] == 2 and last["only"] == 1 and last["x"] == 3 and last["z"] == 4


def test_each_text_is_encoded_once_and_text_pairs_come_from_the_same_vectors():
    texts_of = lambda i: [f"caption {i}", f"reworded {i}", f"negative {i % 7}"]  # noqa: E731
    tasks = _tasks(300, texts_of)  # two image chunks of 256 and 44 tasks
    pairs = [text_pair_key(a, b) for i in range(300) for a, b in [texts_of(i)[:2], texts_of(i)[::2]]]
    pairs += [("caption 3", "caption 299"), ("apart a", "apart b"), ("apart a", "caption 5")]
    pairs = list(dict.fromkeys(pairs))
    model = HashEmbed()
    model.needs_pixels = False  # image vectors are not what this test is about
    events = list(run_job(model, Job(tasks=tasks, text_pairs=pairs, batch_size=1)))
    unique = {t for task in tasks for t in task.texts} | {t for p in pairs for t in p}
    assert sorted(model.encoded) == sorted(unique)  # each unique text once, across chunks and pairs
    rows = [r for e in events if isinstance(e, TextScores) for r in e.rows]
    assert [(a, b) for a, b, _ in rows] == [p for c in plan_chunks(tasks, pairs, 256) for p in c.pairs]
    assert sorted((a, b) for a, b, _ in rows) == sorted(pairs)
    for a, b, score in rows:
        assert score == pytest.approx(cosine(a, b), abs=1e-12)
    assert all(len(e.rows) == 1 for e in events if isinstance(e, TextScores))  # batch_size 1: one per batch
    assert sum(len(e.rows) for e in events if isinstance(e, Scores)) == 900


def test_the_default_text_similarity_is_a_symmetric_cosine():
    rng = np.random.default_rng(3)
    a, b = rng.normal(size=(50, 16)).astype(np.float32), rng.normal(size=(50, 16)).astype(np.float32)
    model = HashEmbed()
    forward, backward = model.text_pair_scores(a, b), model.text_pair_scores(b, a)
    assert np.array_equal(forward, backward)  # bit for bit: one stored row serves both orders
    expected = (a.astype(np.float64) * b).sum(1) / np.linalg.norm(a, axis=1) / np.linalg.norm(b, axis=1)
    np.testing.assert_allclose(forward, expected, atol=1e-6)
    assert HashEmbed.text_similarity == "cosine"


def test_text_pairs_are_only_given_to_embed_models():
    from vlc_harness_builtins.models.random_baseline import RandomBaseline

    model = RandomBaseline(build(RandomBaseline.Params, {}), build(RandomBaseline.Run, {}))
    with pytest.raises(TypeError, match="was given text pairs"):
        list(run_job(model, Job(text_pairs=[("a", "b")], batch_size=2)))


def test_a_sharded_job_splits_its_text_pairs_too():
    job = Job(tasks=_tasks(4, lambda i: ["a", "b"]), text_pairs=[(f"p{i}", f"q{i}") for i in range(8)])
    shards = job.split(2)
    assert sum(s.n_pairs for s in shards) == job.n_pairs == 16
    assert [p for s in shards for p in s.text_pairs] == job.text_pairs


def test_protocols_without_text_vectors_leave_the_text_only_task_out(pp_root):
    bench = SugarCrepePP(build(SugarCrepePP.Params, {"version": "custom"}), pp_root)

    class Blind(TextOnlyModel):
        type_name = "blind"

    class Pairs(PairScoringModel):
        type_name = "pairs"

    assert protocol_for(HashEmbed).skipped_metrics(bench) == {}
    for cls, name in ((Pairs, "score_pairs"), (Blind, "score_texts")):
        skipped = protocol_for(cls).skipped_metrics(bench)
        assert list(skipped) == ["tot_accuracy"] and skipped["tot_accuracy"].startswith(f"{name} models give no")


# -- a run: computed once, stored, reused, and nothing lost -------------------------------------
def _tot(cell) -> dict[str, float]:
    return {m["category"]: m["value"] for m in cell.metrics if m["metric"] == "tot_accuracy"}


def test_a_run_stores_text_scores_and_a_warm_rerun_computes_nothing(vlc_run, pp_root, monkeypatch):
    first = vlc_run("-m", "shapes_clip", "-m", "random:seed=1", "-b", BENCH, data_root=pp_root)
    assert first.exit_code == 0, first.output
    store = vlc_run.store()
    cells = {c.model_id: c for c in store.latest_cells()}
    tables = store.stats()["tables"]
    instances = SugarCrepePP(build(SugarCrepePP.Params, {"version": "custom"}), pp_root).load_instances()
    expected = {text_pair_key(i.texts[a], i.texts[b]) for i in instances for a, b in ((0, 1), (0, 2), (1, 2))}
    assert tables["text_scores"] == len(expected)  # the random baseline stores none
    model_row = store.model_row(cells["shapes_clip"].fingerprint)
    assert set(store.text_scores_for(model_row)) == expected
    clip, rand = cells["shapes_clip"], cells["random:seed=1"]
    assert set(_tot(clip)) >= {"all", "replace_att", "swap_obj"} and not _tot(rand)
    assert clip.provenance["text_similarity"] == "cosine" and "skipped_metrics" not in clip.provenance
    assert set(rand.provenance["skipped_metrics"]) == {"tot_accuracy"}
    outcome = next(o for o in store.outcomes(clip.id) if o.instance_id == "replace_att/0")
    assert outcome.text_scores[0][1] is not None and outcome.text_scores[1][0] is None  # P1-P2 read once
    assert all(o.text_scores is None for o in store.outcomes(rand.id))

    import vlc_harness.run.executor

    def no_worker(*args, **kwargs):
        raise AssertionError("a worker was started")

    monkeypatch.setattr(vlc_harness.run.executor, "LocalWorker", no_worker)
    again = vlc_run("-m", "shapes_clip", "-m", "random:seed=1", "-b", BENCH, data_root=pp_root)
    assert again.exit_code == 0 and again.output.count("[stored]") == 2
    rebuilt = vlc_run("-m", "shapes_clip", "-b", BENCH, "--recompute-metrics", data_root=pp_root)
    assert rebuilt.exit_code == 0, rebuilt.output
    store = vlc_run.store()
    assert store.stats()["tables"] == tables | {"runs": 3, "cells": 2}
    assert next(c for c in store.latest_cells() if c.model_id == "shapes_clip").metrics == clip.metrics


def test_a_crash_keeps_the_stored_text_batches_and_the_rerun_computes_only_the_rest(tmp_path, pp_root):
    url = f"sqlite:///{tmp_path / 'store.sqlite'}"
    crashing = HashEmbed(fail_at_text_batch=3)
    first = evaluate(crashing, [BENCH], store=url, data_root=pp_root)
    (cell,) = first.cells
    assert cell.status == "failed" and "the model crashed" in cell.error
    store = open_store(url)
    kept = store.stats()["tables"]["text_scores"]
    assert kept == crashing.text_pairs_scored == 4  # two committed batches of two pairs each
    healthy = HashEmbed()
    again = evaluate(healthy, [BENCH], store=url, data_root=pp_root)
    total = open_store(url).stats()["tables"]["text_scores"]
    assert again.cells[0].status == "ok" and healthy.text_pairs_scored == total - kept
    clean = evaluate(HashEmbed(), [BENCH], store=f"sqlite:///{tmp_path / 'clean.sqlite'}", data_root=pp_root)
    assert again.cells[0].metrics == clean.cells[0].metrics
    assert _tot(again.cells[0])["all"] == pytest.approx(np.mean([_hand_tot(i) for i in _instances(pp_root)]))


def _instances(root: Path):
    return SugarCrepePP(build(SugarCrepePP.Params, {"version": "custom"}), root).load_instances()


def _hand_tot(inst) -> bool:
    p1, p2, n = inst.texts
    return cosine(p1, p2) > cosine(p1, n) and cosine(p1, p2) > cosine(p2, n)


class NanForOneText(HashEmbed):
    """Returns NaN for every text pair holding one chosen text."""

    type_name = "test_nan_for_one_text"
    bad = "A red bus parked next to a blue car."

    def text_pair_scores(self, a_vecs, b_vecs):
        scores = super().text_pair_scores(a_vecs, b_vecs)
        bad = text_vector(self.bad)
        hit = np.all(a_vecs == bad, axis=1) | np.all(b_vecs == bad, axis=1)
        return np.where(hit, np.nan, scores)


def test_a_non_finite_text_score_is_not_stored_and_fails_only_the_instances_needing_it(tmp_path, pp_root):
    url = f"sqlite:///{tmp_path / 'store.sqlite'}"
    (cell,) = evaluate(NanForOneText(), [BENCH], store=url, data_root=pp_root).cells
    needing = [i.id for i in _instances(pp_root) if NanForOneText.bad in i.texts]
    assert needing and cell.status == "failed" and cell.n_failed == len(needing)
    assert cell.n_scored == len(_instances(pp_root)) - len(needing)
    assert "model returned nan for the text pair" in cell.error
    store = open_store(url)
    assert all(NanForOneText.bad not in pair for pair in store.text_scores_for(store.model_row(cell.fingerprint)))
    assert sorted(o.instance_id for o in store.outcomes(cell.id) if o.error) == sorted(needing)
