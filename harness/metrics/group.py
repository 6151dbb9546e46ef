"""Text, image and group scores of 2 images x 2 captions, with BiVLC's four finer scores.

Winoground, BiVLC and the shapes benchmark. Image ``k`` matches caption ``k``; ``s[i, j]`` is
``s(image_i, caption_j)``. Four comparisons decide everything (each under the declared tie rule;
strict ``>`` by default, as the Winoground paper, t2v_metrics and BiVLC's ``evaluate_BiVLC`` do):

* ``image0``: image 0 picks caption 0, ``s[0,0] > s[0,1]`` (BiVLC I_pos2T)
* ``image1``: image 1 picks caption 1, ``s[1,1] > s[1,0]`` (BiVLC I_neg2T)
* ``caption0``: caption 0 picks image 0, ``s[0,0] > s[1,0]`` (BiVLC T_pos2I)
* ``caption1``: caption 1 picks image 1, ``s[1,1] > s[0,1]`` (BiVLC T_neg2I)

``text`` (Winoground's text score, BiVLC's I2T) needs both image comparisons, ``image`` (T2I)
both caption comparisons, ``group`` all four. An instance counts as a tie for a score it loses
when one of the comparisons that score needs is between equal scores.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from vlc_harness.metrics.aggregate import Aggregation, WordOrder
from vlc_harness.metrics.engine import Column
from vlc_harness.metrics.family import Family, Reported
from vlc_harness.metrics.outcomes import Outcomes
from vlc_harness.metrics.ties import Beats, beats, expected_under_random_ties
from vlc_harness.metrics.word_order import caption_pair_tag

CHANCE_SINGLE = 0.5
"""Chance of one two-way comparison under random scores."""
CHANCE_TEXT = 0.25
"""Chance of the text (I2T) score: two independent two-way comparisons."""
CHANCE_IMAGE = 0.25
"""Chance of the image (T2I) score."""
CHANCE_GROUP = 1 / 6
"""Chance of the group score: both matched pairs score above both mismatched ones (4 of 4! orders)."""
MATCHED_PAIRS = [[0, 0], [1, 1]]
"""The gold structure of a 2x2 instance (image k matches caption k), as stored in ``Instance.gold``."""

ENTRIES = ((0, 0), (0, 1), (1, 0), (1, 1))
"""Entry columns: s00, s01, s10, s11."""
COMPARISONS = {
    # (gold entry, competitor entry); entry order is candidate order, so under first-index the
    # entry with the lower column wins a tie (image 0 / caption 0 win theirs, image 1 / caption 1 lose)
    "image0": (0, 1),
    "image1": (3, 2),
    "caption0": (0, 2),
    "caption1": (3, 1),
}
SCORES = {
    "text": ("image0", "image1"),
    "image": ("caption0", "caption1"),
    "group": ("image0", "image1", "caption0", "caption1"),
    "image0": ("image0",),
    "image1": ("image1",),
    "caption0": ("caption0",),
    "caption1": ("caption1",),
}
DEFAULTS = {
    "text": ("text score: both images prefer their own caption", "i2t", CHANCE_TEXT),
    "image": ("image score: both captions prefer their own image", "t2i", CHANCE_IMAGE),
    "group": ("group score: text and image scores both right", None, CHANCE_GROUP),
    "image0": ("image 0 prefers caption 0", "i2t", CHANCE_SINGLE),
    "image1": ("image 1 prefers caption 1", "i2t", CHANCE_SINGLE),
    "caption0": ("caption 0 prefers image 0", "t2i", CHANCE_SINGLE),
    "caption1": ("caption 1 prefers image 1", "t2i", CHANCE_SINGLE),
}


class TextImageGroup(Family):
    """Text, image and group scores (and the four comparisons), one metric id each.

    ``ids`` maps the scores to report (``text``, ``image``, ``group``, ``image0``, ``image1``,
    ``caption0``, ``caption1``) to metric ids; ``descriptions`` overrides their texts.
    ``word_order`` adds the word-order audit (each value also over the instances whose two
    captions hold the same words in another string, are the same string, or neither).
    """

    name = "text_image_group"
    version = "2"  # 2: the word-order audit reports identical-text apart from same-words
    tie_rules = ("wrong", "right", "first-index")

    def __init__(
        self,
        ids: Mapping[str, str],
        aggregate: Sequence[Aggregation | str] = ("per-category", "micro"),
        *,
        descriptions: Mapping[str, str] | None = None,
        tie_rule: str | None = None,
        categories: Sequence[str] | None = None,
        word_order: bool = True,
    ) -> None:
        owner = f"{self.name} {', '.join(ids.values())}"
        if word_order:  # the word-order audit (see vlc_harness.metrics.word_order)
            aggregate = (*aggregate, WordOrder(caption_pair_tag))
        unknown = sorted(set(ids) - set(SCORES))
        if unknown:
            raise ValueError(f"{owner}: unknown score(s) {', '.join(unknown)} (known: {', '.join(SCORES)})")
        super().__init__(aggregate, tie_rule, categories, owner)
        self.ids = dict(ids)
        self.descriptions = dict(descriptions or {})

    def reported(self) -> list[Reported]:
        out = []
        for score, metric in self.ids.items():
            text, direction, chance = DEFAULTS[score]
            out.append(Reported(metric, self.descriptions.get(score, text), direction, chance))
        return out

    def columns(self, outcomes: Outcomes) -> list[Column]:
        entries = outcomes.entries(ENTRIES)
        members = self.members(outcomes)
        if members is not None:
            entries = np.where(members[:, None], entries, np.nan)
        compare = beats(entries, self.tie_rule)
        strict = beats(entries, "wrong")
        equal = {name: entries[:, w] == entries[:, lo] for name, (w, lo) in COMPARISONS.items()}
        wanted = list(self.ids)

        def verdicts(b: Beats) -> list[np.ndarray]:
            single = {name: b(w, lo) for name, (w, lo) in COMPARISONS.items()}
            return [np.logical_and.reduce([single[c] for c in SCORES[s]]) for s in wanted]

        credits = verdicts(compare)
        strict_won = verdicts(strict)
        halves = expected_under_random_ties(entries, verdicts)
        out = []
        for score, credit, won, half in zip(wanted, credits, strict_won, halves):
            tied = ~won & np.logical_or.reduce([equal[c] for c in SCORES[score]])
            out.append(
                Column(
                    self.ids[score],
                    credit.astype(np.float64),
                    self.aggregations,
                    members=members,
                    ties=tied,
                    tie_rule=self.tie_rule,
                    ties_half=half,
                )
            )
        return out
