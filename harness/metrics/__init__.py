"""Metrics as declarations: outcome arrays in, values, intervals and replicates out.

* :mod:`.outcomes`: a cell's per-instance results as numpy arrays;
* :mod:`.family` and the families (:mod:`.pairwise`, :mod:`.group`, :mod:`.auc`,
  :mod:`.hard_positive`, :mod:`.order`, :mod:`.text_only`): what a benchmark declares; each
  yields both the specs the site shows and the values;
* :mod:`.families`: the core's families, registered through the ``register_metric_families`` hook
  as a plugin's are;
* :mod:`.aggregate`: per category, micro, macro (nested, filtered), std and tags;
* :mod:`.ties`: tie rules and the expected credit under random tie-breaking;
* :mod:`.engine`: the vectorized evaluation, abstention rules included;
* :mod:`.bootstrap`: the seeded, stratified, paired bootstrap drawn in blocks;
* :mod:`.cell`: a cell's metrics, intervals and replicates from its outcomes.
"""

from __future__ import annotations

from vlc_harness.metrics.aggregate import Macro, Micro, PerCategory, Std, Tags
from vlc_harness.metrics.pairwise import PairwiseAccuracy

__all__ = ["Macro", "Micro", "PairwiseAccuracy", "PerCategory", "Std", "Tags"]
