"""End to end through the command line: tiny open_clip on SugarCrepe, cached, shown."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from vlc_harness.store import open_store
from vlc_harness.store.schema import SCHEMA_VERSION


def score_count(url: str) -> int:
    store = open_store(url)
    try:
        return store.stats()["tables"]["scores"]
    finally:
        store.close()


def test_tiny_openclip_on_sugarcrepe_sample_is_computed_once_cached_and_shown(
    vlc_run, sample_root, tiny_spec, tiny_clip
):
    url = vlc_run.store_url
    args = ["-m", tiny_spec, "-b", "sugarcrepe:version=custom"]
    first = vlc_run(*args, data_root=sample_root)
    assert first.exit_code == 0, first.output
    assert "ok" in first.output and "i2t_accuracy_macro=" in first.output
    n_scores = score_count(url)
    assert n_scores == 28 * 2  # 7 subsets x 4 cases x 2 captions, each pair once

    second = vlc_run(*args, data_root=sample_root)
    assert second.exit_code == 0, second.output
    assert score_count(url) == n_scores
    store = open_store(url)
    (cell,) = store.latest_cells()
    assert "[stored]" in second.output  # nothing was recomputed, not even the metrics
    assert cell.status == "ok" and cell.complete and cell.n_scored == 28

    shown = vlc_run.cli("show", "--format", "json")
    payload = json.loads(shown.stdout)
    (c,) = payload["cells"]
    metrics = {(m["metric"], m["category"]): m for m in c["metrics"]}
    assert metrics[("i2t_accuracy", "swap_obj")]["n"] == 4
    assert metrics[("i2t_accuracy_macro", "all")]["tie_rule"] == "wrong"
    assert {"value", "n", "ties", "averaging"} <= set(metrics[("i2t_accuracy_micro", "all")])
    table = vlc_run.cli("show")
    assert "i2t_accuracy_macro" in table.output and "(chance)" in table.output
    csv_out = vlc_run.cli("show", "--format", "csv")
    assert csv_out.output.splitlines()[0].startswith("model,benchmark,metric,category,value,n,ties")

    # the stored scores are open_clip's own cosine similarities
    import open_clip
    import torch
    from PIL import Image

    from vlc_harness_builtins.models.openclip import register_inline_config

    name = register_inline_config(json.loads(open(tiny_clip["config"]).read()))
    model, _, preprocess = open_clip.create_model_and_transforms(name, pretrained=tiny_clip["checkpoint"])
    model.eval()
    tokenizer = open_clip.get_tokenizer(name)
    case = json.loads((sample_root / "sugarcrepe" / "swap_obj.json").read_text())["0"]
    image = preprocess(Image.open(sample_root / "coco" / "val2017" / case["filename"]).convert("RGB"))
    with torch.no_grad():
        img = model.encode_image(image[None], normalize=True)
        txt = model.encode_text(tokenizer([case["caption"], case["negative_caption"]]), normalize=True)
    direct = (img @ txt.T)[0].numpy()
    outcome = {o.instance_id: o for o in store.outcomes(cell.id)}["swap_obj/0"]
    np.testing.assert_allclose(outcome.scores[0], direct, atol=1e-6)


def test_precomputed_scores_reproduce_a_cell(vlc_run, tmp_path, sample_root):
    url = vlc_run.store_url
    ran = vlc_run("-m", "random:seed=5", "-b", "sugarcrepe:version=custom", data_root=sample_root)
    assert ran.exit_code == 0, ran.output
    store = open_store(url)
    (cell,) = store.latest_cells()
    lines = []
    for o in store.outcomes(cell.id):
        for j, score in enumerate(o.scores[0]):
            lines.append(
                {
                    "benchmark": "sugarcrepe:version=custom",
                    "version": cell.data_version,
                    "instance": o.instance_id,
                    "image": 0,
                    "text": j,
                    "score": score,
                }
            )
    path = tmp_path / "scores.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    replay = vlc_run("-m", f"precomputed:path={path}", "-b", "sugarcrepe:version=custom", data_root=sample_root)
    assert replay.exit_code == 0, replay.output
    cells = {c.model_id: c for c in open_store(url).latest_cells()}
    assert cells[f"precomputed:path={path}"].metrics == cells["random:seed=5"].metrics

    # an incomplete file fails the cell and names the missing pair; a duplicate is refused
    path.write_text("".join(json.dumps(x) + "\n" for x in lines[:-1]))
    short = vlc_run("-m", f"precomputed:path={path}", "-b", "sugarcrepe:version=custom", data_root=sample_root)
    assert short.exit_code == 4  # the cell the replay above computed is lost
    assert "has no score for" in short.output and lines[-1]["instance"] in short.output
    path.write_text("".join(json.dumps(x) + "\n" for x in lines + lines[:1]))
    dup = vlc_run("-m", f"precomputed:path={path}", "-b", "sugarcrepe:version=custom", data_root=sample_root)
    assert dup.exit_code == 4 and "duplicate score" in dup.output


def test_limit_marks_cells_partial_and_show_hides_them(vlc_run, sample_root):
    out = vlc_run("-m", "random", "-b", "sugarcrepe:version=custom", "--limit", "2", data_root=sample_root)
    assert out.exit_code == 0 and "partial" in out.output
    (cell,) = vlc_run.store().latest_cells()
    assert cell.status == "partial" and not cell.complete and cell.n_instances == 14 and cell.instance_limit == 2
    assert "no complete cells" in vlc_run.cli("show").output
    assert "partial" in vlc_run.cli("show", "--partial").output


def test_registry_run_all_and_list(vlc_run, vlc_cli, tmp_path, sample_root, tiny_clip):
    shutil.copy(tiny_clip["checkpoint"], tmp_path / "tiny.pt")  # a registry names files inside its own folder
    registry = tmp_path / "registry.yaml"
    registry.write_text(
        f"""
