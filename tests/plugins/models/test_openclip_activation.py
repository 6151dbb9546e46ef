"""A pretrained tag trained with QuickGELU is never built as GELU (open_clip itself only warns)."""

from __future__ import annotations

import pytest

from vlc_harness.testing import require


@pytest.fixture(scope="module")
def open_clip():  # noqa: ANN201
    require("open_clip")
    import open_clip

    return open_clip


@pytest.mark.parametrize("arch", ["ViT-B-32", "RN50", "ViT-L-14"])
def test_openai_weights_under_a_gelu_config_are_refused_with_the_fix(open_clip, arch: str) -> None:
    from vlc_harness_builtins.models.openclip import check_activation

    with pytest.raises(ValueError, match=f"use arch '{arch}-quickgelu'"):
        check_activation(open_clip, arch, "openai", force_quick_gelu=False)


@pytest.mark.parametrize(
    "arch, tag, force",
    [
        ("ViT-B-32-quickgelu", "openai", False),
        ("ViT-B-32", "openai", True),
        ("ViT-B-32", "datacomp_s_s13m_b4k", False),  # trained with GELU: no QuickGELU declared
        ("ViT-B-32", "datacomp_s_s13m_b4k", True),  # SugarCrepe's loading of it (meta.paper_params)
        ("ViT-H-14-quickgelu", "dfn5b", False),
    ],
)
def test_matching_or_forced_activations_load(open_clip, arch: str, tag: str, force: bool) -> None:
    from vlc_harness_builtins.models.openclip import check_activation

    check_activation(open_clip, arch, tag, force_quick_gelu=force)


def test_a_checkpoint_file_is_not_a_tag(open_clip, tmp_path) -> None:
    from vlc_harness_builtins.models.openclip import check_activation

    checkpoint = tmp_path / "openai"
    checkpoint.write_bytes(b"")
    check_activation(open_clip, "ViT-B-32", str(checkpoint), force_quick_gelu=False)
