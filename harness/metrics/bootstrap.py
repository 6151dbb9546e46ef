"""The seeded, stratified, paired bootstrap: resample counts drawn per category in blocks.

Every resample keeps each category's size (drawn with replacement within the category), so
macro values stay defined. The draws depend only on the sorted instance ids, each category's
name and the number of resamples: two cells over the same instances get the same resamples, so
their replicates pair up and a difference between two models is tested on the same resamples
(:func:`significantly_better`). Each category has its own random stream, consumed block after
block, so the resamples do not depend on the block size (which only bounds memory).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence

import numpy as np

SAMPLES = 1000
"""Bootstrap resamples per cell (``$VLC_HARNESS_BOOTSTRAP`` overrides; 0 turns intervals off)."""
LEVEL = 0.95
BLOCK_CELLS = 1_000_000
"""Resample counts held at once (resamples x instances); bounds a block's memory to ~30 MB."""
DESIGN = "stratified-v2"
"""Names the resampling scheme: replicates of different designs never pair up."""


def instance_set_id(ids: Sequence[str]) -> str:
    """sha256 of the sorted instance ids: cells with equal ids share resamples."""
    return hashlib.sha256("\n".join(sorted(ids)).encode()).hexdigest()


def _category_seed(category: str) -> int:
    return int(hashlib.sha256(category.encode()).hexdigest()[:16], 16)


class Resampler:
    """Resample counts of a cell's instances, per category, block by block.

    ``members[c]`` lists the positions (in the cell's instance order) of category ``c``'s
    instances sorted by id; a block gives, per category, ``counts[r, m]``: how often resample
    ``r`` drew member ``m``.
    """

    def __init__(self, ids: Sequence[str], category: np.ndarray, n_categories: int, samples: int) -> None:
        self.samples = samples
        order = np.argsort(np.asarray(ids), kind="stable")
        self.members = [order[category[order] == c] for c in range(n_categories)]
        self.seed = int(instance_set_id(ids)[:16], 16) ^ samples

    def blocks(self, names: Sequence[str], block_cells: int = BLOCK_CELLS) -> Iterator[list[np.ndarray]]:
        """Per block: one ``[rows, n_c]`` float count matrix per category (rows sum to ``n_c``)."""
        total = sum(len(m) for m in self.members) or 1
        rows = max(1, min(self.samples, block_cells // total))
        streams = [np.random.default_rng([self.seed, _category_seed(name)]) for name in names]
        done = 0
        while done < self.samples:
            block = min(rows, self.samples - done)
            yield [_counts(rng, len(m), block) for rng, m in zip(streams, self.members)]
            done += block


def _counts(rng: np.random.Generator, n: int, rows: int) -> np.ndarray:
    if n == 0:
        return np.zeros((rows, 0))
    draws = rng.integers(0, n, size=(rows, n), dtype=np.int32)
    offsets = (np.arange(rows, dtype=np.int64) * n)[:, None] + draws
    return np.bincount(offsets.ravel(), minlength=rows * n).reshape(rows, n).astype(np.float64)


def resampled_sums(counts: np.ndarray, vectors: np.ndarray) -> np.ndarray:
    """``counts @ vectors`` (resamples x members times members x vectors), summed in an order fixed by numpy's
    own loops: the same bits on every machine. A BLAS product (``@``) picks its summation order by thread
    count and CPU kernel (OpenBLAS: one thread or a Prescott kernel moved the last bits of the replicates
    the snapshot holds), so a cell rebuilt on another machine stored other replicates."""
    return np.einsum("ij,jk->ik", counts, vectors, optimize=False)


def interval(replicates: np.ndarray, level: float = LEVEL) -> tuple[float, float]:
    """The percentile interval of the replicates (NaN-free replicates assumed)."""
    tail = (1.0 - level) / 2 * 100
    low, high = np.percentile(replicates, [tail, 100 - tail])
    return float(low), float(high)


def significantly_better(a: Sequence[float], b: Sequence[float], higher_is_better: bool = True) -> bool:
    """Paired bootstrap: ``a`` beats ``b`` when the 2.5th percentile of ``a - b`` (on the same
    resamples) is above zero (below, for metrics where lower is better)."""
    diff = np.asarray(a) - np.asarray(b)
    if not higher_is_better:
        diff = -diff
    return bool(np.percentile(diff, (1.0 - LEVEL) / 2 * 100) > 0)


def ranks(replicates: dict[str, Sequence[float]], higher_is_better: bool = True) -> dict[str, int]:
    """Per model: 1 + the number of models significantly better on the same resamples."""
    return {
        name: 1
        + sum(
            significantly_better(other, mine, higher_is_better)
            for other_name, other in replicates.items()
            if other_name != name
        )
        for name, mine in replicates.items()
    }
