"""vlc-harness: vision-language compositionality, in both directions, next to humans and chance.

``vlc_harness`` is the one stable import for plugin authors and scripts. A model plugin::

    from vlc_harness import TextOnlyModel, hookimpl

    class CaptionLength(TextOnlyModel):
        \"\"\"Blind baseline: longer captions score higher.\"\"\"

        type_name = "caption_length"

        def score_texts(self, texts):
            return [float(len(t)) for t in texts]

    @hookimpl
    def register_models(register):
        register(CaptionLength)

Exported here: the protocol base classes (:class:`EmbeddingModel`, :class:`PairScoringModel`,
:class:`TextOnlyModel`, :class:`ChoiceModel`) and what they return (:class:`Identity`,
:class:`RunOptions`, :class:`PairError`, :class:`Abstention`, :class:`ChoiceAnswer`,
:class:`ChoiceQuestion`, :class:`PairGroup`); :class:`Benchmark` with :class:`Instance`,
:class:`ImageSource`, :class:`DataFile` and its :class:`BenchmarkCard` (with the :class:`ReferenceRow`
numbers it shows and any image :class:`Pool` it brings), composed from data sources
(:class:`PinnedFiles`, :class:`UnpinnedFiles`, :class:`RowsFile`, :class:`HfExport` with its
:class:`HfSplit`, :class:`Sources`, their base :class:`DataSource`) and an :class:`ImageFolder`;
:class:`DataUnavailable` and :class:`WeightsUnavailable` (raise them when a cell cannot run here: it
becomes ``unavailable``, with your reason); the metric families (:class:`PairwiseAccuracy`,
:class:`TextImageGroup`, :class:`RocAuc`, :class:`HardPositive`, :class:`MeanScore`,
:class:`OrderAccuracy`, :class:`AllCorrect`, :class:`QuestionImageGroup`) and aggregations
(:class:`PerCategory`, :class:`Micro`, :class:`Macro`, :class:`Std`, :class:`Tags`, and their
base :class:`Aggregation`); what a new metric family is written with (:class:`Family`, the
:class:`Reported` metrics it declares, the :class:`Column` of per-instance credits it returns from
:class:`Outcomes` or :class:`ChoiceOutcomes`, the :class:`MetricSpec` its declaration yields, and
the :class:`FamilyExample` its conformance checks run on; register it with the
``register_metric_families`` hook); :data:`hookimpl`; :func:`evaluate`, :class:`Results` and
:class:`CellUnusable` (what :meth:`Results.value` raises for a failed, unavailable or skipped
cell) for evaluating from Python; :class:`RunConfig` (one run's configuration, what a model reads its
data root from) and :class:`StoredResults` (the read-only results API over a store). Names load on first
use, so ``import vlc_harness`` stays instant.
"""

from __future__ import annotations

import lazy_loader

# Every exported name is listed once, in __init__.pyi: this reads it for the names and their modules
# (loaded on first use), type checkers read it for their types.
__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