models:
  - id: tiny
    type: open_clip
    params: {{arch: {json.dumps(json.loads(open(tiny_clip["config"]).read()))}, pretrained: ./tiny.pt}}
    meta: {{display_name: Tiny CLIP}}
  - id: random
    type: random
benchmarks:
  - id: sc
    type: sugarcrepe
    params: {{version: custom}}
"""
    )
    out = vlc_run("--all", "--registry", str(registry), data_root=sample_root)
    assert out.exit_code == 0, out.output
    assert "ok          tiny x sc" in out.output and "ok          random x sc" in out.output
    listed = vlc_cli("list", "models", "--registry", str(registry))
    assert "tiny" in listed.output and "open_clip" in listed.output
    benches = vlc_cli("list", "benchmarks", "--registry", str(registry), "--data-root", str(sample_root))
    assert "sc" in benches.output and "Hsieh" in benches.output
    stats = vlc_run.cli("cache", "stats")
    assert "scores" in stats.output and f"schema version: {SCHEMA_VERSION}" in stats.output


def test_instances_jsonl(vlc_cli, sample_root):
    out = vlc_cli("instances", "-b", "sugarcrepe:version=custom", "--data-root", str(sample_root), "--limit", "1")
    rows = [json.loads(line) for line in out.stdout.splitlines()]
    assert len(rows) == 7
    first = rows[0]
    assert first["id"] == "replace_obj/0" and first["category"] == "replace_obj"
    assert first["data_version"].startswith("custom-")
    assert len(first["images"][0]["sha256"]) == 64 and first["images"][0]["path"].endswith(".jpg")
    assert first["gold"] == {"positive": 0} and len(first["texts"]) == 2


@pytest.mark.slow
@pytest.mark.parametrize("version, n", [("upstream-7511", 7511), ("paper-7512", 7512)])
def test_full_sugarcrepe_with_standin_images(vlc_run, full_root, tiny_spec, version, n):
    models = ["random"] + ([tiny_spec] if version == "upstream-7511" else [])
    args = ["-b", f"sugarcrepe:version={version}"]
    for m in models:
        args += ["-m", m]
    out = vlc_run(*args, data_root=full_root)
    assert out.exit_code == 0, out.output
    for cell in vlc_run.store().latest_cells():
        assert cell.status == "ok" and cell.n_scored == n
        micro = next(m for m in cell.metrics if m["metric"] == "i2t_accuracy_micro")
        assert micro["n"] == n


def test_show_references_as_the_registry_selects(vlc_run, tmp_path, full_root):
    registry = tmp_path / "r.yaml"
    registry.write_text(
        "models:\n  - {id: random, type: random}\n"
        "benchmarks:\n  - {id: sugarcrepe, type: sugarcrepe, references: [Human, OpenAI ViT-B-32]}\n"
    )
    out = vlc_run("--all", "--registry", str(registry), "--limit", "3", data_root=full_root)
    assert out.exit_code == 0, out.output
    shown = vlc_run.cli("show", "--partial", "--references", "--registry", str(registry), "--format", "json")
    refs = json.loads(shown.stdout)["reference"]
    sources = {r["model"] for r in refs}
    assert "[Table 6] Human" in sources and "[Table 6] OpenAI ViT-B-32" in sources
    assert not any("GPT-4V" in s for s in sources)
    vit = {(r["metric"], r["category"]): r["value"] for r in refs if r["model"] == "[Table 6] OpenAI ViT-B-32"}
    assert vit[("i2t_accuracy_macro", "all")] == 0.7308
