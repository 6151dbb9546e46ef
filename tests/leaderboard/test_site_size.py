"""The rendered site's size: what `render` prints, and its warning past GitHub Pages' 1 GB."""

from __future__ import annotations

import re

from tests.leaderboard.test_render_manifest import board_store  # noqa: F401 (fixture)
from vlc_leaderboard.site_size import PUBLISH_LIMIT, site_size


def test_the_size_counts_every_file_and_the_large_parts(tmp_path):
    (tmp_path / "data" / "instances" / "b").mkdir(parents=True)
    (tmp_path / "downloads").mkdir()
    (tmp_path / "index.html").write_bytes(b"x" * 1_000)
    (tmp_path / "data" / "instances" / "b" / "index.js").write_bytes(b"x" * 2_500_000)
    (tmp_path / "downloads" / "scores.jsonl").write_bytes(b"x" * 400_000)
    (tmp_path / "data" / "compare.js").write_bytes(b"x" * 99)
    size = site_size(tmp_path)
    assert (size.total, size.files) == (2_901_099, 4)
    assert size.describe() == "2.9 MB in 4 files (instance browser 2.5 MB, downloads 0.4 MB)"
    assert size.warning() is None


def test_a_site_past_what_pages_publishes_is_warned_of(tmp_path):
    with open(tmp_path / "big.bin", "wb") as handle:  # sparse: its size without its disk
        handle.truncate(PUBLISH_LIMIT + 1)
    warning = site_size(tmp_path).warning()
    assert warning is not None and "over the 1 GB GitHub Pages publishes" in warning


def test_render_prints_the_site_size(board_store, tmp_path):  # noqa: F811
    from tests.leaderboard.test_render_manifest import render

    site = tmp_path / "site"
    done = render(board_store, site)
    assert done.exit_code == 0, done.output
    printed = re.search(r"published cells; ([0-9.]+) MB in ([0-9,]+) files", done.output)
    assert printed, done.output
    assert int(printed[2].replace(",", "")) == sum(1 for p in site.rglob("*") if p.is_file())
