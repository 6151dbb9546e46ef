"""The board bundle's fixture, shared by its tests: a store every protocol filled, and a bundle exported from it."""

from __future__ import annotations

from typing import Any

import pytest

from tests.leaderboard import bundle_store


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
