"""The board names a model's page and downloads by the core's one id-to-file-name rule, the rule the
registry checks for collisions (:mod:`vlc_harness.site_names`)."""

from __future__ import annotations


def test_the_board_names_files_by_the_core_rule():
    from vlc_harness.site_names import file_name
    from vlc_leaderboard.fmt import slug
    from vlc_leaderboard.public import page_slug

    assert slug is file_name  # one function, not a copy of its rule
    for model_id in ("lab/model-a", "Lab/Model-A", "openclip-vit-b-32-openai", "lab/", "a__b"):
        assert page_slug(model_id) == slug(model_id) == file_name(model_id)
