"""A metric family: for image 0, the gold caption is among the k best-scored captions of its instance."""

import numpy as np

from vlc_harness import Column, Family, FamilyExample, ImageSource, Instance, Reported, hookimpl


class TextRecallAtK(Family):
    """Recall@k over an instance's captions: a caption tied with the gold ranks ahead of it (ties are wrong)."""

    name = "text_recall_at_k"

    def __init__(self, id, description, k=2, aggregate=("per-category", "micro"), *, categories=None):
        super().__init__(aggregate, None, categories, f"{self.name} {id!r}")
        self.id, self.description, self.k = id, description, k

    def reported(self):
        return [Reported(self.id, self.description, direction="i2t")]

    def columns(self, outcomes):
        row = outcomes.scores[:, 0, :]  # s(image 0, text j); NaN past an instance's texts
        gold = row[np.arange(len(outcomes)), np.asarray(outcomes.gold("positive", 0))][:, None]
        above = np.sum(row > gold, axis=1)  # NaN compares False
        tied = np.maximum(np.sum(row == gold, axis=1) - 1, 0)  # other captions with the gold's score
        credit = (above + tied < self.k).astype(float)
        half = np.clip(self.k - above, 0, tied + 1) / (tied + 1)  # the gold's place among the tied, at random
        ties = (above < self.k) & (above + tied >= self.k)  # a tie that decides the credit
        members = self.members(outcomes)
        return [Column(self.id, credit, self.aggregations, members, ties=ties, tie_rule="wrong", ties_half=half)]

    @classmethod
    def conformance_example(cls, tmp_path):
        def make(k, rng):
            texts = tuple(f"caption {j}" for j in range(4))
            return Instance(f"c{k % 2}/{k}", f"c{k % 2}", (ImageSource(tmp_path / f"{k}.png"),), texts, {"positive": 0})

        return FamilyExample((cls("r1", "recall@1", k=1), cls("r2", "recall@2")), make)


@hookimpl
def register_metric_families(register):
    register(TextRecallAtK)
