"""Encode-once with bounded memory, decode prefetch, OOM halving, text-tower truncation, workers."""

from __future__ import annotations

import json
import os
import time
from collections import Counter
from dataclasses import dataclass

import numpy as np
import pytest

from vlc_harness.models import EmbeddingModel, Identity, RunOptions
from vlc_harness.run.batching import AdaptiveBatches, prefetch
from vlc_harness.run.compute import run_job
from vlc_harness.run.jobs import ImageTask, Job, Scores, Spent
from vlc_harness.store import open_store
from vlc_harness.testing import require


def test_prefetch_keeps_order_bounds_lookahead_and_isolates_errors():
    started = []

    def work(x):
        started.append(x)
        if x == 3:
            raise ValueError("bad item")
        time.sleep(0.001 * (5 - x % 5))
        return x * 10

    out = []
    for item, result, error in prefetch(work, range(10), depth=2, threads=2):
        out.append((item, result, type(error).__name__ if error else None))
        assert len(started) <= item + 3  # never more than `depth` ahead of the consumer
    assert [o[0] for o in out] == list(range(10))
    assert out[3] == (3, None, "ValueError") and out[4] == (4, 40, None)


def test_adaptive_batches_halve_on_out_of_memory_and_keep_the_size():
    class OutOfMemoryError(RuntimeError):
        pass

    calls = []

    def fn(batch):
        calls.append(len(batch))
        if len(batch) > 3:
            raise OutOfMemoryError("CUDA out of memory")
        return [x * 2 for x in batch]

    batches = AdaptiveBatches(16)
    results = [r for _, out in batches.run(fn, list(range(20))) for r in out]
    assert results == [x * 2 for x in range(20)]
    assert batches.shrunk == [8, 4, 2] and batches.size == 2
    assert calls[:4] == [16, 8, 4, 2]

    def other(batch):
        raise ValueError("not memory")

    with pytest.raises(ValueError):
        list(AdaptiveBatches(4).run(other, [1, 2]))


@dataclass(frozen=True)
class _NoParams:
    pass


class CountingEmbedder(EmbeddingModel):
    """Text vectors from a hash; counts how often each text is encoded and how many are held."""

    type_name = "counting"
    needs_pixels = False

    def __init__(self):
        super().__init__(_NoParams(), RunOptions())
        self.encoded = Counter()

    def identify(self):
        return Identity("none", "fp64", "embed")

    def embed_texts(self, texts):
        self.encoded.update(texts)
        return np.array([[len(t), sum(map(ord, t)) % 97, 1.0] for t in texts], dtype=float)

    def embed_images(self, batch):
        return np.ones((len(batch), 3))


def test_each_unique_text_is_encoded_once_across_chunks():
    # 700 images in 3 chunks of 256; "shared" appears in the first and the last chunk
    tasks = [
        ImageTask(f"k{i:04d}", "", None, [f"caption {i}", "shared" if i % 350 == 0 else f"neg {i}"]) for i in range(700)
    ]
    model = CountingEmbedder()
    rows = [r for e in run_job(model, Job(tasks=tasks, batch_size=16)) if isinstance(e, Scores) for r in e.rows]
    assert len(rows) == 1400 and len({(k, t) for k, t, _ in rows}) == 1400
    assert set(model.encoded.values()) == {1}  # every unique text exactly once
    assert model.encoded["shared"] == 1


def test_a_job_ends_by_saying_where_its_time_went():
    tasks = [ImageTask(f"k{i}", "", None, [f"caption {i}"]) for i in range(40)]
    events = list(run_job(CountingEmbedder(), Job(tasks=tasks, batch_size=16)))
    assert isinstance(events[-1], Spent) and not any(isinstance(e, Spent) for e in events[:-1])
    assert set(events[-1].seconds) == {"model_texts_s", "model_images_s"}  # no pixels: nothing decoded
    assert all(v >= 0 for v in events[-1].seconds.values())


def test_a_run_records_the_workers_phases_in_its_timings(vlc_run, sample_root, tiny_spec):
    out = vlc_run("-m", tiny_spec, "-b", "sugarcrepe:version=custom", data_root=sample_root)
    assert out.exit_code == 0, out.output
    store = vlc_run.store()
    (cell,) = store.latest_cells()
    timings = store.run_provenance(cell.run_id)["timings"]
    for phase in ("worker_load_s", "worker_model_texts_s", "worker_model_images_s", "worker_decode_wait_s"):
        assert timings[phase] >= 0, phase
    assert timings["worker_load_s"] > 0


