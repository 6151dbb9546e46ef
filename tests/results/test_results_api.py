"""The results API on a small real store: values, intervals and replicates as the engine stored them,
per-instance verdicts under each benchmark's own rule, reason codes in readers' words, and nothing
written by reading.

The cells are computed by the engine from score matrices built to be right, wrong, tied or
abstained by construction (SugarCrepe: the positive caption scored above the negative, strict
``>``; Winoground: the group score's four comparisons), then saved in a SQLite store and read back.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import numpy as np
import pytest

SAMPLES = 100
# SugarCrepe instances by position: the positive caption (text 0) above, below, equal to the negative, or declined
PATTERNS = ("right", "wrong", "tie", "abstained")
SCORES = {"right": [[0.9, 0.1]], "wrong": [[0.1, 0.9]], "tie": [[0.5, 0.5]], "abstained": [[0.7, None]]}


def _benchmark(name: str, tmp_path: Path) -> tuple[Any, list[Any]]:
    from vlc_harness.params import build
    from vlc_harness.plugins import get_plugins
    from vlc_harness.testing.examples import example_for

    cls = get_plugins().benchmarks.get(name).cls
    params, root = example_for(cls, tmp_path / name)
    bench = cls(build(cls.Params, params), root)
    return bench, bench.load_instances()


def _save(store: Any, model: str, bench: Any, instances: list[Any], matrices: list[Any]) -> tuple[Any, Any]:
    """Compute the cell as a run does (declined pairs are abstentions) and store it with its outcomes."""
    from vlc_harness.metrics.cell import cell_metrics, metrics_version
    from vlc_harness.metrics.outcomes import outcomes_from_matrices
    from vlc_harness.store import CellRecord, Outcome

    answered = [all(v is not None for row in m for v in row) for m in matrices]
    arrays = [np.array([[np.nan if v is None else v for v in row] for row in m], dtype=np.float64) for m in matrices]
    computed = cell_metrics(
        bench, outcomes_from_matrices(instances, arrays, answered), coverage=not all(answered), samples=SAMPLES
    )
    outcomes = []
    for inst, m, ok in zip(instances, matrices, answered):
        declined = [{"image": 0, "text": j, "abstained": True} for j, v in enumerate(m[0]) if v is None]
        outcomes.append(Outcome(inst.id, inst.category, m, None, None if ok else declined))
    record = CellRecord(
        model,
        bench.type_name,
        bench.type_name,
        "ok",
        fingerprint=f"fp-{model}",
        data_version=bench.data_version,
        manifest_hash=f"{bench.type_name}-manifest",
        n_instances=len(instances),
        n_scored=len(instances),
        complete=True,
        metrics=computed.metrics,
        metrics_version=metrics_version(bench, SAMPLES),
        replicates=computed.replicates,
    )
    store.save_cell(record, outcomes)
    return record, computed


@pytest.fixture
def stored(tmp_path: Path) -> dict[str, Any]:
    """A store with SugarCrepe cells of two models, a Winoground cell, a SeeTRUE cell, an
    unavailable cell and a v0.1 cell (no metrics version)."""
    import dataclasses

    from vlc_harness.store import CellRecord, open_store

    url = f"sqlite:///{tmp_path / 'store.sqlite'}"
    store = open_store(url)
    sugar, sugar_instances = _benchmark("sugarcrepe", tmp_path)
    expected = {inst.id: PATTERNS[k % len(PATTERNS)] for k, inst in enumerate(sugar_instances)}
    mixed = [SCORES[expected[inst.id]] for inst in sugar_instances]
    _, computed = _save(store, "mixed", sugar, sugar_instances, mixed)
    _, strong = _save(store, "strong", sugar, sugar_instances, [SCORES["right"]] * len(sugar_instances))
    wino, wino_instances = _benchmark("winoground", tmp_path)
    diagonal, crossed, flat = [[1.0, 0.0], [0.0, 1.0]], [[0.0, 1.0], [1.0, 0.0]], [[0.5, 0.5], [0.5, 0.5]]
    wino_matrices = [(diagonal, crossed, flat)[k % 3] for k in range(len(wino_instances))]
    _save(store, "mixed", wino, wino_instances, wino_matrices)
    seetrue, seetrue_instances = _benchmark("seetrue", tmp_path)
    _save(store, "mixed", seetrue, seetrue_instances, [[[0.1 * (k % 7)]] for k in range(len(seetrue_instances))])
    store.save_cell(
        CellRecord(
            "gated",
            "sugarcrepe",
            "sugarcrepe",
            "unavailable",
            fingerprint="fp-gated",
            error="weights not cached under /home/someone/.cache and HF_HUB_OFFLINE is set",
            reason_code="weights_missing",
            metrics_version="none",
        ),
        [],
    )
    first = next(c for c in store.latest_cells() if (c.model_id, c.benchmark_id) == ("strong", "sugarcrepe"))
    old = dataclasses.replace(first, id=None, model_id="v01", fingerprint="fp-v01")
    store.save_cell(dataclasses.replace(old, metrics_version=None, replicates=strong.replicates), [])
    yield {
        "store": store,
        "path": tmp_path / "store.sqlite",
        "sugar": (sugar, sugar_instances),
        "wino": (wino, wino_instances, wino_matrices),
        "seetrue": (seetrue, seetrue_instances),
        "expected": expected,
        "computed": computed,
        "strong": strong,
    }
    store.close()


def _cell(results: Any, model: str, benchmark: str, **kwargs: Any) -> Any:
    return next(c for c in results.cells(models=[model], benchmarks=[benchmark], **kwargs))


def test_cells_and_values_are_read_as_stored(stored):
    from vlc_harness.results import StoredResults, is_published, stored_value, stored_values

    results = StoredResults(stored["store"])
    everything = results.cells()
    assert {(c.model_id, c.benchmark_id) for c in everything} == {
        ("mixed", "sugarcrepe"),
        ("strong", "sugarcrepe"),
        ("mixed", "winoground"),
        ("mixed", "seetrue"),
        ("gated", "sugarcrepe"),
        ("v01", "sugarcrepe"),
    }
    complete = results.cells(include_incomplete=False)
    assert "gated" not in {c.model_id for c in complete} and all(is_published(c) for c in complete)
    assert [c.model_id for c in results.cells(models=["strong"])] == ["strong"]
    cell = _cell(results, "mixed", "sugarcrepe")
    computed = stored["computed"].metrics
    values = stored_values(cell)
    assert [(v.metric, v.category) for v in values] == [(m["metric"], m["category"]) for m in computed]
    for value, row in zip(values, computed):
        assert value.value == pytest.approx(row["value"], abs=0) and value.n == row["n"] and value.ties == row["ties"]
        assert value.ci95 == (tuple(row["ci95"]) if row.get("ci95") else None)
        assert value.tie_rule == row["tie_rule"] and dict(value.record) == row
    headline = stored_value(cell, "i2t_accuracy_macro")
    assert headline is not None and headline.headline and headline.ci95 is not None
    assert headline.ci95[0] <= headline.value <= headline.ci95[1]
    assert stored_value(cell, "i2t_accuracy_macro", "no-such-category") is None
    assert {v.category for v in stored_values(cell, "all")} == {"all"}


def test_replicates_round_trip_and_pair_only_within_one_instance_set(stored):
    from vlc_harness.metrics import bootstrap
    from vlc_harness.results import StoredResults, pairable, pairing_key, ranks, replicates

    results = StoredResults(stored["store"])
    mixed = _cell(results, "mixed", "sugarcrepe", with_replicates=True)
    strong = _cell(results, "strong", "sugarcrepe", with_replicates=True)
    for key, reps in stored["computed"].replicates.items():
        assert np.array_equal(replicates(mixed, *key), np.asarray(reps, dtype=np.float64), equal_nan=True), key
    reps = {c.model_id: replicates(c, "i2t_accuracy_macro") for c in (mixed, strong)}
    assert all(pairable(r) and len(r) == SAMPLES for r in reps.values())
    assert pairing_key(mixed, reps["mixed"]) == pairing_key(strong, reps["strong"])
    assert ranks(reps) == bootstrap.ranks(reps) == {"strong": 1, "mixed": 2}  # every instance right vs a quarter
    assert replicates(_cell(results, "mixed", "sugarcrepe"), "i2t_accuracy_macro") is None  # not loaded
    v01 = _cell(results, "v01", "sugarcrepe", with_replicates=True)
    assert v01.replicates and replicates(v01, "i2t_accuracy_macro") is None  # v0.1 resamples pair with nothing
    assert not pairable(None) and not pairable(np.zeros(0))


def test_sugarcrepe_verdicts_follow_the_strict_rule_and_add_up_to_the_stored_value(stored):
    from vlc_harness.results import ABSTAINED, RIGHT, TIE, WRONG, StoredResults, stored_value

    results = StoredResults(stored["store"])
    bench, instances = stored["sugar"]
    cell = _cell(results, "mixed", "sugarcrepe")
    verdicts = results.verdicts(cell, bench, instances, "i2t_accuracy_macro")
    assert verdicts is not None and verdicts.metric == "i2t_accuracy" and verdicts.tie_rule == "wrong"
    names = {"right": RIGHT, "wrong": WRONG, "tie": TIE, "abstained": ABSTAINED}
    assert verdicts.by_instance() == {iid: names[p] for iid, p in stored["expected"].items()}
    # a tie and an abstention earn nothing under SugarCrepe's strict '>' and the 'wrong' abstention rule
    assert list(verdicts.full_credit) == [p == "right" for p in stored["expected"].values()]
    assert list(verdicts.no_credit) == [p != "right" for p in stored["expected"].values()]
    assert list(verdicts.tied) == [p == "tie" for p in stored["expected"].values()]
    micro = stored_value(cell, "i2t_accuracy_micro")
    assert micro is not None and micro.value == pytest.approx(verdicts.full_credit.sum() / len(instances))
    for category in {inst.category for inst in instances}:
        ids = [inst.id for inst in instances if inst.category == category]
        right = sum(verdicts.by_instance()[i] == RIGHT for i in ids)
        value = stored_value(cell, "i2t_accuracy", category)
        assert value is not None and value.value == pytest.approx(right / len(ids)), category


def test_winoground_verdicts_are_the_group_score_per_instance(stored):
    from vlc_harness.results import RIGHT, TIE, WRONG, StoredResults, stored_value

    results = StoredResults(stored["store"])
    bench, instances, matrices = stored["wino"]
    cell = _cell(results, "mixed", "winoground")
    verdicts = results.verdicts(cell, bench, instances, "group_score")
    assert verdicts is not None and verdicts.metric == "group_score"
    expected = [RIGHT if m[0][0] > m[0][1] else (TIE if m[0][0] == m[0][1] else WRONG) for m in matrices]
    assert verdicts.verdicts() == expected
    group = stored_value(cell, "group_score")
    assert group is not None and group.value == pytest.approx(expected.count(RIGHT) / len(instances))


def test_a_ranking_statistic_has_no_verdicts_and_unreadable_outcomes_say_so(stored):
    from vlc_harness.results import NoVerdicts, OutcomesUnreadable, StoredResults, instance_verdicts
    from vlc_harness.store import Outcome

    results = StoredResults(stored["store"])
    bench, instances = stored["seetrue"]
    with pytest.raises(NoVerdicts):
        results.verdicts(_cell(results, "mixed", "seetrue"), bench, instances, "auc_macro")
    sugar, sugar_instances = stored["sugar"]
    assert results.verdicts(_cell(results, "gated", "sugarcrepe"), sugar, sugar_instances, "i2t_accuracy") is None
    broken = {i.id: Outcome(i.id, i.category, None, None, [{"order": 0}]) for i in sugar_instances}
    with pytest.raises(OutcomesUnreadable):
        instance_verdicts(sugar, sugar_instances, broken, "i2t_accuracy")


def test_reason_codes_are_read_back_and_worded_for_readers(stored):
    from vlc_harness.results import Reason, StoredResults, public_reason

    cell = _cell(StoredResults(stored["store"]), "gated", "sugarcrepe")
    assert (cell.status, cell.reason_code) == ("unavailable", "weights_missing")
    words = public_reason(cell.status, cell.reason_code)
    assert words == "Not evaluated: the model's weights could not be downloaded when this board was built."
    for code in Reason:
        for status in ("unavailable", "failed", "partial", "skipped"):
            sentence = public_reason(status, code)
            assert sentence.endswith(".") and "/" not in sentence and "HF_" not in sentence, (status, code)
    assert public_reason("failed", None) == "The evaluation failed on the machine that built this board."


def test_reading_writes_nothing(stored):
    from vlc_harness.results import StoredResults

    store, path = stored["store"], stored["path"]
    store.close()  # everything on disk: the file's bytes are the store's whole state
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    from vlc_harness.store import open_store

    reopened = open_store(f"sqlite:///{path}")
    try:
        results = StoredResults(reopened)
        results.after_fork()  # a new pool, as a forked worker's: nothing written
        bench, instances = stored["sugar"]
        for cell in results.cells(with_replicates=True):
            results.instance_outcomes(cell)
            if cell.run_id is not None:
                results.run(cell.run_id)
        results.verdicts(_cell(results, "mixed", "sugarcrepe"), bench, instances, "i2t_accuracy")
        public = {m for m in dir(results) if not m.startswith("_")}
        assert public == {"cells", "run", "instance_outcomes", "verdicts", "after_fork"}  # reads only
    finally:
        reopened.close()
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before
