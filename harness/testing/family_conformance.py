"""Conformance checks every registered metric family must pass (``register_metric_families``).

Exported by :mod:`vlc_harness.testing.conformance`, so the one-line test module a plugin package
keeps runs them too, once per family type under test (the ``vlc_family_type`` parameter). A family
is checked on its conformance example (:class:`~vlc_harness.metrics.family.FamilyExample`, from a
testing plugin's ``conformance_example`` hook or the class's own): its declarations state valid
specs, the same outcome set gives the same columns and values twice, every value has a spec, and
abstaining never beats answering (:mod:`vlc_harness.testing.abstention`).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import numpy as np

from vlc_harness.metrics.cell import columns_for, specs_of
from vlc_harness.metrics.engine import TIES_HALF_RULE, Column, evaluate
from vlc_harness.metrics.family import Family, FamilyExample
from vlc_harness.metrics.outcomes import ChoiceOutcomes
from vlc_harness.metrics.pairwise import CHOICE_TIE_RULE
from vlc_harness.metrics.ties import TIE_RULES
from vlc_harness.plugins import get_plugins
from vlc_harness.testing.abstention import (
    ORDER_SUFFIX,
    SIZE,
    Declared,
    decline,
    random_scores,
    random_text_scores,
    score_outcomes,
    violations,
)
from vlc_harness.testing.examples import family_examples

SPEC_TIE_RULES = (*TIE_RULES, "half", TIES_HALF_RULE, "n/a", CHOICE_TIE_RULE)
"""Tie rules a metric spec may state: the comparison rules, Mann-Whitney half, random tie-breaking
(``<metric>_ties_half``), ``n/a`` (no comparison: mean scores, data properties) and answers."""
FAMILY_NAME = re.compile(r"[a-z][a-z0-9_]*")
SAMPLES = 20
"""Bootstrap resamples of the determinism check (the replicates must repeat too)."""
__all__ = ["test_family_abstention", "test_family_example", "test_family_metadata"]


def _family_cls(name: str) -> type[Family]:
    return get_plugins().families.get(name).cls


def _examples(cls: type[Family], tmp_path: Path) -> list[FamilyExample]:
    examples = family_examples(cls, tmp_path)
    assert examples, (
        f"{cls.__qualname__} offers no conformance example: return a FamilyExample from its "
        "conformance_example classmethod or a testing plugin's conformance_example hook"
    )
    for example in examples:
        assert example.families, "an example declares no family"
        wrong = [f for f in example.families if not isinstance(f, cls)]
        assert not wrong, f"{cls.__qualname__}'s example declares other families: {wrong}"
    return examples


def test_family_metadata(vlc_family_type: str) -> None:
    """Docstring, a name as the metrics version spells it, a version, known tie rules, and its own
    ``reported`` and ``columns``."""
    cls = _family_cls(vlc_family_type)
    assert (cls.__doc__ or "").strip(), f"{cls.__qualname__} needs a docstring"
    assert FAMILY_NAME.fullmatch(cls.name), f"family name {cls.name!r}: lower-case letters, digits and _"
    assert isinstance(cls.version, str) and cls.version, "version: a non-empty string, bumped when results change"
    assert cls.tie_rules and set(cls.tie_rules) <= set(SPEC_TIE_RULES), (
        f"tie rules {cls.tie_rules} (known: {SPEC_TIE_RULES})"
    )
    assert cls.reported is not Family.reported and cls.columns is not Family.columns, "implement reported and columns"


def outcome_set(example: FamilyExample, seed: int) -> Any:
    """A seeded outcome set of :data:`~vlc_harness.testing.abstention.SIZE` instances, a third of
    them declined: scores from {0, 1, 2} (ties are frequent), or answers in ``example.orders``."""
    rng = np.random.default_rng(seed)
    instances = [example.make_instance(k, rng) for k in range(SIZE)]
    declined = np.arange(SIZE) % 3 == 0
    if example.orders:
        asked = ~declined[:, None] | (rng.random((SIZE, example.orders)) < 0.5)
        return ChoiceOutcomes(instances, (rng.random((SIZE, example.orders)) < 0.5) & asked, asked)
    scores = random_scores(rng, instances)
    text = random_text_scores(rng, instances) if example.text_scores else None
    for k in np.flatnonzero(declined).tolist():
        decline(rng, scores, k)
    return score_outcomes(instances, scores, ~declined, text)


def _same_array(a: Any, b: Any) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return np.array_equal(np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64), equal_nan=True)


def _same_columns(first: list[Column], second: list[Column], n: int) -> None:
    assert [c.metric for c in first] == [c.metric for c in second], "the columns differ between two computations"
    for a, b in zip(first, second, strict=True):
        assert len(a.credit) == n, f"{a.metric}: {len(a.credit)} credits for {n} instances"
        for name in ("credit", "members", "ties", "ties_half", "labels", "den", "answered"):
            assert _same_array(getattr(a, name), getattr(b, name)), f"{a.metric}: {name} differs on the same outcomes"
        assert (a.tie_rule, a.abstention) == (b.tie_rule, b.abstention)


def _check_specs(family: Family) -> dict[str, Any]:
    specs = family.specs()
    ids = [s.id for s in specs]
    assert len(ids) == len(set(ids)), f"{family.owner}: a metric id twice in {ids}"
    assert family.reported(), f"{family.owner} reports no metric"
    for spec in specs:
        assert spec.description and spec.averaging, f"{spec.id}: needs a description and an averaging text"
        assert spec.tie_rule in SPEC_TIE_RULES, f"{spec.id}: tie rule {spec.tie_rule!r} (known: {SPEC_TIE_RULES})"
    assert family.identity().startswith(f"{family.name}@{family.version}"), "the metrics version must name it"
    return {s.id: s for s in specs}


def test_family_example(vlc_family_type: str, tmp_path: Path) -> None:
    """Valid specs; the same outcomes give the same columns, values and replicates; every value has a spec."""
    cls = _family_cls(vlc_family_type)
    for index, example in enumerate(_examples(cls, tmp_path)):
        for family in example.families:
            _check_specs(family)
        specs = {s.id for s in specs_of(example.families)}
        first, second = outcome_set(example, seed=index), outcome_set(example, seed=index)
        for family in example.families:
            _same_columns(family.columns(first), family.columns(second), len(first))
        bench = Declared(tuple(example.families))
        runs = [evaluate(o, columns_for(bench, o, True), SAMPLES, True) for o in (first, second)]
        dumped = [json.dumps([v.as_dict() for v in r.values], sort_keys=True, default=str) for r in runs]
        assert dumped[0] == dumped[1], "the same outcomes gave other values"
        assert runs[0].replicates.keys() == runs[1].replicates.keys()
        assert all(_same_array(runs[0].replicates[k], runs[1].replicates[k]) for k in runs[0].replicates)
        assert runs[0].values, "the example gives no value"
        unknown = sorted({v.metric for v in runs[0].values if ORDER_SUFFIX.sub("", v.metric) not in specs})
        assert not unknown, f"values without a spec (the site would not describe them): {unknown}"


def test_family_abstention(vlc_family_type: str, tmp_path: Path) -> None:
    """On every example, no value over all asked instances is better for declining than for answering."""
    cls = _family_cls(vlc_family_type)
    for index, example in enumerate(_examples(cls, tmp_path)):
        found, _ = violations(example, seed=1000 + index)
        assert not found, found[:5]
