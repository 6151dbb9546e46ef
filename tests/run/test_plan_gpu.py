"""``vlc-harness plan``'s estimate of tonight's GPU time: unique inputs times a per-family cost,
each number labelled measured (on a named device) or estimated (from a parameter count)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vlc_harness.gpucost import COST_TABLE, CostTable, job_inputs
from vlc_harness.run.jobs import ImageTask, Job, QuestionTask

REPO = Path(__file__).resolve().parents[2]
B32_IMAGE_S, B32_TEXT_S = 1 / 167, 1 / 5851  # issue 15's stop note: ViT-B-32 fp32, NVIDIA H100, batch 256


@pytest.fixture
def published(vlc_plugins):
    from vlc_harness.registry import load_registry

    registry = load_registry([REPO / "registry.yaml"], vlc_plugins)
    return registry.models, vlc_plugins


def _estimate(published, model_id: str, job: Job):
    models, plugins = published
    entry = models[model_id]
    cls = plugins.models.get(entry.type).cls
    return CostTable.read().estimate(entry, cls, cls.protocol, job)


def _embed_job() -> Job:
    # two images; texts "a", "b", "c" ("a" twice); a text pair bringing in "d"
    tasks = [ImageTask("k1", "/1.png", None, ["a", "b"]), ImageTask("k2", "/2.png", None, ["a", "c"])]
    return Job(tasks=tasks, text_pairs=[("a", "d")])


def test_an_embed_model_encodes_each_unique_image_and_text_once():
    inputs = job_inputs(_embed_job(), "embed")
    assert (inputs.images, inputs.texts, inputs.pairs) == (2, 4, 0)
    assert job_inputs(_embed_job(), "score_pairs").pairs == 4  # a pair model scores every pair
    assert job_inputs(Job(blind_texts=["a", "b", "c"]), "score_texts").texts == 3
    question = QuestionTask("q", "vqa", [("k1", "/1.png", None)], ["yes", "no"], "is it?")
    assert job_inputs(Job(questions=[question, question]), "choose").pairs == 4  # each option once


def test_a_measured_family_uses_its_device_throughput(published):
    estimate = _estimate(published, "openai-vit-b-32", _embed_job())  # ViT-B-32-quickgelu, fp32
    assert estimate.seconds == pytest.approx(2 * B32_IMAGE_S + 4 * B32_TEXT_S)
    assert estimate.kind == "measured"
    assert estimate.basis.startswith("measured on NVIDIA H100 80GB HBM3 (open_clip ViT-B-32 fp32, batch 256")


def test_other_models_scale_the_measurement_by_their_parameter_count(published):
    job = _embed_job()
    scale = 986 / 151  # laion-vit-h-14: meta.parameters_m 986
    estimate = _estimate(published, "laion-vit-h-14", job)
    assert estimate.seconds == pytest.approx(scale * (2 * B32_IMAGE_S + 4 * B32_TEXT_S))
    assert estimate.kind == "estimated"
    assert estimate.basis.startswith("estimated from 986M parameters (scaled from open_clip ViT-B-32")

    pairs = _estimate(published, "blip-itm-base-coco", job)  # score_pairs, 223M: 4 pairs
    assert pairs.seconds == pytest.approx(4 * (223 / 151) * (B32_IMAGE_S + B32_TEXT_S))
    big = _estimate(published, "vqascore-clip-flant5-xxl", job)
    assert big.basis.startswith("estimated from 11.3B parameters")


def test_no_gpu_models_and_models_without_a_parameter_count(published):
    random = _estimate(published, "random", _embed_job())
    assert (random.seconds, random.kind) == (0.0, "none") and random.basis.startswith("no GPU: a seeded hash")
    models, plugins = published
    entry = models["laion-vit-h-14"]
    bare = type(entry)(entry.id, entry.type, entry.params, entry.run, {}, entry.source)  # no meta.parameters_m
    cls = plugins.models.get(entry.type).cls
    unknown = CostTable.read().estimate(bare, cls, "embed", _embed_job())
    assert (unknown.seconds, unknown.kind) == (None, "unknown") and "meta.parameters_m" in unknown.basis
    assert CostTable.read().estimate(bare, cls, "embed", Job()).seconds == 0.0  # nothing to compute


def test_every_measured_row_cites_its_source_and_names_its_device():
    table = CostTable.read(COST_TABLE)
    for row in table.measured:
        assert row["source"] and row["device"] and row["images_per_s"] > 0 and row["texts_per_s"] > 0
    assert table.estimate_from in table.measured


REGISTRY = """
models:
  - {id: random, type: random, params: {seed: 0}}
  - {id: shapes-clip, type: shapes_clip, params: {}, meta: {parameters_m: 0.9}}
benchmarks:
  - {id: shapes, type: shapes, params: {seed: 0, n_scenes: 6, image_size: 128}}
"""


def _plan(vlc_run, registry: Path, data_root: Path) -> dict:
    out = vlc_run.cli("plan", "--all", "--registry", str(registry), "--data-root", str(data_root), "--format", "json")
    assert out.exit_code == 0, out.output
    return json.loads(out.stdout)


def test_the_plan_estimates_each_cell_and_model_and_stored_cells_cost_nothing(vlc_run, vlc_plugins, tmp_path):
    from vlc_harness.registry import load_registry
    from vlc_harness.run.prepare import prepare

    registry = tmp_path / "registry.yaml"
    registry.write_text(REGISTRY, encoding="utf-8")
    data_root = tmp_path / "data"
    plan = _plan(vlc_run, registry, data_root)

    # the inputs counted from the benchmark's own instances, apart from the job the plan builds
    (entry,) = load_registry([registry], vlc_plugins).benchmarks.values()
    instances = prepare(entry, vlc_plugins.benchmarks, data_root, None).instances
    images = {src.path for inst in instances for src in inst.images}
    texts = {t for inst in instances for t in inst.texts}
    expected = (0.9 / 151) * (len(images) * B32_IMAGE_S + len(texts) * B32_TEXT_S)
    cells = {c["model"]: c for c in plan["cells"]}
    models = {m["id"]: m for m in plan["models"]}
    assert cells["shapes-clip"]["gpu_seconds"] == pytest.approx(expected)
    assert models["shapes-clip"]["gpu_seconds"] == pytest.approx(expected)
    assert cells["shapes-clip"]["gpu_kind"] == "estimated"
    assert cells["shapes-clip"]["gpu_basis"].startswith("estimated from 0.9M parameters")
    assert (cells["random"]["gpu_seconds"], cells["random"]["gpu_kind"]) == (0.0, "none")
    assert plan["gpu"]["seconds"] == pytest.approx(expected)
    assert plan["gpu"]["estimated_s"] == pytest.approx(expected) and plan["gpu"]["measured_s"] == 0

    table = vlc_run.cli("plan", "--all", "--registry", str(registry), "--data-root", str(data_root)).output
    assert table.splitlines()[0].split()[-1] == "gpu"
    total = next(line for line in table.splitlines() if line.startswith("GPU time: "))
    assert total.endswith("estimated from parameter counts)"), total
    assert "GPU" in next(line for line in table.splitlines() if line.startswith("model shapes-clip:"))

    result = vlc_run("--all", "--registry", str(registry), data_root=data_root)
    assert result.exit_code == 0, result.output
    after = _plan(vlc_run, registry, data_root)
    assert {c["status"] for c in after["cells"]} == {"complete"}
    assert [c["gpu_seconds"] for c in after["cells"]] == [0.0, 0.0]
    assert [m["gpu_seconds"] for m in after["models"]] == [0.0, 0.0]
    assert after["gpu"]["seconds"] == 0.0
