"""Winoground-style metrics of 2 images x 2 captions, shared by Winoground and BiVLC.

An instance pairs image ``k`` with caption ``k`` (``k`` = 0, 1); ``scores[i, j]`` is
``s(image_i, caption_j)``. Four two-way comparisons decide everything, each strict ``>`` (a tie
is wrong), as in the Winoground paper's definitions, t2v_metrics and BiVLC's ``evaluate_BiVLC``:

* image 0 picks caption 0: ``s[0,0] > s[0,1]`` (BiVLC ``I_pos2T``)
* image 1 picks caption 1: ``s[1,1] > s[1,0]`` (BiVLC ``I_neg2T``)
* caption 0 picks image 0: ``s[0,0] > s[1,0]`` (BiVLC ``T_pos2I``)
* caption 1 picks image 1: ``s[1,1] > s[0,1]`` (BiVLC ``T_neg2I``)

The text score (BiVLC's I2T) needs both image comparisons, the image score (T2I) both caption
comparisons, the group score all four. A non-finite score raises
:class:`~vlc_harness.errors.ScoreError` (through :func:`vlc_harness.metrics.pick`); it is never scored.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from bench.legacy.metrics import Decision, accuracy_values, mean_credit, micro_value, pick
from bench.legacy.types import MetricValue

TIE_RULE = "wrong"
"""Every comparison is strict ``>``: a tie is wrong (recorded with each value)."""

CHANCE_SINGLE = 0.5
"""Chance of one two-way comparison under random scores."""
CHANCE_TEXT = 0.25
"""Chance of the text (I2T) score: two independent two-way comparisons."""
CHANCE_IMAGE = 0.25
"""Chance of the image (T2I) score."""
CHANCE_GROUP = 1 / 6
"""Chance of the group score: both matched pairs score above both mismatched ones (2 of 4! orders)."""

MATCHED_PAIRS = [[0, 0], [1, 1]]
"""The gold structure of a 2x2 instance (image k matches caption k), as stored in ``Instance.gold``."""


def all_of(decisions: Sequence[Decision]) -> Decision:
    """A conjunction of comparisons: won when every one is won; ``tied`` when it is lost and
    some comparison it needs was a tie (so the tie count says how many losses ties took part in)."""
    won = all(d.won for d in decisions)
    return Decision(won=won, tied=not won and any(d.tied for d in decisions))


@dataclass(frozen=True)
class GroupDecisions:
    """The four two-way comparisons of one 2x2 instance, and the scores built from them."""

    image0: Decision
    """Image 0 prefers caption 0 to caption 1 (BiVLC I_pos2T)."""
    image1: Decision
    """Image 1 prefers caption 1 to caption 0 (BiVLC I_neg2T)."""
    caption0: Decision
    """Caption 0 prefers image 0 to image 1 (BiVLC T_pos2I)."""
    caption1: Decision
    """Caption 1 prefers image 1 to image 0 (BiVLC T_neg2I)."""

    @property
    def text(self) -> Decision:
        """Winoground text score / BiVLC I2T: both images pick their caption."""
        return all_of([self.image0, self.image1])

    @property
    def image(self) -> Decision:
        """Winoground image score / BiVLC T2I: both captions pick their image."""
        return all_of([self.caption0, self.caption1])

    @property
    def group(self) -> Decision:
        """Group score: all four comparisons won."""
        return all_of([self.image0, self.image1, self.caption0, self.caption1])


def group_decisions(scores: np.ndarray) -> GroupDecisions:
    """The four comparisons of a 2x2 score matrix ``scores[image, caption]`` (strict ``>``)."""
    s = np.asarray(scores, dtype=float)
    if s.shape != (2, 2):
        raise ValueError(f"a 2x2 instance needs a 2x2 score matrix, got shape {s.shape}")
    return GroupDecisions(
        image0=pick(s[0, 0], [s[0, 1]]),
        image1=pick(s[1, 1], [s[1, 0]]),
        caption0=pick(s[0, 0], [s[1, 0]]),
        caption1=pick(s[1, 1], [s[0, 1]]),
    )


def group_values(
    metric: str,
    decisions_by_category: Mapping[str, list[Decision]],
    groupings: Mapping[str, Sequence[str]] | None = None,
    extra: Mapping[str, list[Decision]] | None = None,
) -> list[MetricValue]:
    """One metric, micro-averaged: per category, per grouping of categories, and over ``all``.

    ``groupings`` maps a grouping name to the categories it pools (BiVLC's REPLACE/SWAP/ADD);
    ``extra`` maps further category names straight to their decisions (tags that cut across the
    instance categories, e.g. Winoground's). Every value is pooled over instances, strict ``>``.
    """
    values = accuracy_values(metric, dict(decisions_by_category), TIE_RULE)
    names = set(decisions_by_category) | {"all"}
    for name, members in (groupings or {}).items():
        if name in names:
            raise ValueError(f"grouping {name!r} collides with another category")
        names.add(name)
        present = sorted(c for c in members if decisions_by_category.get(c))
        if present:
            pooled = [d for c in present for d in decisions_by_category[c]]
            values.append(_pooled(metric, name, pooled, f"micro: mean over the instances of {', '.join(present)}"))
    for name, decisions in sorted((extra or {}).items()):
        if name in names:
            raise ValueError(f"extra category {name!r} collides with another category")
        names.add(name)
        if decisions:
            values.append(_pooled(metric, name, decisions, "micro: mean over the instances with this tag"))
    values.append(micro_value(metric, dict(decisions_by_category), TIE_RULE))
    return values


def _pooled(metric: str, category: str, decisions: list[Decision], averaging: str) -> MetricValue:
    return MetricValue(
        metric=metric,
        category=category,
        value=mean_credit(decisions, TIE_RULE),
        n=len(decisions),
        ties=int(sum(d.tied for d in decisions)),
        tie_rule=TIE_RULE,
        averaging=averaging,
    )
