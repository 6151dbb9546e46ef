"""Which instances a cell covers: the first ``--limit`` of each category, and the manifest hash
that keys the cell (its data version and every instance's content).

Both the run (:mod:`vlc_harness.run.prepare`) and the rebuild of stored cells
(:mod:`vlc_harness.metrics.rebuild`) need them, so they live below both.
"""

from __future__ import annotations

import hashlib
from collections import Counter

from vlc_harness.types import Instance, canonical_json


def limit_per_category(instances: list[Instance], limit: int | None) -> list[Instance]:
    """The first ``limit`` instances of each category, in load order (deterministic)."""
    if limit is None:
        return list(instances)
    seen: Counter[str] = Counter()
    out = []
    for inst in instances:
        if seen[inst.category] < limit:
            seen[inst.category] += 1
            out.append(inst)
    return out


def manifest_hash(data_version: str, instances: list[Instance]) -> str:
    """sha256 over the data version and every instance's content (ids, files, texts, gold)."""
    h = hashlib.sha256(data_version.encode())
    for inst in instances:
        h.update(canonical_json(inst.manifest_entry()).encode())
        h.update(b"\n")
    return h.hexdigest()
