"""The embed protocol names mismatched vector sizes ("image vectors are 512-d, text vectors 100-d")
instead of letting numpy fail on a broadcast."""

from __future__ import annotations

import numpy as np

from vlc_harness import evaluate
from vlc_harness.models import EmbeddingModel, RunOptions
from vlc_harness.params import NoParams


class MismatchedEmbed(EmbeddingModel):
    """Image vectors of 512 dimensions, text vectors of 100: a projection head forgotten."""

    type_name = "test_mismatched_embed"

    def __init__(self, params=None, run=None) -> None:
        super().__init__(params or NoParams(), run or RunOptions(batch_size=4))

    def preprocess(self, image):
        return np.asarray(image, dtype=np.float64).mean(axis=(0, 1))

    def embed_images(self, batch):
        return np.ones((len(batch), 512))

    def embed_texts(self, texts):
        return np.ones((len(texts), 100))


def test_different_image_and_text_sizes_are_named(tmp_path, sample_root):
    (cell,) = evaluate(
        MismatchedEmbed(), ["sugarcrepe:version=custom"], store=f"sqlite:///{tmp_path / 's.sqlite'}",
        data_root=sample_root,
    ).cells  # fmt: skip
    assert cell.status == "failed"
    assert "image vectors are 512-d, text vectors 100-d" in cell.error
    assert "broadcast" not in cell.error
