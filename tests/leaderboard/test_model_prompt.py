"""A generative model's page shows the prompt it ran with (the rendered template), the answer it
scores and the scoring rule, from the identity details stored in its cells' provenance."""

from __future__ import annotations

import dataclasses
from pathlib import Path

PROMPT = (
    'A chat between a curious user and an assistant. USER: <image>\\nDoes this figure show "{caption}"? ASSISTANT: '
)
DETAILS = {"prompt": PROMPT, "answer": "Yes", "scoring": "exp(-mean cross-entropy) over the answer's tokens and EOS"}


def _site(tmp_path: Path, details: dict[str, str]) -> Path:
    from bench.render_speed import synthetic_cells
    from vlc_harness.plugins import get_plugins
    from vlc_leaderboard.board import build_board
    from vlc_leaderboard.site import render_site

    registry, cells = synthetic_cells(2, tmp_path / "work", benchmarks=["sugarcrepe"], samples=10)
    for i, cell in enumerate(cells):
        if cell.model_id == "model-01":
            model = {"type": "vqascore", "protocol": "score_pairs/vqascore/t2v_metrics/llava", "details": details}
            cells[i] = dataclasses.replace(cell, provenance={**(cell.provenance or {}), "model": model})
    site = tmp_path / "site"
    render_site(build_board(cells, registry, get_plugins()), site, {"harness_version": "test", "git_sha": ""}, runs={})
    return site


def test_the_model_page_shows_the_prompt_answer_and_scoring_rule(tmp_path):
    from markupsafe import escape

    site = _site(tmp_path, DETAILS)
    html = (site / "models" / "model-01.html").read_text()
    assert f'<dt>Prompt</dt><dd><code class="prompt">{escape(PROMPT)}</code></dd>' in html
    assert "<dt>Answer scored</dt><dd><code>Yes</code></dd>" in html
    assert f"<dt>Scoring</dt><dd>{escape(DETAILS['scoring'])}</dd>" in html
    assert "<dt>Prompt</dt>" not in (site / "models" / "model-00.html").read_text()  # no prompt declared


def test_a_hostile_prompt_stays_text(tmp_path):
    site = _site(tmp_path, {"prompt": '<script>alert("x")</script> {caption}'})
    html = (site / "models" / "model-01.html").read_text()
    assert "<script>alert" not in html and "&lt;script&gt;" in html
