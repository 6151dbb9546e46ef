"""Ad-hoc runs stay off the published board; a store-only model is still marked for what it is;
submitted scores are marked as not reproduced."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[2] / "docs"


@pytest.fixture
def swaps_root(tmp_path, monkeypatch):
    """The docs' swaps benchmark and caption_length model as local plugins, with example data."""
    from vlc_harness.plugins import get_plugins

    folder = tmp_path / "plugins"
    folder.mkdir()
    for name in ("swaps.py", "caption_length.py"):
        shutil.copy(DOCS / "examples" / name, folder)
    monkeypatch.setenv("VLC_HARNESS_PLUGINS_DIR", str(folder))
    plugins = get_plugins(reload=True)
    (tmp_path / "data").mkdir()
    _, root = plugins.benchmarks.get("swaps").cls.conformance_example(tmp_path / "data")
    yield root
    monkeypatch.delenv("VLC_HARNESS_PLUGINS_DIR")
    get_plugins(reload=True)


def test_inline_models_are_marked_and_only_published_on_request(swaps_root, tmp_path, vlc_run, monkeypatch):
    from vlc_harness.errors import UserError
    from vlc_harness.plugins import get_plugins
    from vlc_harness.registry import load_registry
    from vlc_leaderboard.board import build_board

    registry = tmp_path / "r.yaml"
    registry.write_text(
        "models:\n  - id: lab-scores\n    type: random\n    params: {seed: 5}\n"
        "    meta: {display_name: Lab X, submitted: true}\n"
        "benchmarks:\n  - id: swaps\n    type: swaps\n"
    )
    out = vlc_run(
        "--registry",
        str(registry),
        "-m",
        "lab-scores",
        "-m",
        "caption_length",
        "-m",
        "random:seed=2",
        "-b",
        "swaps",
        data_root=swaps_root,
    )
    assert out.exit_code == 0, out.output
    plugins = get_plugins()
    reg = load_registry([registry], plugins)
    cells = vlc_run.store().latest_cells(include_incomplete=True, with_replicates=True)
    everything = {r.id: r.kind for r in build_board(cells, reg, plugins).rows}
    assert everything == {"lab-scores": "baseline", "caption_length": "blind", "random:seed=2": "baseline"}
    assert [r.id for r in build_board(cells, reg, plugins, include_adhoc=False).rows] == ["lab-scores"]

    site = tmp_path / "site"
    rendered = vlc_run.cli("render", "--registry", str(registry), "--out", str(site))
    assert rendered.exit_code == 0, rendered.output
    index = (site / "index.html").read_text()
    assert "Lab X" in index and "submitted, not reproduced" in index
    assert "caption_length" not in index and "random:seed=2" not in index
    assert "2 models" in rendered.output  # the note: not published, no registry entry

    monkeypatch.chdir(tmp_path)  # no registry.yaml here: render follows the store's latest run, as every command
    followed = vlc_run.cli("render", "--out", str(tmp_path / "followed"))
    assert followed.exit_code == 0, followed.output
    assert "note: registry: r.yaml (what the store's latest run read" in followed.stderr  # named from here
    assert "Lab X" in (tmp_path / "followed" / "index.html").read_text()
    empty = tmp_path / "empty.yaml"
    empty.write_text("models: []\n")
    with pytest.raises(UserError, match="no registry names a model"):
        vlc_run.cli("render", "--registry", str(empty), "--out", str(tmp_path / "none"))
    assert vlc_run.cli("render", "--out", str(tmp_path / "all"), "--include-adhoc").exit_code == 0
    assert "caption_length" in (tmp_path / "all" / "index.html").read_text()
