"""A model page names the upstream evaluation its entry reproduces and what differs from it
(``meta.reproduces``, ``meta.differs``), as text."""

from __future__ import annotations

import dataclasses
from pathlib import Path

REPRODUCES = "mertyg/vision-language-models-are-bows model_zoo/__init__.py:62-74 @81fdd20 (<open_clip>)"
DIFFERS = "QuickGELU (the weights' training activation); ARO loaded it with nn.GELU & co"


def _site(tmp_path: Path, meta: dict[str, dict[str, str]]) -> Path:
    from bench.render_speed import synthetic_cells
    from vlc_harness.plugins import get_plugins
    from vlc_leaderboard.board import build_board
    from vlc_leaderboard.site import render_site

    registry, cells = synthetic_cells(3, tmp_path / "work", benchmarks=["sugarcrepe"], samples=10)
    for model_id, extra in meta.items():
        entry = registry.models[model_id]
        registry.models[model_id] = dataclasses.replace(entry, meta={**entry.meta, **extra})
    site = tmp_path / "site"
    render_site(build_board(cells, registry, get_plugins()), site, {"harness_version": "test", "git_sha": ""}, runs={})
    return site


def test_the_model_page_shows_what_the_entry_reproduces_and_how_it_differs(tmp_path):
    from markupsafe import escape

    declared = {"model-01": {"reproduces": REPRODUCES, "differs": DIFFERS}, "model-02": {"reproduces": "ours: why"}}
    site = _site(tmp_path, declared)
    html = (site / "models" / "model-01.html").read_text()
    assert f"<dt>Reproduces</dt><dd>{escape(REPRODUCES)}</dd>" in html
    assert f"<dt>Differs from it</dt><dd>{escape(DIFFERS)}</dd>" in html
    assert "<open_clip>" not in html
    other = (site / "models" / "model-02.html").read_text()
    assert "<dt>Reproduces</dt><dd>ours: why</dd>" in other
    assert "<dt>Differs from it</dt><dd>no known difference</dd>" in other
    assert "<dt>Reproduces</dt>" not in (site / "models" / "model-00.html").read_text()  # nothing declared
