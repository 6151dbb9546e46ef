"""The bootstrap's replicates are the same bits whatever BLAS does: one thread or two, another CPU kernel.

A cell's replicates are sums of resample counts times per-instance credits (:func:`vlc_harness.metrics.bootstrap.
resampled_sums`). Summed by a BLAS product, their last bits followed OpenBLAS's thread count and kernel, so a
cell computed on the GPU machine and rebuilt on a laptop stored other replicates. Here hard positives' example
(credits in thirds, which no summation order leaves exact) is computed in interpreters with OpenBLAS set
otherwise and compared with this one's, byte for byte.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
DIGEST = """
import hashlib, sys, tempfile
from pathlib import Path
sys.path.insert(0, {root!r})
from tests.plugins.test_benchmark_port import snapshot_module
module = snapshot_module()
with tempfile.TemporaryDirectory() as folder:
    variant = {{v.name: v for v in module.variants(Path(folder), None)}}["example/hard_positives"]
    cell = module.continuous_of(variant)
    digest = hashlib.sha256()
    for key in sorted(cell.replicates):
        digest.update(repr(key).encode() + cell.replicates[key].tobytes())
    print(digest.hexdigest())
"""


def replicates_digest(**env: str) -> str:
    """The digest of the example's replicates computed in a fresh interpreter with ``env`` set."""
    done = subprocess.run(
        [sys.executable, "-c", DIGEST.format(root=str(ROOT))],
        env=os.environ | env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


@pytest.mark.subprocess
def test_replicates_do_not_follow_blas_threads_or_kernel():
    here = replicates_digest()
    assert replicates_digest(OPENBLAS_NUM_THREADS="1") == here
    assert replicates_digest(OPENBLAS_CORETYPE="Prescott", OPENBLAS_NUM_THREADS="2") == here


def test_resampled_sums_is_the_matrix_product_in_a_fixed_order():
    from vlc_harness.metrics.bootstrap import resampled_sums

    rng = np.random.default_rng(3)
    counts = rng.integers(0, 4, size=(50, 700)).astype(np.float64)
    credits = rng.choice([0.0, 1.0, 0.5, 1 / 3, 2 / 3], size=(700, 6))
    np.testing.assert_allclose(resampled_sums(counts, credits), counts @ credits, rtol=1e-13)
