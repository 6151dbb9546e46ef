"""Columns in, values and replicates out: the vectorized evaluation every family shares.

A family turns outcome arrays into :class:`Column` objects: one per-instance quantity (a credit,
a score for an AUC) with its tie flags, abstention rule and aggregations. The engine plans each
column's nodes over the categories present, then evaluates them once with every instance
weighted 1 (the reported values) and then for the bootstrap resamples, block by block, as products
of resample counts with the columns (:func:`.bootstrap.resampled_sums`). No per-instance loop runs here.

Populations: a column is reported over every asked instance (``<metric>``, an abstention
counting as its rule says), and when the model may abstain also over the answered instances
(``<metric>_answered``). A column with a ``ties_half`` twin is also reported as
``<metric>_ties_half``: the expected credit when ties are broken at random.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from vlc_harness.metrics.aggregate import Aggregation, Key, Node, Plan, Tags, tags_of
from vlc_harness.metrics.bootstrap import Resampler, resampled_sums
from vlc_harness.types import MetricValue

ABSTENTION_RULES = {
    "wrong": "; over all asked instances, an abstention counts as wrong",
    "counts": "; over all asked instances, an abstention counts against the model",
    "worst": "; over all asked instances, an abstention counts as the worst case",
    "answered": "; over answered instances only (by definition)",
    "keep": "",
}
"""An abstention's contribution and note: ``wrong`` credit 0; ``counts`` credit 1 (brittle, a full
drop); ``worst`` the credit the family set to the worst case (AUC); ``answered`` none; ``keep`` the
column's own value (coverage). No rule lets an abstention beat an answer (a property test checks)."""
TIES_HALF_RULE = "random"
"""Tie rule recorded with ``<metric>_ties_half`` values: ties broken uniformly at random."""


@dataclass(frozen=True)
class Column:
    """One per-instance quantity of a family and how it is reported.

    ``credit[k]`` is instance ``k``'s credit (for an AUC column: its score, with ``labels``).
    Only instances in ``members`` count. ``den`` (default 1 per member) weights an instance in
    its mean, for ratios such as answered questions over asked ones. ``answered`` (default: the
    outcomes' flags) says which instances were answered, for a column whose instance stands for
    several (a group answered only when all of its members are, :mod:`.conjunction`).
    """

    metric: str
    credit: np.ndarray
    aggregations: tuple[Aggregation, ...]
    members: np.ndarray | None = None
    ties: np.ndarray | None = None
    tie_rule: str = "wrong"
    abstention: str = "wrong"
    ties_half: np.ndarray | None = None
    labels: np.ndarray | None = None
    den: np.ndarray | None = None
    answered: np.ndarray | None = None


@dataclass
class _Population:
    column: Column
    suffix: str
    num: np.ndarray
    den: np.ndarray
    ties: np.ndarray
    tie_rule: str
    note: str
    plan: Plan | None = None
    vectors: dict[tuple[str, str], int] = field(default_factory=dict)
    """Vector ids of ('num'|'den'|'ties', tag or '') in the evaluation's matrix."""


@dataclass
class Evaluation:
    """Reported values and, per value, its bootstrap replicates."""

    values: list[MetricValue]
    replicates: dict[Key, np.ndarray]
    samples: int


class _Context:
    """What the engine reads of a cell: category codes, answered flags, ids and instances."""

    def __init__(self, outcomes: Any) -> None:
        self.instances = outcomes.instances
        self.categories: tuple[str, ...] = outcomes.categories
        self.category: np.ndarray = outcomes.category
        answered = getattr(outcomes, "answered", None)
        if answered is None or np.asarray(answered).ndim != 1:
            answered = np.ones(len(outcomes.instances), dtype=bool)
        self.answered = np.asarray(answered, dtype=bool)
        self.n = len(outcomes.instances)
        self.load_order = [np.flatnonzero(self.category == c) for c in range(len(self.categories))]
        self._tags: dict[int, dict[str, np.ndarray]] = {}

    def tag_masks(self, tags: Tags) -> dict[str, np.ndarray]:
        """Per tag, the mask of the instances carrying it (computed once per declaration)."""
        if id(tags) not in self._tags:
            carrying: dict[str, list[int]] = {}  # indices first: one array per tag, not one per instance
            for k, inst in enumerate(self.instances):
                for tag in tags.tags(inst):
                    carrying.setdefault(tag, []).append(k)
            self._tags[id(tags)] = {t: np.bincount(ks, minlength=self.n) > 0 for t, ks in carrying.items()}
        return self._tags[id(tags)]


