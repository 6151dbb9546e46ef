"""How per-instance credits become reported values: the aggregations a family may be given.

An aggregation is declared once, in a benchmark's metric declaration, and planned per cell into
:class:`Node` objects over the categories present. Every aggregation the built-ins need:

* :class:`PerCategory`: one value per instance category (the mean over its instances);
* :class:`Micro`: pooled over instances, overall or per named group of categories;
* :class:`Macro`: the unweighted mean of other values: over categories (optionally filtered by
  ``exclude`` and ``min_n``), per named group, or over an earlier aggregate's values (``of``);
  nested groups (``{group: {subgroup: [categories]}}``) give a mean of means;
* :class:`Std`: the sample standard deviation of per-category values (ARO Order's seeds);
* :class:`Tags`: pooled over the instances carrying a tag, for tags that cut across categories.

A string names the simple ones: ``"per-category"``, ``"micro"``, ``"macro"``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from vlc_harness.wording import plural, singular_of

Key = tuple[str, str]
"""(metric id, category) of a value."""


@dataclass(frozen=True)
class Node:
    """One value to compute: a pool over instances, or a mean or std of other nodes.

    ``op`` is ``pool`` (sum of a column's credit over the members' instances / their count),
    ``auc`` (a ROC AUC over the members' instances), ``mean`` or ``std`` (over ``children``).
    ``members`` are instance categories, or for a tag ``("#tag", name)``. Hidden nodes
    (``emit`` False) are intermediate means that are not reported.
    """

    metric: str
    category: str
    op: str
    averaging: str
    members: tuple[str, ...] = ()
    children: tuple[Key, ...] = ()
    emit: bool = True

    @property
    def key(self) -> Key:
        """(metric id, category)."""
        return (self.metric, self.category)


@dataclass
class Plan:
    """The nodes of one column, in evaluation order, with the categories present."""

    metric: str
    present: dict[str, int]
    """Instance category -> number of instances in the column's population."""
    tags: dict[str, int] = field(default_factory=dict)
    """Tag -> number of instances carrying it."""
    tag_groups: dict[int, list[str]] = field(default_factory=dict)
    """Per :class:`Tags` aggregation (by ``id``), the tags of it that are present."""
    nodes: dict[Key, Node] = field(default_factory=dict)

    def add(self, node: Node) -> None:
        """Append a node; the same (metric, category) twice is a declaration error."""
        if node.key in self.nodes:
            raise ValueError(f"two aggregations both produce {node.metric} for category {node.category!r}")
        self.nodes[node.key] = node

    def of(self, metric: str) -> dict[str, Node]:
        """The nodes of one metric id so far, by category."""
        return {n.category: n for n in self.nodes.values() if n.metric == metric}


class Aggregation:
    """Base of the aggregation declarations."""

    id: str | None = None
    """Metric id of the values it produces; ``None``: the family's own metric id."""
    description: str = ""

    def metric_id(self, base: str, suffix: str = "") -> str:
        """The id this aggregation reports under for a column with metric id ``base``."""
        name = (self.id or base).replace("{metric}", base)
        return name + suffix

    def plan(self, plan: Plan, base: str, suffix: str) -> None:
        """Add this aggregation's nodes for a column with metric id ``base``."""
        raise NotImplementedError

    def averaging(self) -> str:
        """How the values are averaged, for the metric spec."""
        raise NotImplementedError


@dataclass(frozen=True)
class PerCategory(Aggregation):
    """One value per instance category present: the mean over the category's instances."""

    unit: str = "category"
    """What a category is called in the averaging text (subset, relation, source, ...)."""
    description: str = ""
    id: str | None = None
    text: str = ""
    """The averaging text, when it is not a mean over the category's instances (an AUC)."""

    def plan(self, plan: Plan, base: str, suffix: str) -> None:
        metric = self.metric_id(base, suffix)
        for category in sorted(plan.present):
            plan.add(Node(metric, category, "pool", self.averaging(), members=(category,)))

    def averaging(self) -> str:
        return self.text or f"mean over the {self.unit}'s instances"


@dataclass(frozen=True)
class Micro(Aggregation):
    """Pooled over instances: all of them (category ``all``), or per group of categories."""

    id: str | None = None
    description: str = ""
    groups: Mapping[str, Sequence[str]] | None = None
    category: str = "all"

    def plan(self, plan: Plan, base: str, suffix: str) -> None:
        metric = self.metric_id(base, suffix)
        if self.groups is None:
            if plan.present:
                plan.add(Node(metric, self.category, "pool", "micro: mean over all instances", tuple(plan.present)))
            return
        for name, members in self.groups.items():
            present = tuple(sorted(c for c in members if c in plan.present))
            if present:
                what = f"micro: mean over the instances of {', '.join(present)}"
                plan.add(Node(metric, name, "pool", what, members=present))

    def averaging(self) -> str:
        if self.groups is None:
            return "micro: mean over all instances"
        return f"micro: mean over the instances of each of {', '.join(self.groups)}"


@dataclass(frozen=True)
class Macro(Aggregation):
    """The unweighted mean of other values.

    Over the instance categories present (``over`` None), optionally without ``exclude`` and
    those with fewer than ``min_n`` instances; over named categories (``over``) of the values
    of ``of`` (default: this column's own per-category values, and its earlier aggregates); or
    per group (``groups``: ``{name: [members]}``, or ``{name: {subgroup: [members]}}`` for a
    mean over subgroups of each subgroup's mean). ``what`` names the members in the averaging
    text; ``name_members`` lists them there too.
    """

    id: str | None = None
    description: str = ""
    category: str = "all"
    over: Sequence[str] | None = None
    groups: Mapping[str, Sequence[str] | Mapping[str, Sequence[str]]] | None = None
    of: str | None = None
    exclude: frozenset[str] = frozenset()
    min_n: int = 0
    what: str = "categories"
    name_members: bool = False
    one: str = ""
    """The singular of ``what`` where it is a phrase (``attribute pair with at least 25 cases``); a
    single regular noun (``subsets``, ``categories``) needs none."""

    def __post_init__(self) -> None:
        if not self.one:  # a phrase without its singular fails here, at declaration
            try:
                singular_of(self.what)
            except ValueError:
                raise ValueError(f"Macro(what={self.what!r}): a phrase; declare its singular as one=...") from None

    def plan(self, plan: Plan, base: str, suffix: str) -> None:
        metric = self.metric_id(base, suffix)
        source = (self.of.replace("{metric}", base) + suffix) if self.of else base + suffix
        available = plan.of(source)
        if self.groups is None:
            if self.over is None and self.of is None:
                names = [c for c in sorted(plan.present) if self._kept(c, plan.present[c])]
            elif self.over is None:
                names = [c for c in available if c not in self.exclude]
            else:
                names = [c for c in self.over if c in available and c not in self.exclude]
            self._add(plan, metric, self.category, source, names, self.what)
            return
        for name, members in self.groups.items():
            if isinstance(members, Mapping):
                hidden = f"{metric}/{name}"
                inner = []
                for sub, sub_members in members.items():
                    present = [c for c in sub_members if c in available and self._kept(c, plan.present.get(c, 0))]
                    if present:
                        plan.add(self._node(hidden, sub, source, present, "members", emit=False))
                        inner.append(sub)
                if inner:
                    plan.add(self._node(metric, name, hidden, inner, self.what))
            else:
                present = [c for c in members if c in available and self._kept(c, plan.present.get(c, 0))]
                self._add(plan, metric, name, source, present, self.what)

    def _kept(self, category: str, n: int) -> bool:
        return category not in self.exclude and n >= self.min_n

    def _add(self, plan: Plan, metric: str, category: str, source: str, names: list[str], what: str) -> None:
        if names:
            plan.add(self._node(metric, category, source, names, what))

    def _node(self, metric: str, category: str, source: str, names: list[str], what: str, emit: bool = True) -> Node:
        one = self.one if what == self.what and self.one else singular_of(what)
        text = f"macro: unweighted mean over {plural(len(names), one, what)}"
        if self.name_members:
            text += f": {', '.join(names)}"
        return Node(metric, category, "mean", text, children=tuple((source, c) for c in names), emit=emit)

    def averaging(self) -> str:
        return f"macro: unweighted mean over {self.what}"


@dataclass(frozen=True)
class Std(Aggregation):
    """Sample standard deviation (ddof=1) of the per-category values; needs two categories."""

    id: str | None = None
    description: str = ""
    category: str = "all"
    what: str = "categories"

    def plan(self, plan: Plan, base: str, suffix: str) -> None:
        source = plan.of(base + suffix)
        names = [c for c in sorted(plan.present) if c in source]
        if len(names) > 1:
            children = tuple((base + suffix, c) for c in names)
            plan.add(Node(self.metric_id(base, suffix), self.category, "std", self.averaging(), children=children))

    def averaging(self) -> str:
        return f"sample std over {self.what}"


@dataclass(frozen=True)
class Tags(Aggregation):
    """Pooled over the instances carrying each tag; ``tags(instance)`` lists an instance's tags."""

    tags: Callable[[Any], Sequence[str]]
    id: str | None = None
    description: str = ""

    def plan(self, plan: Plan, base: str, suffix: str) -> None:
        metric = self.metric_id(base, suffix)
        for tag in sorted(plan.tag_groups.get(id(self), [])):
            plan.add(Node(metric, tag, "pool", self.tag_averaging(tag), members=("#tag", tag)))

    def tag_averaging(self, tag: str) -> str:
        """The averaging text of one tag's value."""
        return self.averaging()

    def averaging(self) -> str:
        return "micro: mean over the instances with this tag"


SAME_WORDS, DIFFERENT_WORDS, IDENTICAL_TEXT = "same-words", "different-words", "identical-text"
AUDIT_TAGS = (IDENTICAL_TEXT, SAME_WORDS, DIFFERENT_WORDS)
"""The word-order audit's tags (see :mod:`vlc_harness.metrics.word_order`)."""
WORD_ORDER_TAGS = {
    SAME_WORDS: "hold the same words in a different order (same-words)",
    IDENTICAL_TEXT: "are the very same string (identical-text: a duplicate, not a word-order case)",
    DIFFERENT_WORDS: "differ in their words (different-words)",
}
"""Each audit tag in words, for the averaging texts."""


@dataclass(frozen=True)
class WordOrder(Tags):
    """The word-order audit: pooled over the instances whose compared captions hold the same
    words in another string (``same-words``), over those whose captions are the very same string
    (``identical-text``, duplicates: a data-quality count, not word order) and over the rest
    (``different-words``).

    ``tags(instance)`` returns one of the three (see :mod:`vlc_harness.metrics.word_order`).
    Reported only when some instance has the same words or identical text: an order-insensitive
    text encoder is at chance or tied on ``same-words`` by construction, so it measures word-order
    sensitivity directly; on ``identical-text`` every scoring model ties.
    """

    def plan(self, plan: Plan, base: str, suffix: str) -> None:
        if {SAME_WORDS, IDENTICAL_TEXT} & set(plan.tag_groups.get(id(self), [])):
            super().plan(plan, base, suffix)

    def tag_averaging(self, tag: str) -> str:
        """What one audit value pools: the instances of that tag, said in words."""
        return f"micro: mean over the instances whose compared captions {WORD_ORDER_TAGS[tag]}"

    def averaging(self) -> str:
        return "micro: mean over the instances of one word-order tag: " + "; ".join(
            f"{tag}, captions that {WORD_ORDER_TAGS[tag]}" for tag in AUDIT_TAGS
        )


NAMED: dict[str, Callable[[], Aggregation]] = {
    "per-category": PerCategory,
    "micro": Micro,
    "macro": Macro,
}
"""Aggregations a declaration may name by a string."""


def resolve(items: Sequence[Aggregation | str], owner: str) -> tuple[Aggregation, ...]:
    """Aggregation objects from a declaration; an unknown name raises ``ValueError`` naming it."""
    out: list[Aggregation] = []
    for item in items:
        if isinstance(item, str):
            if item not in NAMED:
                raise ValueError(f"{owner}: unknown aggregation {item!r} (known: {', '.join(NAMED)})")
            out.append(NAMED[item]())
        elif isinstance(item, Aggregation):
            out.append(item)
        else:
            raise ValueError(f"{owner}: aggregation {item!r} is neither a name nor an Aggregation")
    return tuple(out)


def tags_of(aggregations: Sequence[Aggregation]) -> list[Tags]:
    """The :class:`Tags` aggregations among ``aggregations``."""
    return [a for a in aggregations if isinstance(a, Tags)]
