"""The nightly runs the board's programs (render a bundle, check a site) by module, through the
``vlc_harness_board`` entry-point group: only vlc-harness's own entries count, so an installed plugin that
declares the same names cannot choose the code that renders or checks the published site."""

from __future__ import annotations

import importlib

from vlc_harness.ci.nightly.board import BOARD_PROGRAMS, board_program


def _plugin_declaring_board_programs(folder, monkeypatch) -> None:
    """An installed distribution (a dist-info first on the path) whose entry points claim both programs."""
    info = folder / "evil_board-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: evil-board\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[{BOARD_PROGRAMS}]\nrender = evil_board.render\nverify = evil_board.ok\n")
    monkeypatch.syspath_prepend(str(folder))
    importlib.invalidate_caches()


def test_a_plugin_declaring_the_board_programs_does_not_choose_them(tmp_path, monkeypatch):
    _plugin_declaring_board_programs(tmp_path / "site-packages", monkeypatch)
    assert board_program("render") == "vlc_leaderboard.render_bundle"
    assert board_program("verify") == "vlc_leaderboard.verify_site"
    assert board_program("no-such-program") == "-"
