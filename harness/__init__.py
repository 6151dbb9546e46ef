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
:class:`ImageSource`, :class:`DataFile` and its :class:`BenchmarkCard`, composed from data sources
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

import importlib
from typing import TYPE_CHECKING, Any

from vlc_harness.hookspecs import hookimpl

if TYPE_CHECKING:
    from vlc_harness.api import Results, evaluate
    from vlc_harness.benchmarks import Benchmark
    from vlc_harness.cards import BenchmarkCard
    from vlc_harness.config import RunConfig
    from vlc_harness.datafiles import DataFile
    from vlc_harness.errors import CellUnusable, DataUnavailable, WeightsUnavailable
    from vlc_harness.metrics.aggregate import Aggregation, Macro, Micro, PerCategory, Std, Tags
    from vlc_harness.metrics.answers import QuestionImageGroup
    from vlc_harness.metrics.auc import RocAuc
    from vlc_harness.metrics.conjunction import AllCorrect
    from vlc_harness.metrics.engine import Column
    from vlc_harness.metrics.family import Family, FamilyExample, Reported
    from vlc_harness.metrics.group import TextImageGroup
    from vlc_harness.metrics.hard_positive import HardPositive, MeanScore
    from vlc_harness.metrics.order import OrderAccuracy
    from vlc_harness.metrics.outcomes import ChoiceOutcomes, Outcomes
    from vlc_harness.metrics.pairwise import PairwiseAccuracy
    from vlc_harness.models import (
        Abstention,
        ChoiceAnswer,
        ChoiceModel,
        ChoiceQuestion,
        EmbeddingModel,
        Identity,
        PairError,
        PairGroup,
        PairScoringModel,
        RunOptions,
        TextOnlyModel,
    )
    from vlc_harness.results import StoredResults
    from vlc_harness.sources import (
        DataSource,
        HfExport,
        HfSplit,
        ImageFolder,
        PinnedFiles,
        RowsFile,
        Sources,
        UnpinnedFiles,
    )
    from vlc_harness.types import ImageSource, Instance, MetricSpec

_EXPORTS: dict[str, str] = {
    **dict.fromkeys(
        (
            "Abstention",
            "ChoiceAnswer",
            "ChoiceModel",
            "ChoiceQuestion",
            "EmbeddingModel",
            "Identity",
            "PairError",
            "PairGroup",
            "PairScoringModel",
            "RunOptions",
            "TextOnlyModel",
        ),
        "vlc_harness.models",
    ),
    "Benchmark": "vlc_harness.benchmarks",
    "BenchmarkCard": "vlc_harness.cards",
    **dict.fromkeys(
        ("DataSource", "HfExport", "HfSplit", "ImageFolder", "PinnedFiles", "RowsFile", "Sources", "UnpinnedFiles"),
        "vlc_harness.sources",
    ),
    "DataUnavailable": "vlc_harness.errors",
    "WeightsUnavailable": "vlc_harness.errors",
    "CellUnusable": "vlc_harness.errors",
    "DataFile": "vlc_harness.datafiles",
    "ImageSource": "vlc_harness.types",
    "Instance": "vlc_harness.types",
    "MetricSpec": "vlc_harness.types",
    **dict.fromkeys(("Aggregation", "Macro", "Micro", "PerCategory", "Std", "Tags"), "vlc_harness.metrics.aggregate"),
    **dict.fromkeys(("Family", "FamilyExample", "Reported"), "vlc_harness.metrics.family"),
    "Column": "vlc_harness.metrics.engine",
    **dict.fromkeys(("ChoiceOutcomes", "Outcomes"), "vlc_harness.metrics.outcomes"),
    "PairwiseAccuracy": "vlc_harness.metrics.pairwise",
    "TextImageGroup": "vlc_harness.metrics.group",
    "RocAuc": "vlc_harness.metrics.auc",
    "HardPositive": "vlc_harness.metrics.hard_positive",
    "MeanScore": "vlc_harness.metrics.hard_positive",
    "OrderAccuracy": "vlc_harness.metrics.order",
    "AllCorrect": "vlc_harness.metrics.conjunction",
    "QuestionImageGroup": "vlc_harness.metrics.answers",
    "Results": "vlc_harness.api",
    "RunConfig": "vlc_harness.config",
    "StoredResults": "vlc_harness.results",
    "evaluate": "vlc_harness.api",
}

__all__ = [
    "Abstention",
    "Aggregation",
    "AllCorrect",
    "Benchmark",
    "BenchmarkCard",
    "CellUnusable",
    "ChoiceAnswer",
    "ChoiceModel",
    "ChoiceOutcomes",
    "ChoiceQuestion",
    "Column",
    "DataFile",
    "DataSource",
    "DataUnavailable",
    "EmbeddingModel",
    "Family",
    "FamilyExample",
    "HardPositive",
    "HfExport",
    "HfSplit",
    "Identity",
    "ImageFolder",
    "ImageSource",
    "Instance",
    "Macro",
    "MeanScore",
    "MetricSpec",
    "Micro",
    "OrderAccuracy",
    "Outcomes",
    "PairError",
    "PairGroup",
    "PairScoringModel",
    "PairwiseAccuracy",
    "PerCategory",
    "PinnedFiles",
    "QuestionImageGroup",
    "Reported",
    "Results",
    "RowsFile",
    "RocAuc",
    "RunConfig",
    "RunOptions",
    "Sources",
    "Std",
    "StoredResults",
    "Tags",
    "TextImageGroup",
    "TextOnlyModel",
    "UnpinnedFiles",
    "WeightsUnavailable",
    "evaluate",
    "hookimpl",
]


def __getattr__(name: str) -> Any:
    """Load an exported name from its module on first use."""
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'vlc_harness' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_EXPORTS})
