"""The score shards' vectorised packing gives the bytes a value-by-value packing gives (:func:`_code`)."""

from __future__ import annotations

import base64

import numpy as np

from vlc_leaderboard.score_packing import _code, _matrix, pack_scores, pack_trimmed

EDGES = [0.0, -0.0, np.nan, np.inf, -np.inf, 1.0, 10.0, 0.1, 9.99995, 9.99994999, 9.999950001, 0.123455, 0.123465]
EDGES += [1.00005, 1.00015, -0.28765, 12345.5, 99999.5, 1e5, 9.99995e-33, 1e-32, 9.9999e31, 2.5e-5, 0.000125]
"""Values at a rounding tie, a power of ten or the exponent range's ends, where numpy's arithmetic could
disagree with the decimal text."""


def one_by_one(blocks: list[np.ndarray]) -> str | list[object]:
    """The packing a value at a time (what :func:`pack_scores` did before it was vectorised)."""
    codes = bytearray()
    for block in blocks:
        for v in block.ravel().tolist():
            code = _code(v)
            if code is None:
                return [_matrix(b) for b in blocks]
            codes += code.to_bytes(3, "big")
    return base64.b64encode(bytes(codes)).decode("ascii")


def test_packing_matches_value_by_value():
    rng = np.random.default_rng(7)
    values = np.concatenate(
        [
            rng.normal(0.28, 0.05, 20_000),  # cosines, as the embed protocol stores them
            np.round(rng.normal(0, 1, 20_000), 5),  # ties of the 5-digit rounding abound
            np.round(rng.normal(0, 1, 20_000) * 1e4, 1),
            rng.normal(0, 1, 20_000) * 10.0 ** rng.integers(-31, 31, 20_000),
            np.array(EDGES),
        ]
    )
    for chunk in np.array_split(values, 100):
        half = len(chunk) // 2
        blocks = [chunk[:half].reshape(-1, 1), chunk[half : 2 * half].reshape(1, -1)]
        assert pack_scores(blocks) == one_by_one(blocks)
    for value in EDGES:
        blocks = [np.array([[value, 0.5]])]
        assert pack_scores(blocks) == one_by_one(blocks), value


def test_out_of_range_keeps_json_numbers():
    blocks = [np.array([[0.5, 1e-40]]), np.array([[np.nan]])]
    assert pack_scores(blocks) == one_by_one(blocks) == [[[0.5, 1e-40]], None]
    assert pack_scores([]) == ""


def test_trimmed_packing_matches_sliced_blocks():
    """:func:`pack_trimmed` (a mask over the model's score array) packs what slicing each instance's block does."""
    rng = np.random.default_rng(11)
    scores = rng.normal(0.28, 0.05, (40, 3, 5))
    scores[rng.random(scores.shape) < 0.1] = np.nan
    rows, cols = rng.integers(0, 5, 40), rng.integers(0, 7, 40)  # 0, and more than the array holds, included
    sliced = [scores[k][:r, :c] for k, (r, c) in enumerate(zip(rows.tolist(), cols.tolist()))]
    assert pack_trimmed(scores, rows, cols) == pack_scores(sliced) == one_by_one(sliced)
    rows[7], cols[7] = 2, 2
    scores[7, 0, 0] = 1e-40  # out of range: JSON matrices, per instance, as before
    sliced = [scores[k][:r, :c] for k, (r, c) in enumerate(zip(rows.tolist(), cols.tolist()))]
    assert pack_trimmed(scores, rows, cols) == pack_scores(sliced) == one_by_one(sliced)
    assert isinstance(pack_trimmed(scores, rows, cols), list)
    assert pack_trimmed(scores[:0], rows[:0], cols[:0]) == ""
