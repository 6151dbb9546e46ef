"""The instance browser's compact score encoding: each score as its 5-significant-digit decimal in 3 bytes.

The browser shows scores to 5 significant digits; the scores downloads keep them as stored. A model's score
shard holds one base64 text per kind of score (image-text ``s``, text-text ``x``): every instance's block
(images x captions, captions x captions) in row order, instance after instance, each value 24 bits, big-endian:

* bit 23: the sign;
* bits 17-22: the decimal exponent plus :data:`BIAS` (``d.dddd x 10^e``, ``e`` in -32..31);
* bits 0-16: the 5 significant digits as an integer (10000-99999; 0 for zero), or :data:`NAN` (no score
  stored) or :data:`INFINITE`.

Base64 makes that 4 characters a score where JSON numbers take about 9 (``0.28765,``). The browser reads the
digits back as the decimal text ``DDDDDeE`` (``Number("28765e-5")``), the same double Python's
``float(f"{v:.5g}")`` gives, so it shows what a JSON shard showed. A block with a magnitude outside
1e-32..1e32 cannot be packed: its shard keeps JSON numbers (:func:`pack_scores` returns them) and the
browser reads both.
"""

from __future__ import annotations

import base64
import math

import numpy as np

BIAS = 32
"""Added to the decimal exponent (-32..31) to store it in 6 bits."""
NAN = 0x1FFFF
"""The digits field of a score not stored."""
INFINITE = 0x1FFFE
"""The digits field of an infinite score (the sign bit says which)."""

Matrix = list[list[float | None]]


def pack_scores(blocks: list[np.ndarray]) -> str | list[Matrix | None]:
    """Score blocks (one per instance, NaN: none stored) as a shard holds them: the base64 text, or, where a
    magnitude is outside 1e-32..1e32, the JSON matrices at 5 significant digits (``None`` if none is stored)."""
    arrays = [np.array(b, dtype=np.float64, ndmin=2) for b in blocks]
    rows = np.array([a.shape[0] for a in arrays], dtype=np.int64)
    cols = np.array([a.shape[1] for a in arrays], dtype=np.int64)
    padded = np.full((len(arrays), max(rows, default=0), max(cols, default=0)), np.nan)
    for k, a in enumerate(arrays):
        padded[k, : a.shape[0], : a.shape[1]] = a
    return pack_trimmed(padded, rows, cols)  # the one packing path: the blocks as one array, trimmed back


def pack_trimmed(scores: np.ndarray, rows: np.ndarray, cols: np.ndarray) -> str | list[Matrix | None]:
    """:func:`pack_scores` of ``scores[k][: rows[k], : cols[k]]`` for each instance ``k`` of ``scores`` (instances,
    rows, columns), the blocks taken at once by a mask (row-major within each block, block after block)."""
    mask = trim_mask(scores.shape, rows, cols)
    codes = _codes(np.asarray(scores, dtype=np.float64)[mask])
    if codes is None:
        return [_matrix(scores[k][:r, :c]) for k, (r, c) in enumerate(zip(rows.tolist(), cols.tolist()))]
    return _text(codes)


def trim_mask(shape: tuple[int, ...], rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """The cells of an (instances, rows, columns) array that lie in each instance's first ``rows[k]`` rows and
    ``cols[k]`` columns."""
    n, n_rows, n_cols = shape
    within_rows = np.arange(n_rows)[None, :, None] < np.asarray(rows).reshape(n, 1, 1)
    return within_rows & (np.arange(n_cols)[None, None, :] < np.asarray(cols).reshape(n, 1, 1))


def _text(codes: np.ndarray) -> str:
    """The base64 text of 24-bit codes (3 big-endian bytes each)."""
    return base64.b64encode(codes.astype(">u4").view(np.uint8).reshape(-1, 4)[:, 1:].tobytes()).decode("ascii")


def _codes(values: np.ndarray) -> np.ndarray | None:
    """:func:`_code` of every value at once (``None`` if one's exponent is out of range). The digits come from
    numpy's arithmetic where it cannot differ from the decimal text: a value within 1e-6 of a rounding tie or of
    a power of ten (where the exponent may change) goes through :func:`_code` itself."""
    codes = np.zeros(len(values), dtype=np.uint32)
    magnitude = np.abs(values)
    finite = np.isfinite(values) & (magnitude > 0)
    with np.errstate(all="ignore"):
        exponent = np.floor(np.log10(np.where(finite, magnitude, 1.0)))
        scaled = magnitude * 10.0 ** (4 - exponent)
        digits = np.rint(scaled)
        sure = (
            finite
            & (np.abs(scaled - np.floor(scaled) - 0.5) > 1e-6)
            & (scaled >= 10_000 + 1e-6)
            & (scaled <= 99_999.5 - 1e-6)
            & (exponent >= -BIAS)
            & (exponent < BIAS)
        )
    sign = np.signbit(values).astype(np.uint32) << 23
    codes[sure] = sign[sure] | (exponent[sure] + BIAS).astype(np.uint32) << 17 | digits[sure].astype(np.uint32)
    for k in np.flatnonzero(~sure).tolist():
        code = _code(float(values[k]))
        if code is None:
            return None
        codes[k] = code
    return codes


def unpack_scores(packed: str, shapes: list[tuple[int, int]]) -> list[Matrix | None]:
    """:func:`pack_scores`'s text back as the browser shows it: per instance (``shapes``: its rows and columns)
    its rows at 5 significant digits, ``None`` where none is stored (``None`` for an instance with none)."""
    raw = base64.b64decode(packed)
    values = [_value(int.from_bytes(raw[k : k + 3], "big")) for k in range(0, len(raw), 3)]
    out: list[Matrix | None] = []
    at = 0
    for rows, cols in shapes:
        block = [values[at + r * cols : at + (r + 1) * cols] for r in range(rows)]
        at += rows * cols
        out.append(block if any(v is not None for row in block for v in row) else None)
    return out


def _code(v: float) -> int | None:
    """One score's 24 bits, or ``None`` if its exponent is out of range."""
    if math.isnan(v):
        return NAN
    sign = 1 << 23 if math.copysign(1.0, v) < 0 else 0
    if math.isinf(v):
        return sign | INFINITE
    if v == 0:
        return sign
    digits, exponent = f"{abs(v):.4e}".split("e")
    e = int(exponent)
    if not -BIAS <= e < BIAS:
        return None
    return sign | (e + BIAS) << 17 | int(digits.replace(".", ""))


def _value(code: int) -> float | None:
    """The score 24 bits say, as the browser shows it (``None``: not stored)."""
    digits, sign = code & 0x1FFFF, "-" if code >> 23 else ""
    if digits == NAN:
        return None
    if digits == INFINITE:
        return float(sign + "inf")
    return float(f"{sign}{digits}e{((code >> 17) & 0x3F) - BIAS - 4}")


def _matrix(block: np.ndarray) -> Matrix | None:
    """A block at 5 significant digits, as JSON numbers (``None`` where not scored; ``None`` if none is)."""
    if np.isnan(block).all():
        return None
    return [[None if math.isnan(v) else float(f"{v:.5g}") for v in row] for row in block.tolist()]
