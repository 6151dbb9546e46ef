"""Scores computed elsewhere, read from a JSONL file: one line per needed (image, text) pair.

Each line is ``{"benchmark": ID, "version": DATA_VERSION, "instance": INSTANCE_ID, "image": i,
"text": j, "score": s}``: ``i`` and ``j`` index the instance's images and texts as
``vlc-harness instances -b ID --format jsonl`` lists them. The file is checked for duplicates
when loaded and for completeness as pairs are asked for: a pair without a score, or with
conflicting scores, is a :class:`~vlc_harness.models.PairError` naming it (never an invented score),
so only the instances that need it fail. The file's sha256 is the model's weights identity.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vlc_harness import hookimpl
from vlc_harness.kit.weights import file_identity
from vlc_harness.models import Identity, PairError, PairGroup, PairScoringModel

Key = tuple[str, str, str, int, int]
FIELDS = ("benchmark", "version", "instance", "image", "text", "score")


@dataclass(frozen=True)
class PrecomputedParams:
    """Path of the JSONL scores file."""

    path: str


class Precomputed(PairScoringModel):
    """Replays scores from a JSONL file (another harness, a paper's released scores)."""

    type_name = "precomputed"
    needs_pixels = False
    needs_origins = True
    Params = PrecomputedParams

    def identify(self) -> Identity:
        """The sha256 of the scores file."""
        path = Path(self.params.path)
        if not path.is_file():
            raise FileNotFoundError(f"precomputed scores file {path} does not exist")
        return Identity(weights=file_identity(path), dtype="as-given", protocol="score_pairs/precomputed")

    def load(self, device: str) -> None:
        """Read and validate the file (duplicates and malformed lines are errors)."""
        self._scores: dict[Key, float] = {}
        self._instances: dict[tuple[str, str], set[str]] = {}
        path = Path(self.params.path)
        with open(path, encoding="utf-8") as f:
            for line_no, line in enumerate(f, 1):
                if not line.strip():
                    continue
                where = f"{path}:{line_no}"
                try:
                    row = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise ValueError(f"{where}: not JSON ({exc.msg})") from None
                missing = [k for k in FIELDS if k not in row]
                if missing:
                    raise ValueError(f"{where}: missing field(s) {', '.join(missing)}")
                score = row["score"]
                if not isinstance(score, (int, float)) or isinstance(score, bool) or not math.isfinite(score):
                    raise ValueError(f"{where}: score must be a finite number, got {score!r}")
                key = (
                    str(row["benchmark"]),
                    str(row["version"]),
                    str(row["instance"]),
                    int(row["image"]),
                    int(row["text"]),
                )
                if key in self._scores:
                    raise ValueError(f"{where}: duplicate score for {key}")
                self._scores[key] = float(score)
                self._instances.setdefault(key[:2], set()).add(key[2])

    def score_pairs(self, groups: list[PairGroup]) -> list[list[float | PairError]]:
        """Look every pair up by the instances that need it; all of them must agree."""
        out = []
        for group in groups:
            if group.origins is None:
                raise ValueError("precomputed scores need the pairs' origins (needs_origins)")
            row: list[float | PairError] = []
            for origins in group.origins:
                found = {o: self._scores[o] for o in origins if o in self._scores}
                values = set(found.values())
                if not found:
                    row.append(PairError(self._missing_message(origins[0])))
                elif len(values) > 1:
                    row.append(PairError(f"conflicting scores for one image-text pair: {found}"))
                else:
                    row.append(values.pop())
            out.append(row)
        return out

    def _missing_message(self, origin: Key) -> str:
        benchmark, version, instance, i, j = origin
        message = f"{self.params.path} has no score for {benchmark} ({version}) instance {instance} image {i} text {j}"
        versions = sorted(v for (b, v) in self._instances if b == benchmark and v != version)
        if versions:
            message += f"; the file has {benchmark} versions {', '.join(versions)}"
        return message

    @classmethod
    def conformance_example(cls, tmp_path: Path) -> dict[str, Any]:
        """A scores file covering the shared conformance grid."""
        from vlc_harness.testing import conformance_grid_lines

        path = tmp_path / "precomputed_example.jsonl"
        path.write_text("".join(json.dumps(line) + "\n" for line in conformance_grid_lines()))
        return {"path": str(path)}


@hookimpl
def register_models(register: Any) -> None:
    """Register the precomputed-scores model."""
    register(Precomputed)
