"""The compare view's pair codes: every pair of models' paired-bootstrap verdict on one value at once.

The verdicts are the results API's (:func:`vlc_harness.results.significance`, bit for bit the
core's :mod:`vlc_harness.metrics.bootstrap`); this module only groups the models whose replicates
pair up (:func:`vlc_harness.results.pairing_key`) and writes the upper triangle as a string.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from vlc_harness.results import BETTER, NEITHER, WORSE, significance

PAIR_CODES = {BETTER: "1", WORSE: "2", NEITHER: "0"}
"""Per pair (i < j): ``1`` i is significantly better, ``2`` j is, ``0`` neither, ``-`` not compared."""


def pair_codes(values: list[np.ndarray | None], groups: list[Any], higher_is_better: bool) -> str:
    """The upper triangle of the pair codes, row by row: models are compared within a group
    (replicates that pair up), never across."""
    m = len(values)
    codes = np.full((m, m), "-", dtype="<U1")
    by_group: dict[Any, list[tuple[int, np.ndarray]]] = {}
    for i, (reps, group) in enumerate(zip(values, groups)):
        if reps is not None:
            by_group.setdefault(group, []).append((i, reps))
    for members in by_group.values():
        if len(members) < 2:
            continue
        matrix = significance(np.stack([reps for _, reps in members]), higher_is_better)
        index = np.asarray([i for i, _ in members])
        codes[np.ix_(index, index)] = np.vectorize(PAIR_CODES.get)(matrix)
    first, second = np.triu_indices(m, 1)
    return "".join(codes[first, second].tolist())
