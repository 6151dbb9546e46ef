"""Core value types: images, instances, metric specs and results.

Everything a benchmark hands the harness, and everything the harness hands back, is one of
these frozen, JSON-describable values. Models never see them: they see pixels and strings.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

InstanceKeys = dict[str, "list[str] | str"]
"""Per instance id: its image keys, or why they cannot be had (a missing image)."""


def canonical_json(value: Any) -> str:
    """The one JSON spelling used for every hash in the harness (sorted keys, no spaces)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


@dataclass(frozen=True)
class ImageSource:
    """Where an instance's image comes from: a file plus a canonical transform spec.

    ``transform`` is a mapping of named operations applied after decoding, for example
    ``{"crop": [x, y, w, h]}`` (ARO crops Visual Genome images to the annotated box). The
    transform is part of the image's identity; the path is not (the same bytes anywhere are the
    same image).
    """

    path: Path
    transform: Mapping[str, Any] | None = None

    def transform_spec(self) -> str:
        """Canonical text of the transform ('' when there is none)."""
        return canonical_json(dict(self.transform)) if self.transform else ""

    def ref(self, sha256: str) -> ImageRef:
        """The image reference of this source once its file bytes are hashed."""
        return ImageRef(sha256=sha256, transform=self.transform_spec())


@dataclass(frozen=True, order=True)
class ImageRef:
    """The identity of an image as scored: sha256 of the file bytes plus the transform spec."""

    sha256: str
    transform: str = ""

    @property
    def key(self) -> str:
        """The store key: the hash alone, or ``hash|transform`` when a transform applies."""
        return self.sha256 if not self.transform else f"{self.sha256}|{self.transform}"


BLIND_IMAGE_KEY = ""
"""Image key under which image-blind models store their text-only scores."""


@functools.lru_cache(maxsize=256)
def every_pair(n_images: int, n_texts: int) -> tuple[tuple[int, int], ...]:
    """Every (image index, text index) of an ``n_images`` x ``n_texts`` instance, made once per shape (a cell
    reads each instance's pairs several times)."""
    return tuple((i, j) for i in range(n_images) for j in range(n_texts))


@dataclass(frozen=True)
class Instance:
    """One benchmark item: a few images, a few texts, and the gold structure.

    ``id`` is ``<category>/<upstream key>``, stable within a benchmark and data version.
    ``gold`` is benchmark-defined and JSON-serialisable (SugarCrepe: ``{"positive": 0}``).
    ``pairs`` lists the (image index, text index) pairs the metrics need; ``None`` means all.
    """

    id: str
    category: str
    images: tuple[ImageSource, ...]
    texts: tuple[str, ...]
    gold: Mapping[str, Any] = field(default_factory=dict)
    pairs: tuple[tuple[int, int], ...] | None = None

    def needed_pairs(self) -> tuple[tuple[int, int], ...]:
        """Every (image index, text index) the metrics read."""
        if self.pairs is not None:
            return self.pairs
        return every_pair(len(self.images), len(self.texts))

    def manifest_entry(self) -> dict[str, Any]:
        """What identifies this instance's content, independent of where the data root is."""
        return {
            "id": self.id,
            "images": [[src.path.name, src.transform_spec()] for src in self.images],
            "texts": list(self.texts),
            "gold": dict(self.gold),
            "pairs": [list(p) for p in self.needed_pairs()],
        }


TieRule = Literal["wrong", "right", "half"]


@dataclass(frozen=True)
class MetricSpec:
    """A metric a benchmark reports: its id, tie rule, averaging rule and direction.

    ``tie_rule`` says how a tie between the gold item and a competitor counts ("wrong": strict
    ``>``, the default; "right": the reference code counts ties as correct; "first-index", "half",
    "random" for the expected value of a random tie break, "n/a" where no tie can happen, or a rule
    a plugin's metric family names). The rule and ``averaging`` are written into every result so a
    number always carries its definition.
    """

    id: str
    description: str
    averaging: str
    tie_rule: str = "wrong"
    higher_is_better: bool = True
    direction: str | None = None
    chance: float | None = None


@dataclass(frozen=True)
class MetricValue:
    """One computed number: a metric over one category (``"all"`` for the whole benchmark)."""

    metric: str
    category: str
    value: float
    n: int
    ties: int
    tie_rule: str
    averaging: str

    def as_dict(self) -> dict[str, Any]:
        """JSON form, as stored in the cell record and printed by ``show --format json``."""
        return {
            "metric": self.metric,
            "category": self.category,
            "value": self.value,
            "n": self.n,
            "ties": self.ties,
            "tie_rule": self.tie_rule,
            "averaging": self.averaging,
        }


@dataclass(frozen=True)
class ReferenceRow:
    """A number reported by a paper (or a human study), kept as data beside its benchmark.

    It is compared only with our metric of the same ``metric`` id and ``category``.
    """

    benchmark: str
    metric: str
    category: str
    value: float
    citation: str
    table: str
    source: str
    protocol: str
    matches: str
    data_version: str | None = None
    precision: str | None = None
    """The precision the reference's evaluation ran the model in (``fp16``, ``bf16``; ``None``: fp32, the
    default of the code it names). ARO's OpenAI-CLIP rows are ``fp16``: ``clip.load`` on CUDA keeps the
    fp16 weights (openai/CLIP ``clip/clip.py:138-142``, ``clip/model.py:434`` @d05afc4)."""
