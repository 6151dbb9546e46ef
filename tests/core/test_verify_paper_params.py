"""meta.paper_params: the paper loaded the model otherwise than the entry does (NegCLIP: GELU, the
board: QuickGELU). ``verify`` compares the paper rows with the entry run with those params, as
``<id>@paper``; the board never shows those rows next to the entry's own values."""

from __future__ import annotations

from pathlib import Path

import pytest

from vlc_harness.errors import RegistryError
from vlc_harness.verify import PAPER_SUFFIX, board_paper_match, paper_entry

MATCH = "open_clip:RN50/openai"  # SugarCrepe Table 6 rows (7 subsets and the mean)


def _registry(tmp_path: Path, paper_params: str = "{seed: 7}") -> Path:
    path = tmp_path / "grid.yaml"
    path.write_text(
        "models:\n"
        f"  - {{id: same, type: random, params: {{seed: 1}}, meta: {{paper_match: '{MATCH}'}}}}\n"
        f"  - {{id: other, type: random, params: {{seed: 1}}, meta: {{paper_match: '{MATCH}', "
        f"paper_params: {paper_params}}}}}\n"
        "benchmarks:\n  - {id: sugarcrepe, type: sugarcrepe}\n"
    )
    return path


def test_the_paper_entry_overrides_params_under_its_own_id(tmp_path, vlc_plugins):
    from vlc_harness.registry import load_registry

    registry = load_registry([_registry(tmp_path)], vlc_plugins)
    same, other = registry.models["same"], registry.models["other"]
    assert paper_entry(same) is same and board_paper_match(same.meta) == MATCH
    paper = paper_entry(other)
    assert paper.id == "other" + PAPER_SUFFIX and paper.params.seed == 7 and other.params.seed == 1
    assert paper.meta == other.meta and board_paper_match(other.meta) is None


def test_paper_params_are_checked_on_load(tmp_path, vlc_plugins):
    from vlc_harness.registry import load_registry

    with pytest.raises(RegistryError, match=r"grid\.yaml:3: models\[1\]\.meta\.paper_params\.nope: unknown key"):
        load_registry([_registry(tmp_path, "{nope: 1}")], vlc_plugins)
    with pytest.raises(RegistryError, match=r"paper_params\.seed"):
        load_registry([_registry(tmp_path, "{seed: not-a-number}")], vlc_plugins)


@pytest.mark.slow  # a stand-in image for every SugarCrepe file
def test_verify_runs_the_papers_loading_and_the_board_keeps_its_rows_off(tmp_path, full_root, vlc_cli, vlc_plugins):
    from vlc_harness.registry import load_registry
    from vlc_harness.store import open_store
    from vlc_leaderboard.board import build_board
    from vlc_leaderboard.model_page import model_facts

    registry = _registry(tmp_path)
    url = f"sqlite:///{tmp_path / 's.sqlite'}"
    common = [
        "--registry",
        str(registry),
        "--data-root",
        str(full_root),
        "--store",
        url,
        "--no-progress",
        "--executor",
        "inprocess",
    ]
    out = vlc_cli("verify", "-m", "other", *common)
    assert "other: the paper loaded it with {'seed': 7}; comparing other@paper" in out.output
    assert "8 numbers compared" in out.output  # random scores: they differ, exit 1
    assert out.exit_code == 1
    assert vlc_cli("run", "-m", "same", "-m", "other", "-b", "sugarcrepe", *common).exit_code == 0

    store = open_store(url)
    try:
        cells = store.latest_cells()
        by_model = {c.model_id: c for c in cells}
        assert set(by_model) == {"same", "other", "other@paper"}
        assert by_model["other@paper"].metrics != by_model["other"].metrics  # seed 7, not 1
        board = build_board(cells, load_registry([registry], vlc_plugins), vlc_plugins, include_adhoc=False)
    finally:
        store.close()
    rows = {r.id: r for r in board.rows}
    assert set(rows) == {"same", "other"}  # the paper loading is never a published row
    assert rows["same"].cells["sugarcrepe"].reported  # its paper's mean, next to ours
    assert not rows["other"].cells["sugarcrepe"].reported
    facts = dict(model_facts(rows["other"]))
    assert facts["Paper numbers shown"] == "no: its paper loaded it with seed: 7 (see vlc-harness verify)"
    assert dict(model_facts(rows["same"]))["Paper numbers shown"].startswith("yes")