def test_out_of_memory_halves_the_batch_and_the_scores_are_unchanged(vlc_run, sample_root, faulty):
    out = vlc_run("-m", "test_oom:run.batch_size=16", "-b", "sugarcrepe:version=custom", data_root=sample_root)
    assert out.exit_code == 0, out.output
    (cell,) = vlc_run.store().latest_cells()
    assert cell.status == "ok" and cell.n_scored == 28


def test_text_tower_truncation_is_exact_and_only_for_causal_towers(sample_root):
    require("open_clip")
    import open_clip
    import torch

    from vlc_harness_builtins.models.openclip import (
        causal_argmax_text_tower,
        encode_text_prefix,
        register_inline_config,
    )
    from vlc_harness_builtins.testing.tiny_openclip import TINY_CONFIG

    texts = []
    for path in (sample_root / "sugarcrepe").glob("*.json"):
        for rec in json.loads(path.read_text()).values():
            texts += [rec["caption"], rec["negative_caption"]]
    torch.manual_seed(0)
    model = open_clip.create_model(register_inline_config(TINY_CONFIG), pretrained=None, pretrained_text=False).eval()
    tokenizer = open_clip.get_tokenizer(register_inline_config(TINY_CONFIG))
    assert causal_argmax_text_tower(model)
    with torch.no_grad():
        tokens = tokenizer(texts)
        full = model.encode_text(tokens, normalize=True)
        prefix = torch.cat([encode_text_prefix(model, tokens[i : i + 8]) for i in range(0, len(texts), 8)])
    assert (tokens.argmax(-1).max() + 1) < tokens.shape[1] // 2  # far fewer than 77 positions were run
    assert float((full - prefix).abs().max()) < 1e-6
    custom = open_clip.create_model(
        register_inline_config({**TINY_CONFIG, "custom_text": True}), pretrained=None, pretrained_text=False
    )
    assert not causal_argmax_text_tower(custom)


def test_several_models_over_several_workers_match_one_worker(vlc_run, tmp_path, sample_root, tiny_spec):
    results = {}
    for workers in ("1", "3"):
        url = f"sqlite:///{tmp_path / f'w{workers}.sqlite'}"
        out = vlc_run(
            "-m",
            "random",
            "-m",
            tiny_spec,
            "-b",
            "sugarcrepe:version=custom",
            "--workers",
            workers,
            data_root=sample_root,
            store_url=url,
        )
        assert out.exit_code == 0, out.output
        store = open_store(url)
        results[workers] = ({c.model_id: c.metrics for c in store.latest_cells()}, store)
    assert results["1"][0] == results["3"][0]
    store1, store3 = results["1"][1], results["3"][1]
    assert {r["fingerprint"] for r in store1.stats()["models"]} == {r["fingerprint"] for r in store3.stats()["models"]}
    rows1, rows3 = _model_rows(store1), _model_rows(store3)  # the models register in either order
    for fingerprint, m1 in rows1.items():
        s1, s3 = store1.scores_for(m1), store3.scores_for(rows3[fingerprint])
        assert s1.keys() == s3.keys() and max(abs(s1[k] - s3[k]) for k in s1) <= 1e-6


def _model_rows(store) -> dict[str, int]:
    from sqlalchemy import select

    from vlc_harness.store import schema

    with store.engine.connect() as conn:
        return {fp: row for row, fp in conn.execute(select(schema.models.c.id, schema.models.c.fingerprint))}


@pytest.mark.vlc_worker_process
def test_one_model_is_sharded_over_workers(vlc_run, tmp_path, sample_root, faulty, monkeypatch):
    log = tmp_path / "pairs.log"
    monkeypatch.setenv("TEST_SLOW_LOG", str(log))
    out = vlc_run(
        "-m", "test_slow:run.batch_size=4", "-b", "sugarcrepe:version=custom", "--workers", "2", data_root=sample_root
    )
    assert out.exit_code == 0, out.output
    rows = [json.loads(line) for line in log.read_text().splitlines()]
    assert len(rows) == 56 and len({(k, t) for k, t, _ in rows}) == 56  # every pair once
    pids = {pid for _, _, pid in rows}
    assert len(pids) == 2 and os.getpid() not in pids
    (cell,) = vlc_run.store().latest_cells()
    assert cell.status == "ok"


def test_two_models_in_parallel_share_one_image_hashing(vlc_run, sample_root, tiny_spec):
    """Regression: with --workers 2, two models' threads hash a benchmark's images once, together."""
    out = vlc_run(
        "-m",
        tiny_spec,
        "-m",
        "random:seed=8",
        "-b",
        "sugarcrepe:version=custom",
        "--workers",
        "2",
        data_root=sample_root,
    )
    assert out.exit_code == 0, out.output
    assert out.output.count("ok ") == 2
