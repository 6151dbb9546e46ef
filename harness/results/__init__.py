"""The results API: read-only access to what a store holds, for every reader outside the engine.

The board, ``show`` and scripts read results here, never by running the metric engine:

* :class:`StoredResults` over an open store: the latest cells (:meth:`~StoredResults.cells`),
  run provenance, each cell's per-instance outcomes and its per-instance verdicts;
* a cell's stored values (:func:`stored_values`, :func:`stored_value`: value, interval, counts,
  tie rule), its bootstrap replicates (:func:`replicates`) and which replicates pair up
  (:func:`pairing_key`); :func:`significance` and :func:`ranks` decide every pair at once, bit
  for bit as :mod:`vlc_harness.metrics.bootstrap`;
* per-instance verdicts (:class:`InstanceVerdicts`: right, wrong, tie, abstained, part credit),
  derived from the stored outcomes by the engine's own column code (:mod:`.verdicts` says why
  they are derived rather than stored);
* reason codes and their words for readers (:class:`Reason`, :func:`public_reason`, from
  :mod:`vlc_harness.reasons`);
* what a benchmark's declaration says of its stored values (:mod:`.layout`: which categories a
  macro value averages, what a category is called, means of per-category values).
"""

from __future__ import annotations

from vlc_harness.metrics.ties import tie_rule_words
from vlc_harness.reasons import Reason, public_reason
from vlc_harness.records import CellRecord, Outcome
from vlc_harness.results.cells import (
    StoredValue,
    is_published,
    pairable,
    pairing_key,
    replicates,
    stored_value,
    stored_values,
)
from vlc_harness.results.layout import (
    AUDIT_TAGS,
    IDENTICAL_TEXT,
    averaged_metrics,
    category_unit,
    declared_metrics,
    derived_means,
)
from vlc_harness.results.reader import StoredResults
from vlc_harness.results.significance import BETTER, NEITHER, WORSE, ranks, ranks_from, significance
from vlc_harness.results.verdicts import (
    ABSTAINED,
    PART,
    RIGHT,
    TIE,
    WRONG,
    InstanceVerdicts,
    NoVerdicts,
    OutcomesUnreadable,
    instance_verdicts,
)

__all__ = [
    "ABSTAINED",
    "AUDIT_TAGS",
    "BETTER",
    "IDENTICAL_TEXT",
    "NEITHER",
    "PART",
    "Reason",
    "RIGHT",
    "TIE",
    "WORSE",
    "WRONG",
    "CellRecord",
    "InstanceVerdicts",
    "NoVerdicts",
    "Outcome",
    "OutcomesUnreadable",
    "StoredResults",
    "StoredValue",
    "averaged_metrics",
    "category_unit",
    "declared_metrics",
    "derived_means",
    "instance_verdicts",
    "is_published",
    "pairable",
    "pairing_key",
    "public_reason",
    "tie_rule_words",
    "ranks",
    "ranks_from",
    "replicates",
    "significance",
    "stored_value",
    "stored_values",
]
