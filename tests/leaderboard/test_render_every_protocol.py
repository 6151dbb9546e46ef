"""``render`` over a store built by every built-in model protocol (issue 41, item 7): embed (a tiny
open_clip), score_pairs (random, and the abstaining ``openai_logprob`` against the suite's local fake
server), score_texts (the image-blind ``blind_harper``), choose (the abstaining ``openai_choice``), a
submitted ``precomputed`` row, a partial cell (a scores file missing some instances) and a cell whose
replicates are gone. The site must render whatever the store can hold, from the store and, as the nightly
renders it, from the board bundle exported from it (the same site)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
import sqlalchemy as sa

from tests.leaderboard.bundle_store import snapshot
from tests.leaderboard.test_bundle import FIRST, render_bundle
from vlc_harness.params import build
from vlc_harness.store import open_store
from vlc_harness.store import replicates as stored_replicates
from vlc_harness.testing import require
from vlc_harness.testing.fake_openai import FakeOpenAI, completion, request_text

KEY_ENV = "VLC_API_KEY_BOARD"
SECRET = "sk-vlc-test-board-0123456789abcdef"


def _sugarcrepe(sample_root: Path) -> dict[str, tuple[str, str]]:
    """caption -> (category, role)."""
    out = {}
    for path in sorted((sample_root / "sugarcrepe").glob("*.json")):
        for rec in json.loads(path.read_text()).values():
            out[rec["caption"]] = (path.stem, "positive")
            out[rec["negative_caption"]] = (path.stem, "negative")
    return out


def _responder(sample: dict[str, tuple[str, str]]):
    """Logprob requests: P(Yes) 0.8 on positives, 0.3 on negatives, neither Yes nor No about a dog (an
    abstention on that pair). Choice requests: the positive, except a refusal about a dog (abstained)."""

    def respond(body):
        text = request_text(body)
        if body.get("logprobs"):
            caption = re.search(r'show "(.*)"\? Please', text, re.S).group(1)
            if "dog" in caption.lower():
                return completion("Sure", top_logprobs=[("Sure", 0.6), ("I", 0.3)], completion_tokens=1)
            p = 0.8 if sample[caption][1] == "positive" else 0.3
            return completion("Yes", top_logprobs=[("Yes", p), ("No", 1 - p)], completion_tokens=1)
        if "dog" in text.lower():
            return completion("Sorry, I cannot tell.")
        options = [line for line in text.splitlines() if re.match(r"\(\d\)", line.strip())]
        for k, line in enumerate(options):
            if sample.get(line.strip()[3:].strip(), ("", ""))[1] == "positive":
                return completion(f"({k + 1})")
        return completion("(1)")

    return respond


def _scores_file(sample_root: Path, drop: int = 0) -> list[str]:
    """Per-instance scores of the SugarCrepe sample (gold higher on most), ``drop`` instances left out."""
    from tests.leaderboard.test_site import _scores
    from vlc_harness_builtins.benchmarks.sugarcrepe import SugarCrepe

    sugar = SugarCrepe(build(SugarCrepe.Params, {"version": "custom"}), sample_root)
    instances = sugar.load_instances()[drop:]
    return _scores(instances, "sugarcrepe", sugar.data_version, 0.8, 4, {})


@pytest.mark.slow
@pytest.mark.subprocess
def test_render_survives_a_store_of_every_protocol_with_abstentions_partial_cells_and_no_replicates(
    vlc_run, vlc_cli, tmp_path, sample_root, tiny_clip, monkeypatch
):
    require("openai")
    require("open_clip")
    require("harper")
    monkeypatch.setenv(KEY_ENV, SECRET)
    monkeypatch.setenv(f"{KEY_ENV}_HOSTS", "127.0.0.1")
    shutil.copy(tiny_clip["config"], tmp_path / "tiny.json")  # a registry names files in its own folder
    shutil.copy(tiny_clip["checkpoint"], tmp_path / "tiny.bin")
    (tmp_path / "submitted.jsonl").write_text("\n".join(_scores_file(sample_root)) + "\n")
    (tmp_path / "partial.jsonl").write_text("\n".join(_scores_file(sample_root, drop=3)) + "\n")
    with FakeOpenAI(api_key=SECRET) as server:
        server.responder = _responder(_sugarcrepe(sample_root))
        api = {"model": "fake-vision", "base_url": server.url, "image_max_side": 32}
        run = {"api_key_env": KEY_ENV, "concurrency": 4, "max_retries": 0, "request_timeout_s": 5}
        models = [
            {"id": "tiny-clip", "type": "open_clip", "params": {"arch": "@./tiny.json", "pretrained": "./tiny.bin"}},
            {"id": "random", "type": "random", "params": {"seed": 3}, "meta": {"family": "baseline"}},
            {"id": "harper", "type": "blind_harper", "params": {}},
            {"id": "gpt-choice", "type": "openai_choice", "params": api, "run": run},
            {"id": "gpt-logprob", "type": "openai_logprob", "params": api, "run": run},
            {"id": "lab", "type": "precomputed", "params": {"path": "./submitted.jsonl"}, "meta": {"submitted": True}},
            {"id": "holes", "type": "precomputed", "params": {"path": "./partial.jsonl"}},
        ]
        registry = tmp_path / "registry.yaml"
        benchmarks = [{"id": "sugarcrepe", "type": "sugarcrepe", "params": {"version": "custom"}}]
        registry.write_text(json.dumps({"models": models, "benchmarks": benchmarks}))
        out = vlc_run("--all", "--registry", str(registry), data_root=sample_root)
        assert out.exit_code in (0, 1), out.output
    store = open_store(vlc_run.store_url)
    cells = {c.model_id: c for c in store.latest_cells()}
    assert set(cells) == {m["id"] for m in models}, out.output
    assert cells["holes"].status != "ok" or not cells["holes"].complete  # a partial cell: never published
    for model in ("gpt-logprob", "gpt-choice"):
        assert cells[model].status == "ok", cells[model].error
        answers = [a for o in store.outcomes(cells[model].id) for a in o.answers or []]
        assert any(a.get("abstained") or a.get("choice") is None for a in answers), model
    declined = [o for o in store.outcomes(cells["gpt-logprob"].id) if o.answers]
    assert declined and all("order" not in a for o in declined for a in o.answers)  # pairs, not questions
    # a published cell whose replicates are gone (a store written before they were kept)
    engine = sa.create_engine(vlc_run.store_url)
    with engine.begin() as conn:
        conn.execute(
            sa.text("UPDATE cells SET replicates = :r WHERE id = :id"),
            {"r": stored_replicates.encode({}), "id": cells["tiny-clip"].id},
        )
    engine.dispose()

    site = tmp_path / "site"
    monkeypatch.setenv("SOURCE_DATE_EPOCH", str(FIRST))
    rendered = vlc_cli(
        "render",
        "--out",
        str(site),
        "--store",
        vlc_run.store_url,
        "--registry",
        str(registry),
        "--data-root",
        str(sample_root),
    )
    assert rendered.exit_code == 0, rendered.output
    assert site.stat().st_mode & 0o755 == 0o755  # world-readable, not mkdtemp's 0700 (issue 41, item 13)
    index = (site / "index.html").read_text()
    for name in ("gpt-logprob", "gpt-choice", "tiny-clip", "harper", "lab"):
        assert name in index
    assert (site / "benchmarks" / "sugarcrepe.html").is_file()
    verdicts = {p.stem: p.read_text() for p in (site / "data" / "instances").glob("*/models/*.js")}
    assert {"gpt-logprob", "gpt-choice", "lab"} <= set(verdicts), sorted(verdicts)
    letters = {m: json.loads(v.rsplit(" = ", 1)[1].rstrip(";\n"))["verdicts"] for m, v in verdicts.items()}
    assert "A" in letters["gpt-logprob"] and "R" in letters["gpt-logprob"]  # a declined pair: its instance abstained
    assert len(letters["gpt-choice"]) == len(letters["lab"]) and "-" not in letters["gpt-choice"]
    scores = "".join(p.read_text() for p in (site / "data" / "instances").glob("*/models/gpt-logprob/shard-*.js"))
    assert scores, "the abstaining model's scores are in the browser"

    # the nightly's path: the board exported as a bundle, rendered where no plugin is loaded; the same site
    bundle = tmp_path / "board.zip"
    exported = vlc_cli(
        "board", "export", "--out", str(bundle), "--store", vlc_run.store_url, "--registry", str(registry),
        "--data-root", str(sample_root),
    )  # fmt: skip
    assert exported.exit_code == 0, exported.output
    done = render_bundle(bundle, tmp_path / "from-bundle", FIRST)
    assert done.returncode == 0, done.stderr
    assert snapshot(tmp_path / "from-bundle") == snapshot(site)
