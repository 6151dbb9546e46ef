"""The in-process executor (``run --executor inprocess``): the scores and cells a grid stores are the
ones worker processes store; what a model raises (built, loaded or scoring) fails only its cells, with
the reason code of its type, as a worker process reports it; a model the executor built is closed."""

from __future__ import annotations

import json
import sqlite3
import sys
from typing import Any

import pytest

from vlc_harness import hookimpl
from vlc_harness.models import Identity, PairScoringModel
from vlc_harness.reasons import Reason

SC = "sugarcrepe:version=custom"


def stored(path) -> dict[str, Any]:
    """What a grid left in a SQLite store that any executor must leave the same: every score (by the
    model's fingerprint), every text-text score, each cell (without its run, time and provenance; a
    failed cell's error up to its traceback) with its outcomes and replicates."""
    db = sqlite3.connect(path)
    try:
        scores = sorted(
            db.execute(
                "SELECT m.fingerprint, s.image_key, s.text, s.score FROM scores s JOIN models m ON m.id = s.model"
            )
        )
        text_scores = sorted(
            db.execute(
                "SELECT m.fingerprint, t.text_a, t.text_b, t.score FROM text_scores t JOIN models m ON m.id = t.model"
            )
        )
        cells = {}
        columns = "id, model_id, benchmark_id, fingerprint, data_version, manifest_hash, n_instances, n_scored, "
        columns += "n_failed, instance_limit, complete, status, error, reason_code, metrics, metrics_version, "
        columns += "inputs_hash, replicates"
        for row in db.execute(f"SELECT {columns} FROM cells"):
            cell_id, model, bench, *rest, error, reason, metrics, version, inputs, replicates = row
            outcomes = sorted(db.execute("SELECT * FROM outcomes WHERE cell = ?", (cell_id,)))
            outcomes = [o[2:] if len(o) > 2 else o for o in outcomes]  # without the row and cell ids
            first_line = error.splitlines()[0] if error else None
            cells[(model, bench)] = (*rest, first_line, reason, json.loads(metrics), version, inputs, replicates)
            cells[(model, bench, "outcomes")] = outcomes
        return {"scores": scores, "text_scores": text_scores, "cells": cells}
    finally:
        db.close()


@pytest.mark.vlc_worker_process
def test_a_grid_stores_the_same_scores_and_cells_in_process_as_in_worker_processes(
    vlc_run, sample_root, tiny_spec, faulty, tmp_path
):
    grid = ["-m", tiny_spec, "-m", "random:seed=4", "-m", "test_pixels", "-m", "test_raises", "-b", SC]
    here = f"sqlite:///{tmp_path / 'inprocess.sqlite'}"
    in_workers = vlc_run(*grid, "--executor", "local", data_root=sample_root)
    in_process = vlc_run(*grid, "--executor", "inprocess", data_root=sample_root, store_url=here)
    assert in_workers.exit_code == in_process.exit_code == 1, in_process.output  # test_raises failed its cells
    local, inprocess = stored(vlc_run.store_path), stored(tmp_path / "inprocess.sqlite")
    assert len(local["scores"]) > 100 and len(local["cells"]) == 2 * 4  # 4 cells, and their outcomes
    assert local["scores"] == inprocess["scores"]
    assert local["text_scores"] == inprocess["text_scores"]
    assert local["cells"] == inprocess["cells"]


class Misbehaving:
    """Models that fail while loading, in two ways a worker process reports."""

    @hookimpl
    def register_models(self, register):
        class LoadRaises(PairScoringModel):
            """Raises from load()."""

            type_name = "test_load_raises"
            needs_pixels = False

            def identify(self):
                return Identity("none", "fp64", "score_pairs/test")

            def load(self, device):
                raise ValueError("no weights here")

        class LoadExits(LoadRaises):
            """Calls sys.exit() from load()."""

            type_name = "test_load_exits"

            def load(self, device):
                sys.exit(4)

        register(LoadRaises)
        register(LoadExits)


@pytest.mark.parametrize(
    "model, code, message",
    [
        ("test_raises", Reason.WORKER_ERROR, "RuntimeError: the plugin's own bug"),
        ("test_memory", Reason.OUT_OF_MEMORY, "MemoryError: cannot allocate 64 GiB"),
        ("test_load_raises", Reason.WORKER_ERROR, "ValueError: no weights here"),
        ("test_load_exits", Reason.WORKER_ERROR, "SystemExit: 4"),
        ("test_nan", Reason.SCORE_ERROR, "model returned nan for image"),
    ],
)
@pytest.mark.slow  # over a second: the full suite's
def test_what_a_model_raises_fails_only_its_cells_with_the_code_of_its_type(
    vlc_run, sample_root, faulty, vlc_registered, model, code, message
):
    with vlc_registered(Misbehaving()):
        out = vlc_run("-m", model, "-m", "random:seed=1", "-b", SC, "--executor", "inprocess", data_root=sample_root)
    assert out.exit_code == 1, out.output
    cells = {c.model_id: c for c in vlc_run.store().latest_cells()}
    assert (cells[model].status, cells[model].reason_code) == ("failed", code), cells[model].error
    assert message in cells[model].error
    assert (cells["random:seed=1"].status, cells["random:seed=1"].reason_code) == ("ok", None)


def test_the_executor_closes_the_models_it_built_and_never_a_live_one():
    from vlc_harness.run.executor import InProcessWorker

    closed: list[str] = []

    class Closing(PairScoringModel):
        """Notes its close()."""

        type_name = "test_closing"

        def close(self):
            closed.append(self.params.__class__.__name__)

    built = InProcessWorker.build(Closing, Closing.Params(), Closing.Run(), "built", config=_config())
    built.close()
    assert closed == []  # never built: nothing to close
    built.model = Closing(Closing.Params(), Closing.Run())  # as its first job would have
    built.close()
    assert len(closed) == 1 and built.model is None
    live = InProcessWorker(Closing(Closing.Params(), Closing.Run()), "live")
    live.close()
    assert len(closed) == 1  # the caller owns a live model
    with pytest.raises(ValueError, match="a model or a factory"):
        InProcessWorker(None, "neither")


def _config():
    from pathlib import Path

    from vlc_harness.config import RunConfig

    return RunConfig(data_root=Path("."), executor="inprocess")
