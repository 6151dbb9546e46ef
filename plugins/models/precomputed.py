"""Scores computed elsewhere, read from a JSONL file: one line per needed (image, text) pair.

Each line is ``{"benchmark": ID, "version": DATA_VERSION, "instance": INSTANCE_ID, "image": i,
"text": j, "score": s}``: ``i`` and ``j`` index the instance's images and texts as
``vlc-harness instances -b ID --format jsonl`` lists them. The file is checked for duplicates
when loaded and for completeness as pairs are asked for: a pair without a score, or with
conflicting scores, is a :class:`~vlc_harness.models.PairError` naming it (never an invented score),
so only the instances that need it fail. The file's sha256 is the model's weights identity.

The file is a local ``path``, or (scores a lab submits without sharing weights) a ``url`` with
its ``sha256``: downloaded into the cache folder on first use and verified, never committed. Such
an entry carries ``meta.submitted: true``; :class:`Precomputed` implements
:class:`~vlc_harness.submitted.ReplaysScores`, through which CI checks it with
:func:`vlc_harness.submitted.check_submitted` and :func:`~vlc_harness.submitted.missing_scores`
(docs/pr_check.md).
"""

from __future__ import annotations

import os
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from vlc_harness import hookimpl
from vlc_harness.errors import InputError, WeightsUnavailable
from vlc_harness.kit.weights import file_identity, hub_offline
from vlc_harness.models import Identity, PairError, PairGroup, PairScoringModel
from vlc_harness.params import ParamError
from vlc_harness.reasons import Reason
from vlc_harness.sources import read_text
from vlc_harness.sources.fields import INDEX, NUMBER, TEXT, at, require
from vlc_harness.sources.rows import parse_json
from vlc_harness.submitted import ReplaysScores, ScoreKey

FIELDS = {"benchmark": TEXT, "version": TEXT, "instance": TEXT, "image": INDEX, "text": INDEX, "score": NUMBER}
"""Each line's fields: ``image`` and ``text`` index the instance's images and texts."""
SHA256 = re.compile(r"^[0-9a-f]{64}$")


@dataclass(frozen=True)
class PrecomputedParams:
    """The scores file: a local ``path``, or a ``url`` with the file's ``sha256`` (lowercase hex)."""

    path: str | None = None
    """A local JSONL scores file."""
    url: str | None = None
    """An http(s) link to the scores file (downloaded into the cache folder on first use)."""
    sha256: str | None = None
    """Required with ``url``; with ``path`` the file is checked against it."""

    def __post_init__(self) -> None:
        if (self.path is None) == (self.url is None):
            raise ParamError("params", "give exactly one of path (a local file) and url (with sha256)")
        if self.url is not None:
            parsed = urlparse(self.url)
            if parsed.scheme not in ("http", "https") or not parsed.netloc:
                raise ParamError("params.url", f"expected an http(s) link, got {self.url!r}")
            if self.sha256 is None:
                raise ParamError("params.sha256", "required with url: the sha256 of the scores file")
        if self.sha256 is not None and not SHA256.match(self.sha256):
            raise ParamError("params.sha256", f"expected 64 lowercase hex digits, got {self.sha256!r}")

    def scores_file(self) -> Path:
        """The local file, or the ``url``'s file downloaded into the cache (unless there) and checked."""
        if self.url is not None and self.sha256 is not None:
            return download(self.url, self.sha256)
        if self.path is not None:
            return Path(self.path)
        raise ParamError("params", "give exactly one of path (a local file) and url (with sha256)")


def cached_file(sha256: str) -> Path:
    """Where a downloaded scores file is kept: the cache folder, by content."""
    from vlc_harness.paths import cache_dir

    return cache_dir() / "precomputed" / f"{sha256}.jsonl"


def download(url: str, sha256: str) -> Path:
    """Fetch ``url`` into the cache unless it is there; a file with another sha256 is refused."""
    from vlc_harness.datafetch import download as fetch

    target = cached_file(sha256)
    if target.is_file():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, partial = tempfile.mkstemp(dir=target.parent, prefix=".download-")  # one per worker: they may race
    os.close(fd)
    try:
        got = fetch(url, Path(partial), progress=False)
        if got != sha256:
            raise ValueError(f"{url} has sha256 {got}, not the {sha256} its entry names")
        os.replace(partial, target)  # atomic: workers downloading at once each finish with the same file
    finally:
        if os.path.exists(partial):
            os.unlink(partial)
    return target


