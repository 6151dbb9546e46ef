"""Quick tier of the kill drills (the full tier: python tests/drills/kill_drill.py --points 20)."""

from __future__ import annotations

from drills.kill_drill import BATCH, run_drills


def test_kill_drills_lose_nothing():
    results = run_drills(points=3, seed=7)
    for r in results:
        assert r.identical, r
        assert r.lost_in_flight <= BATCH, r
