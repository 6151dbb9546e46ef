"""A cell whose benchmark did not load (its type's package is missing: ``prepared.benchmark`` is
``None``) asks no work of any protocol, and the plan says why it cannot run rather than crashing.

The run decides such a cell ``unavailable`` before it asks a protocol for missing work; ``plan``
asks for the work of the cells that only an unknown model identity kept from being planned, found by
the reason they carry: a benchmark whose package-missing reason reads as the identity's reached
``missing()`` with no benchmark (``AttributeError`` in ``embed`` and ``choose``) before this was fixed.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from vlc_harness import ChoiceModel, EmbeddingModel, PairScoringModel, TextOnlyModel, hookimpl
from vlc_harness.config import RunConfig
from vlc_harness.errors import WeightsUnavailable
from vlc_harness.planview.grid import plan_grid
from vlc_harness.registry import BenchmarkEntry, ModelEntry
from vlc_harness.run.plan import CellPlan
from vlc_harness.run.prepare import PreparedBenchmark
from vlc_harness.run.protocols import protocol_for

REASON = "type 'gone' is provided by package gone-pkg, which is not installed here"
"""The benchmark's package-missing reason; the model's identity is unknown for the same words."""


class Unknowable(EmbeddingModel):
    """An embedding model whose weights cannot be had here, for the reason the benchmark gives."""

    type_name = "unknowable_embedder"

    def identify(self):
        raise WeightsUnavailable(REASON)

    def embed_texts(self, texts):
        return np.ones((len(texts), 2))


class Chooser(ChoiceModel):
    """A choice model (never run here)."""

    type_name = "unloaded_chooser"


class PairScorer(PairScoringModel):
    """A pair-scoring model (never run here)."""

    type_name = "unloaded_pair_scorer"


class TextScorer(TextOnlyModel):
    """An image-blind model (never run here)."""

    type_name = "unloaded_text_scorer"


def _unloaded_cell() -> CellPlan:
    entry = BenchmarkEntry("gone", "gone", {}, unavailable=REASON)
    prepared = PreparedBenchmark(entry=entry, unavailable=REASON)
    assert prepared.benchmark is None and not prepared.instances
    return CellPlan(prepared)


@pytest.mark.parametrize("cls", [Unknowable, PairScorer, TextScorer, Chooser], ids=lambda c: c.protocol)
def test_missing_work_of_a_cell_whose_benchmark_did_not_load_is_none(cls, vlc_store):
    job = protocol_for(cls).missing([_unloaded_cell()], vlc_store, None, 4)
    assert job.n_pairs == 0 and not job.text_pairs and not job.questions


def test_plan_says_the_benchmark_is_unavailable_where_the_identity_reason_reads_the_same(
    vlc_registered, vlc_plugins, vlc_store, tmp_path: Path
):
    class Plugin:
        @hookimpl
        def register_models(self, register):
            register(Unknowable)

    entry = BenchmarkEntry("gone", "gone", {}, unavailable=REASON)
    model = ModelEntry("m", Unknowable.type_name, Unknowable.Params(), Unknowable.Run())
    with vlc_registered(Plugin()):
        plan = plan_grid(vlc_plugins, vlc_store, [model], [entry], RunConfig(data_root=tmp_path), identify_all=True)
    assert plan.models[0].unknown == REASON  # identified (identify_all): unknown, for the benchmark's words
    (cell,) = plan.cells
    assert (cell.status, cell.reason) == ("unavailable", REASON)