def read_scores(path: Path) -> dict[ScoreKey, float]:
    """Every score of a file by (benchmark, version, instance, i, j). A malformed file (not UTF-8 or JSON,
    a field absent or of another kind, a score that is not a finite number, a pair scored twice) is an
    :class:`~vlc_harness.errors.InputError` naming the file, the line and the field."""
    scores: dict[ScoreKey, float] = {}
    lines: dict[ScoreKey, int] = {}
    for n, line in enumerate(read_text(path).splitlines(), 1):
        if not line.strip():
            continue
        with at(path, f"line {n}"):
            row = require(parse_json(line, path, n), FIELDS)
        key = (row["benchmark"], row["version"], row["instance"], row["image"], row["text"])
        if key in scores:
            raise InputError(
                path, f"line {n}", "score", "one score per pair", f"a duplicate score (line {lines[key]} has one)"
            )
        scores[key], lines[key] = float(row["score"]), n
    return scores


class Precomputed(PairScoringModel, ReplaysScores):
    """Replays scores from a JSONL file (another harness, a paper's released scores, a lab's submission)."""

    type_name = "precomputed"
    needs_pixels = False
    needs_origins = True
    Params = PrecomputedParams

    def identify(self) -> Identity:
        """The sha256 of the scores file (a ``url``'s as its entry names it: nothing is downloaded here)."""
        p = self.params
        if p.url is not None:
            if not cached_file(p.sha256).is_file() and hub_offline():
                raise WeightsUnavailable(
                    f"submitted scores {p.url} are not downloaded yet ({cached_file(p.sha256)}) and the network "
                    "is off (HF_HUB_OFFLINE is set): run once online, or download the file and name it by path "
                    "with the same sha256"
                )
            weights = f"sha256:{p.sha256}"
        else:
            path = Path(p.path)
            if not path.is_file():
                raise FileNotFoundError(f"precomputed scores file {path} does not exist")
            weights = file_identity(path)
            if p.sha256 is not None and weights != f"sha256:{p.sha256}":
                raise ValueError(f"{path} has {weights}, not the sha256 {p.sha256} its entry names")
        return Identity(weights=weights, dtype="as-given", protocol="score_pairs/precomputed")

    @property
    def source(self) -> str:
        """The file as its entry names it (path or url)."""
        return self.params.path if self.params.url is None else self.params.url

    def load(self, device: str) -> None:
        """Read and validate the file (downloading a ``url`` first); duplicates and malformed lines are errors."""
        self._scores = read_scores(self.params.scores_file())
        self._instances: dict[tuple[str, str], set[str]] = {}
        for key in self._scores:
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
                    row.append(PairError(self._missing_message(origins[0]), Reason.SCORES_MISSING))
                elif len(values) > 1:
                    row.append(PairError(f"conflicting scores for one image-text pair: {found}"))
                else:
                    row.append(values.pop())
            out.append(row)
        return out

    @classmethod
    def submission_problems(cls, params: PrecomputedParams) -> list[str]:
        """A submission names its file by ``url`` and ``sha256``: a committed ``path`` is refused."""
        if params.url is None or params.sha256 is None:
            return ["name the scores file by params.url and params.sha256 (submitted files are not committed)"]
        return []

    @classmethod
    def submitted_scores(cls, params: PrecomputedParams) -> dict[ScoreKey, float]:
        """The file downloaded into the cache (unless there) and checked against its sha256, then read."""
        return read_scores(params.scores_file())

    def _missing_message(self, origin: ScoreKey) -> str:
        benchmark, version, instance, i, j = origin
        message = f"{self.source} has no score for {benchmark} ({version}) instance {instance} image {i} text {j}"
        versions = sorted(v for (b, v) in self._instances if b == benchmark and v != version)
        if versions:
            message += f"; the file has {benchmark} versions {', '.join(versions)}"
        return message


@hookimpl
def register_models(register: Any) -> None:
    """Register the precomputed-scores model."""
    register(Precomputed)
