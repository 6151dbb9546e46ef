"""Every built-in benchmark's loader, and the precomputed scores reader, on malformed variants of their own
real-format files (issue 38): each load either succeeds, with instances the run can use, or fails with one
:class:`~vlc_harness.errors.InputError` naming the file, the record and the field; never another exception.

The files are each type's conformance example (``conformance_example``: the ``data_*`` writers of
``vlc_harness_builtins.testing``), built once; each example of the property damages one of them
(:mod:`tests.sources.mutations`), loads the benchmark through :func:`vlc_harness.run.prepare.prepare` (what
``run``, ``plan``, ``data verify`` and ``instances`` call), then puts the file back. 50 examples per type,
derandomized (the same inputs on every run); no subprocess, no model.
"""

from __future__ import annotations

import json
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.configuration import set_hypothesis_home_dir

from tests.sources.mutations import Mutation, mutations
from vlc_harness.errors import DataUnavailable, InputError
from vlc_harness.params import build
from vlc_harness.plugins import get_plugins
from vlc_harness.reasons import Reason
from vlc_harness.registry import BenchmarkEntry
from vlc_harness.run.prepare import PreparedBenchmark, prepare
from vlc_harness.testing.examples import example_for

set_hypothesis_home_dir(tempfile.mkdtemp(prefix="vlc-test-hypothesis-"))  # never ./.hypothesis in the checkout
FUZZ = settings(
    max_examples=50,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture],
)
INPUT_SUFFIXES = (".json", ".jsonl", ".csv")
OUTCOMES: dict[str, Counter[str]] = {}
"""Per benchmark type: how many examples loaded, failed with an InputError, or were unavailable."""


def builtin_benchmark_types() -> list[str]:
    registrar = get_plugins().benchmarks
    return sorted(name for name in registrar.names() if registrar.get(name).cls.__module__.startswith("vlc_harness_"))


@pytest.fixture(scope="module")
def examples(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Each type's example, built on first use: ``(entry, data root, {input file: its bytes})``."""
    built: dict[str, Any] = {}

    def get(type_name: str) -> Any:
        if type_name not in built:
            cls = get_plugins().benchmarks.get(type_name).cls
            params, root = example_for(cls, tmp_path_factory.mktemp(type_name))
            entry = BenchmarkEntry(type_name, type_name, build(cls.Params, params))
            files = sorted(p for p in root.rglob("*") if p.is_file() and p.suffix in INPUT_SUFFIXES)
            assert files, f"{type_name}'s example has no input file"
            built[type_name] = entry, root, {p: p.read_bytes() for p in files}
        return built[type_name]

    yield get
    for name, outcomes in sorted(OUTCOMES.items()):
        print(f"fuzz {name}: {dict(sorted(outcomes.items()))}")


def check_outcome(prepared: PreparedBenchmark, root: Path, mutation: Mutation) -> str:
    """``ok``, ``input_error`` or ``unavailable``; anything else fails the test, saying what was done."""
    said = f"after {mutation.what}: "
    if prepared.ready:
        usable(prepared)
        return "ok"
    if prepared.load_error is not None:
        error = prepared.raised
        assert isinstance(error, InputError), said + f"{prepared.load_code}: {prepared.load_error}"
        assert prepared.load_code == Reason.INPUT_MALFORMED and prepared.load_error == str(error)
        assert Path(error.file).is_relative_to(root), said + error.file
        assert error.record and error.field and error.expected, said + repr(error.__reduce__())
        assert "\n" not in str(error) and str(error).endswith("."), said + str(error)
        return "input_error"
    # a whole-data check (a count, two files that disagree, a layout rule): the data is not the version's
    assert isinstance(prepared.raised, DataUnavailable), said + f"{prepared.unavailable}"
    assert prepared.unavailable_code == Reason.DATA_MISSING
    return "unavailable"


def usable(prepared: PreparedBenchmark) -> None:
    """What a run does with loaded instances raises nothing: image keys, the sort of (image, text) pairs,
    the questions of the choice protocol, the manifest's JSON."""
    assert prepared.benchmark is not None
    prepared.resolve_images()
    keys = {inst.id: prepared.instance_keys(inst, blind=False) for inst in prepared.instances}
    pairs = {(k[i], inst.texts[j]) for inst in prepared.instances if not isinstance(k := keys[inst.id], str)
             for i, j in inst.needed_pairs()}  # fmt: skip
    sorted(pairs)
    for inst in prepared.instances:
        k = keys[inst.id]
        for q in prepared.benchmark.questions(inst):
            if not isinstance(k, str):
                q.key(inst, k), q.candidates(inst), q.asked(inst)
        json.dumps([inst.manifest_entry() for inst in prepared.instances])


@pytest.mark.parametrize("type_name", builtin_benchmark_types())
@FUZZ
@given(data=st.data())
def test_a_malformed_file_loads_or_is_one_input_error(examples: Any, type_name: str, data: st.DataObject) -> None:
    entry, root, originals = examples(type_name)
    path = data.draw(st.sampled_from(sorted(originals)), label="file")
    mutation = data.draw(mutations(path, originals[path]), label="mutation")
    path.write_bytes(mutation.data)
    try:
        prepared = prepare(entry, get_plugins().benchmarks, root, None)
        outcome = check_outcome(prepared, root, mutation)
    finally:
        path.write_bytes(originals[path])
    OUTCOMES.setdefault(type_name, Counter())[outcome] += 1


# -- the precomputed scores reader ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def scores_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real-format scores file: a random model's scores of SugarCrepe's example, as the format says."""
    from vlc_harness_builtins.testing import data_sugarcrepe

    root = tmp_path_factory.mktemp("scores")
    params = data_sugarcrepe.write_example(root / "data")
    entry = BenchmarkEntry("sc", "sugarcrepe", build(get_plugins().benchmarks.get("sugarcrepe").cls.Params, params))
    prepared = prepare(entry, get_plugins().benchmarks, root / "data", None)
    lines = [
        {"benchmark": "sc", "version": prepared.data_version, "instance": inst.id, "image": i, "text": j, "score": 0.5}
        for inst in prepared.instances
        for i, j in inst.needed_pairs()
    ]
    path = root / "scores.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


@FUZZ
@given(data=st.data())
def test_a_malformed_scores_file_reads_or_is_one_input_error(scores_file: Path, data: st.DataObject) -> None:
    from vlc_harness_builtins.models.precomputed import read_scores

    original = scores_file.read_bytes()
    mutation = data.draw(mutations(scores_file, original), label="mutation")
    scores_file.write_bytes(mutation.data)
    try:
        scores = read_scores(scores_file)
    except InputError as error:
        assert error.file == str(scores_file) and error.record and error.field and error.expected, mutation.what
        OUTCOMES.setdefault("precomputed scores", Counter())["input_error"] += 1
    else:
        assert all(isinstance(v, float) for v in scores.values()), mutation.what
        OUTCOMES.setdefault("precomputed scores", Counter())["ok"] += 1
    finally:
        scores_file.write_bytes(original)
