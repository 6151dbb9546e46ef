"""The seeded random baseline: every score is a hash of (seed, image key, text).

It is deterministic (a rerun or a resumed run gives the same scores), never ties in practice
(53-bit fractions), reads no pixels, and still differs per image, so text-to-image choices are
random too. The analytic chance level is reported separately by each benchmark.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from vlc_harness import hookimpl
from vlc_harness.models import Identity, PairGroup, PairScoringModel
from vlc_harness.requires import Requires


@dataclass(frozen=True)
class RandomParams:
    """The seed of the random scores."""

    seed: int = 0


def hashed_uniform(seed: int, image_key: str, text: str) -> float:
    """A number in [0, 1) derived from sha256 of the seed, image key and text."""
    digest = hashlib.sha256(f"{seed}\x1f{image_key}\x1f{text}".encode()).digest()
    return (int.from_bytes(digest[:8], "big") >> 11) / float(1 << 53)


class RandomBaseline(PairScoringModel):
    """Seeded random scores (a reproducible empirical chance row)."""

    type_name = "random"
    requires = Requires(scoring=("numpy",))
    needs_pixels = False
    Params = RandomParams

    def identify(self) -> Identity:
        """No weights: the seed (a param) is the whole identity."""
        return Identity(weights="none", dtype="fp64", protocol="score_pairs/sha256-uniform")

    def score_pairs(self, groups: list[PairGroup]) -> list[list[float]]:
        """One hashed uniform per (image key, text)."""
        return [[hashed_uniform(self.params.seed, g.image_key, t) for t in g.texts] for g in groups]

    @classmethod
    def conformance_example(cls, tmp_path: Any) -> dict[str, Any]:
        """Seed 0."""
        return {"seed": 0}


@hookimpl
def register_models(register: Any) -> None:
    """Register the random baseline."""
    register(RandomBaseline)
