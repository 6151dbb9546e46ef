"""Submitted scores: a lab's per-instance scores, named by url and sha256 (``meta.submitted: true``).

A model type that replays such scores implements :class:`ReplaysScores` (re-exported by
:mod:`vlc_harness.models`; the built-in ``precomputed`` does). The PR check
(``vlc-harness ci pr-check submitted``, docs/pr_check.md) finds an entry's class through the plugin
manager and asks it, so the core never imports the type: :func:`check_submitted` says what is wrong
with an entry (the type's own answer plus the ``meta`` every submitted entry must give), and
:func:`missing_scores` which needed pairs of a benchmark the scores lack.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

ScoreKey = tuple[str, str, str, int, int]
"""(benchmark, data version, instance id, image index, text index): one needed pair's score."""
SUBMITTED_META = ("display_name", "source", "license")
"""``meta`` keys a submitted entry must give, besides ``homepage`` or ``paper``."""


class ReplaysScores:
    """Mixin of a model type that replays scores computed elsewhere, as a lab submits them.

    Both methods take the entry's built params and touch no model instance: the PR check calls
    them on the class it finds for the entry's type.
    """

    @classmethod
    def submission_problems(cls, params: Any) -> list[str]:
        """What is wrong with ``params`` as a submission's (empty: nothing), e.g. a committed file."""
        raise NotImplementedError

    @classmethod
    def submitted_scores(cls, params: Any) -> Mapping[ScoreKey, float]:
        """Every score the file ``params`` name holds, by :data:`ScoreKey`: fetched if need be and
        verified; a file that cannot be had or read raises."""
        raise NotImplementedError


def check_submitted(entry: Any, cls: type) -> list[str]:
    """What is wrong with a ``meta.submitted: true`` registry entry (empty: nothing).

    Its type must replay scores (:class:`ReplaysScores`) and accept its params as a submission's
    (a ``precomputed`` file named by ``url`` and ``sha256``: submitted files are never committed),
    and its ``meta`` must say who made the scores and under what terms.
    """
    problems = []
    if not (isinstance(cls, type) and issubclass(cls, ReplaysScores)):
        problems.append(f"type {entry.type} does not replay submitted scores (use type: precomputed)")
    else:
        problems += cls.submission_problems(entry.params)
    meta = entry.meta or {}
    for key in SUBMITTED_META:
        if not meta.get(key):
            problems.append(f"meta.{key} is required for submitted scores")
    if not (meta.get("homepage") or meta.get("paper")):
        problems.append("meta.homepage or meta.paper is required for submitted scores")
    return problems


def missing_scores(
    scores: Mapping[ScoreKey, float], benchmark_id: str, data_version: str, instances: Iterable[Any]
) -> list[ScoreKey]:
    """The (benchmark, version, instance, i, j) keys the benchmark's instances need that ``scores`` lacks."""
    return [
        key
        for inst in instances
        for i, j in inst.needed_pairs()
        if (key := (benchmark_id, data_version, inst.id, i, j)) not in scores
    ]
