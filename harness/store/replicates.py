"""The stored form of a cell's bootstrap replicates: one zlib-compressed blob per cell.

Layout: a JSON header line (``{"keys": [[metric, category], ...], "samples": R}``) and then the
``[len(keys), R]`` float64 matrix in little-endian bytes, all compressed. Exact float64, so an
interval recomputed from the stored replicates equals the stored one.
"""

from __future__ import annotations

import json
import zlib

import numpy as np

Key = tuple[str, str]


def encode(replicates: dict[Key, np.ndarray]) -> bytes | None:
    """The blob of a cell's replicates (``None`` when there are none)."""
    if not replicates:
        return None
    keys = sorted(replicates)
    matrix = np.stack([np.asarray(replicates[k], dtype="<f8") for k in keys])
    header = json.dumps({"keys": [list(k) for k in keys], "samples": int(matrix.shape[1])}).encode()
    return zlib.compress(header + b"\n" + matrix.tobytes(), 6)


def decode(blob: bytes | None) -> dict[Key, np.ndarray]:
    """The replicates a blob holds, by (metric, category)."""
    if not blob:
        return {}
    raw = zlib.decompress(blob)
    header, _, body = raw.partition(b"\n")
    meta = json.loads(header)
    keys = [tuple(k) for k in meta["keys"]]
    matrix = np.frombuffer(body, dtype="<f8").reshape(len(keys), int(meta["samples"]))
    return {(str(k[0]), str(k[1])): matrix[i].copy() for i, k in enumerate(keys)}