def _populations(column: Column, answered: np.ndarray, coverage: bool) -> list[_Population]:
    n = len(answered)
    members = np.ones(n, dtype=bool) if column.members is None else np.asarray(column.members, dtype=bool)
    den = np.ones(n) if column.den is None else np.asarray(column.den, dtype=np.float64)
    ties = np.zeros(n, dtype=bool) if column.ties is None else np.asarray(column.ties, dtype=bool)
    credit = np.asarray(column.credit, dtype=np.float64)
    rule = column.abstention
    if rule not in ABSTENTION_RULES:
        raise ValueError(f"{column.metric}: unknown abstention rule {rule!r}")

    def asked(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if rule in ("answered",):
            mask = members & answered
            return np.where(mask, values, 0.0), np.where(mask, den, 0.0)
        if rule in ("keep", "worst"):
            return np.where(members, values, 0.0), np.where(members, den, 0.0)
        fill = 1.0 if rule == "counts" else 0.0
        return np.where(members, np.where(answered, values, fill), 0.0), np.where(members, den, 0.0)

    abstained = bool((members & ~answered).any())
    note = ABSTENTION_RULES[rule] if coverage or (abstained and rule == "answered") else ""
    num, weights = asked(credit)
    # an abstained instance has no scores to tie
    counted_ties = ties & (weights > 0) & (answered | (rule == "keep"))
    out = [_Population(column, "", num, weights, counted_ties, column.tie_rule, note)]
    if column.ties_half is not None:
        half, _ = asked(np.asarray(column.ties_half, dtype=np.float64))
        out.append(_Population(column, "_ties_half", half, weights, counted_ties, TIES_HALF_RULE, note))
    if coverage and rule != "keep":
        mask = members & answered
        out.append(
            _Population(
                column,
                "_answered",
                np.where(mask, credit, 0.0),
                np.where(mask, den, 0.0),
                ties & mask,
                column.tie_rule,
                "; over answered instances only",
            )
        )
    return out


class _Auc:
    """A ROC AUC leaf: the population's instances of one category, sorted by score."""

    def __init__(self, scores: np.ndarray, labels: np.ndarray, positions: np.ndarray) -> None:
        self.positions = positions  # indices into the category's members (sorted-id order)
        s = scores[positions]
        order = np.argsort(s, kind="stable")
        self.positions = positions[order]
        sorted_scores = s[order]
        self.starts = np.flatnonzero(np.r_[True, sorted_scores[1:] != sorted_scores[:-1]])
        y = labels[self.positions]
        self.pos = y.astype(np.float64)
        self.neg = (~y).astype(np.float64)

    def values(self, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """AUC per row of ``weights`` (``[rows, category members]``) and the weighted tied pairs."""
        w = weights[:, self.positions]
        pos = np.add.reduceat(w * self.pos, self.starts, axis=1)
        neg = np.add.reduceat(w * self.neg, self.starts, axis=1)
        below = np.cumsum(neg, axis=1) - neg
        twice_u = np.sum(pos * (2 * below + neg), axis=1)
        n_pos, n_neg = pos.sum(axis=1), neg.sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            value = twice_u / (2 * n_pos * n_neg)
        return value, np.sum(pos * neg, axis=1)


class Engine:
    """Plans and evaluates columns over one cell's outcome arrays."""

    def __init__(self, outcomes: Any, columns: Sequence[Column], coverage: bool = False) -> None:
        self.ctx = _Context(outcomes)
        self.pops: list[_Population] = []
        self._vectors: list[np.ndarray] = []
        self._auc: dict[tuple[int, str], _Auc] = {}
        self._members_sorted: list[np.ndarray] | None = None
        for column in columns:
            answered = self.ctx.answered if column.answered is None else np.asarray(column.answered, dtype=bool)
            for pop in _populations(column, answered, coverage):
                self._plan(pop)
                self.pops.append(pop)
        self.matrix = np.stack(self._vectors, axis=1) if self._vectors else np.zeros((self.ctx.n, 0))

    # -- planning ------------------------------------------------------------------------------
    def _vector(self, values: np.ndarray) -> int:
        self._vectors.append(np.asarray(values, dtype=np.float64))
        return len(self._vectors) - 1

    def _plan(self, pop: _Population) -> None:
        ctx, column = self.ctx, pop.column
        counted = pop.den > 0
        counts = np.bincount(ctx.category[counted], minlength=len(ctx.categories))
        present = {ctx.categories[c]: int(counts[c]) for c in range(len(ctx.categories)) if counts[c]}
        if column.labels is not None:
            labels = np.asarray(column.labels, dtype=bool)
            both = {}
            for name, count in present.items():
                in_cat = counted & (ctx.category == ctx.categories.index(name))
                if labels[in_cat].any() and (~labels[in_cat]).any():
                    both[name] = count
            present = both
        plan = Plan(column.metric + pop.suffix, present)
        masks: dict[str, np.ndarray] = {}
        for tags in tags_of(column.aggregations):
            own = ctx.tag_masks(tags)
            clash = sorted(set(own) & set(masks))
            if clash:
                raise ValueError(f"{column.metric}: tag {clash[0]!r} comes from two tag aggregations")
            masks.update(own)
            plan.tag_groups[id(tags)] = sorted(t for t, m in own.items() if (m & counted).any())
        plan.tags = {t: int((m & counted).sum()) for t, m in masks.items() if (m & counted).any()}
        for aggregation in column.aggregations:
            aggregation.plan(plan, column.metric, pop.suffix)
        pop.plan = plan
        pop.vectors[("num", "")] = self._vector(pop.num)
        pop.vectors[("den", "")] = self._vector(pop.den)
        pop.vectors[("ties", "")] = self._vector(pop.ties)
        for tag in plan.tags:
            mask = masks[tag]
            for part, vec in (("num", pop.num), ("den", pop.den), ("ties", pop.ties)):
                pop.vectors[(part, tag)] = self._vector(np.where(mask, vec, 0.0))

    # -- evaluation ----------------------------------------------------------------------------
    def point(self) -> list[MetricValue]:
        """Every reported value, each instance weighted once (sums in instance order)."""
        sums = np.zeros((1, len(self.ctx.categories), len(self._vectors)))
        for pop in self.pops:
            for (_part, tag), vector in pop.vectors.items():
                inside = pop.den > 0 if not tag else self._vectors[pop.vectors[("den", tag)]] > 0
                for c, idx in enumerate(self.ctx.load_order):
                    # summed over the population's instances only, in instance order
                    sums[0, c, vector] = np.add.reduce(self._vectors[vector][idx[inside[idx]]])
        values, counts = self._nodes(sums, None)
        out = []
        for pop in self.pops:
            assert pop.plan is not None
            for node in pop.plan.nodes.values():
                if node.emit and node.key in values:
                    n, ties = counts[node.key]
                    value = float(values[node.key][0])
                    averaging = node.averaging + pop.note
                    out.append(MetricValue(node.metric, node.category, value, n, ties, pop.tie_rule, averaging))
        return out

    def replicates(self, samples: int) -> dict[Key, np.ndarray]:
        """Every reported value on ``samples`` stratified resamples (see :mod:`.bootstrap`)."""
        ctx = self.ctx
        resampler = Resampler([inst.id for inst in ctx.instances], ctx.category, len(ctx.categories), samples)
        self._members_sorted = resampler.members
        self._auc = {}  # the point values used instance order; resamples index members sorted by id
        by_category = [self.matrix[m] for m in resampler.members]
        out: dict[Key, list[np.ndarray]] = {}
        for counts in resampler.blocks(ctx.categories):
            sums = np.stack([resampled_sums(c, v) for c, v in zip(counts, by_category)], axis=1)
            values, _ = self._nodes(sums, counts)
            for key, v in values.items():
                out.setdefault(key, []).append(v)
        emitted = {n.key for p in self.pops if p.plan for n in p.plan.nodes.values() if n.emit}
        return {k: np.concatenate(v) for k, v in out.items() if k in emitted}

    def _nodes(
        self, sums: np.ndarray, counts: list[np.ndarray] | None
    ) -> tuple[dict[Key, np.ndarray], dict[Key, tuple[int, int]]]:
        """Values of every node from per-category sums ``[rows, categories, vectors]``."""
        index = {c: k for k, c in enumerate(self.ctx.categories)}
        values: dict[Key, np.ndarray] = {}
        sizes: dict[Key, tuple[int, int]] = {}
        for p_index, pop in enumerate(self.pops):
            assert pop.plan is not None
            for node in pop.plan.nodes.values():
                if node.op == "pool" and pop.column.labels is not None:
                    value, n, ties = self._auc_leaf(p_index, pop, node, counts)
                elif node.op == "pool":
                    if node.members[:1] == ("#tag",):
                        tag = node.members[1]
                        cats = list(range(len(self.ctx.categories)))
                    else:
                        tag = ""
                        cats = [index[c] for c in node.members]
                    num = sums[:, cats, pop.vectors[("num", tag)]].sum(axis=1)
                    den = sums[:, cats, pop.vectors[("den", tag)]].sum(axis=1)
                    with np.errstate(invalid="ignore", divide="ignore"):
                        value = num / den
                    n = int(round(float(den[0]))) if counts is None else 0
                    ties = int(round(float(sums[0, cats, pop.vectors[("ties", tag)]].sum()))) if counts is None else 0
                else:
                    children = [values[k] for k in node.children]
                    stacked = np.stack(children)
                    value = stacked.mean(axis=0) if node.op == "mean" else stacked.std(axis=0, ddof=1)
                    n = sum(sizes[k][0] for k in node.children) if counts is None else 0
                    ties = sum(sizes[k][1] for k in node.children) if counts is None else 0
                values[node.key] = value
                sizes[node.key] = (n, ties)
        return values, sizes

    def _auc_leaf(
        self, p_index: int, pop: _Population, node: Node, counts: list[np.ndarray] | None
    ) -> tuple[np.ndarray, int, int]:
        category = node.members[0]
        c = self.ctx.categories.index(category)
        key = (p_index, category)
        if key not in self._auc:
            members = self._members_sorted[c] if self._members_sorted is not None else self.ctx.load_order[c]
            inside = np.flatnonzero(pop.den[members] > 0)
            scores = pop.num[members]
            labels = np.asarray(pop.column.labels, dtype=bool)[members]
            self._auc[key] = _Auc(scores, labels, inside)
        leaf = self._auc[key]
        if counts is None:
            weights = np.ones((1, len(self.ctx.load_order[c])))
            value, tied = leaf.values(weights)
            return value, len(leaf.positions), int(round(float(tied[0])))
        value, _ = leaf.values(counts[c])
        return value, 0, 0


def evaluate(outcomes: Any, columns: Sequence[Column], samples: int = 0, coverage: bool = False) -> Evaluation:
    """Point values of every column's nodes and, with ``samples``, their bootstrap replicates."""
    engine = Engine(outcomes, columns, coverage)
    values = engine.point()
    replicates = engine.replicates(samples) if samples and len(outcomes.instances) else {}
    return Evaluation(values, replicates, samples)
