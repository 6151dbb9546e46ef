"""Fixtures the board's test files share, built once per session rather than once per file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.leaderboard import bundle_store


@pytest.fixture(scope="session")
def wide(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The wide synthetic board and its rendered site (read only), built once per session, not once per
    file that reads it (test_site_layout, test_site_axe, test_site_stranger)."""
    from tests.leaderboard.test_site_layout import build_wide

    return build_wide(tmp_path_factory)


@pytest.fixture(scope="session")
def wide_site(wide: dict[str, Any]) -> Path:
    return wide["site"]


@pytest.fixture(scope="session")
def demo(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The demonstration board rendered, and the board it was rendered from (read only; test_board_reading,
    test_site_stranger_links)."""
    from tests.leaderboard.test_board_reading import build_demo_board

    return build_demo_board(tmp_path_factory)


@pytest.fixture(scope="session")
def board_bundle(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """:mod:`tests.leaderboard.bundle_store`'s store (registry, store URL, data root, its plugins folder) and
    ``bundle``, the board bundle ``vlc-harness board export`` wrote from it (``adhoc_bundle``: with
    ``--include-adhoc``)."""
    tmp = tmp_path_factory.mktemp("board-bundle")
    folder = bundle_store.plugins_dir(tmp)
    with bundle_store.plugins_loaded(folder):
        built = bundle_store.build(tmp, bundle_store.cli)
        bundles = {"bundle": tmp / "board.zip", "adhoc_bundle": tmp / "board-adhoc.zip"}
        for key, extra in (("bundle", []), ("adhoc_bundle", ["--include-adhoc"])):
            out = bundle_store.cli("board", "export", "--out", bundles[key], *extra, *bundle_store.store_args(built))
            assert out.exit_code == 0, out.output
    return built | bundles | {"plugins": folder}
