"""Conformance checks every registered model, benchmark and metric family type must pass.

Import these tests into a test module to run them over every registered type (metric families
too: :mod:`vlc_harness.testing.family_conformance`)::

    from vlc_harness.testing.conformance import *  # noqa: F401,F403

Each model type is loaded from its conformance example (a tiny offline instance) and scores a
2 images x 2 texts grid, then generated captions and images (:mod:`vlc_harness.testing.varied_checks`);
each benchmark type loads its example data and computes its metrics on random, tied and NaN scores.
A type's example comes from the ``conformance_example`` hook of a testing plugin (the
``vlc_harness_testing`` entry-point group), else from the class's own ``conformance_example``
(:func:`vlc_harness.testing.examples.example_for`).
"""

from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from vlc_harness.benchmarks import Benchmark, InstanceScores
from vlc_harness.choices import AnsweredQuestion, InstanceAnswers, Question
from vlc_harness.errors import ScoreError
from vlc_harness.models import (
    PROTOCOLS,
    ChoiceModel,
    EmbeddingModel,
    Identity,
    Model,
    PairScoringModel,
    RunOptions,
    TextOnlyModel,
)
from vlc_harness.params import build
from vlc_harness.plugins import class_locator, get_plugins
from vlc_harness.run.compute import run_job
from vlc_harness.run.jobs import AnswerFailed, Answers, ImageTask, Job, QuestionTask, Scores
from vlc_harness.submitted import ReplaysScores
from vlc_harness.testing import (
    CONFORMANCE_BENCHMARK,
    CONFORMANCE_INSTANCE,
    CONFORMANCE_TEXTS,
    CONFORMANCE_VERSION,
    write_standin_images,
)
from vlc_harness.testing.examples import example_for
from vlc_harness.testing.family_conformance import (
    SPEC_TIE_RULES,
    test_family_abstention,
    test_family_example,
    test_family_metadata,
)
from vlc_harness.testing.light_imports import HEAVY_MODULES as HEAVY_MODULES  # re-exported: it was defined here
from vlc_harness.testing.light_imports import heavy_imports
from vlc_harness.testing.varied_checks import check_varied_inputs

__all__ = [
    "test_benchmark_example_metrics",
    "test_benchmark_metadata",
    "test_family_abstention",
    "test_family_example",
    "test_family_metadata",
    "test_model_example_scores",
    "test_model_metadata",
    "test_plugin_module_import_is_light",
]


def _model_cls(name: str) -> type[Model]:
    return get_plugins().models.get(name).cls


def _benchmark_cls(name: str) -> type[Benchmark]:
    return get_plugins().benchmarks.get(name).cls


def test_model_metadata(vlc_model_type: str) -> None:
    """Docstring, protocol, parameter dataclasses, scoring version."""
    cls = _model_cls(vlc_model_type)
    name = cls.__qualname__
    assert (cls.__doc__ or "").strip(), f"{name} needs a docstring"
    assert cls.protocol in PROTOCOLS, (
        f"{name}.protocol is {cls.protocol!r}, not one of {', '.join(PROTOCOLS)}: subclass one of "
        "EmbeddingModel, PairScoringModel, TextOnlyModel or ChoiceModel rather than Model"
    )
    assert dataclasses.is_dataclass(cls.Params), f"{name}.Params must be a dataclass (@dataclass(frozen=True))"
    assert dataclasses.is_dataclass(cls.Run) and issubclass(cls.Run, RunOptions), (
        f"{name}.Run must be a dataclass subclassing vlc_harness.models.RunOptions"
    )
    version = cls.scoring_version
    assert isinstance(version, str) and version, (
        f"{name}.scoring_version is {version!r} ({type(version).__name__}), not a non-empty string: write "
        f"scoring_version = {str(version or '1')!r}. It is part of every score's fingerprint; change it whenever "
        "the scores your code gives change"
    )
    if cls.image_blind:
        assert issubclass(cls, TextOnlyModel), f"{name} is image_blind: it must subclass TextOnlyModel"


def _grid_job(cls: type[Model], tmp_path: Path) -> Job:
    if cls.image_blind:
        return Job(blind_texts=list(CONFORMANCE_TEXTS), batch_size=2)
    names = ["conformance_0.jpg", "conformance_1.jpg"]
    write_standin_images(names, tmp_path / "images")
    if issubclass(cls, ChoiceModel):
        image = ("key0", str(tmp_path / "images" / names[0]), None)
        if "i2t" in cls.question_kinds:
            texts = list(CONFORMANCE_TEXTS)
            questions = [QuestionTask("q0", "i2t", [image], texts), QuestionTask("q1", "i2t", [image], texts[::-1])]
        else:  # vqa only
            asked = f"Does this image show {CONFORMANCE_TEXTS[0]}? Please answer Yes or No."
            options = ["Yes", "No"]
            questions = [
                QuestionTask("q0", "vqa", [image], options, asked),
                QuestionTask("q1", "vqa", [image], options[::-1], asked),
            ]
        return Job(questions=questions, batch_size=2)
    tasks = []
    for i, name in enumerate(names):
        origins = [[(CONFORMANCE_BENCHMARK, CONFORMANCE_VERSION, CONFORMANCE_INSTANCE, i, j)] for j in range(2)]
        tasks.append(ImageTask(f"key{i}", str(tmp_path / "images" / name), None, list(CONFORMANCE_TEXTS), origins))
    return Job(tasks=tasks, batch_size=2)


def test_model_example_scores(vlc_model_type: str, tmp_path: Path) -> None:
    """The example loads offline, identifies itself stably, and scores the grid finitely and deterministically;
    then the generated inputs (:mod:`vlc_harness.testing.varied_checks`): finite, of the right shape, the same
    whatever the batch order and twice, each failing input named."""
    cls = _model_cls(vlc_model_type)
    example = example_for(cls, tmp_path)
    if example is None:
        pytest.skip(f"{vlc_model_type} offers no offline example")
    params = build(cls.Params, example)
    model = cls(params, build(cls.Run, {}))
    first, second = model.identify(), model.identify()
    assert isinstance(first, Identity) and first == second
    assert first.weights and first.dtype and first.protocol
    model.load("cpu")
    job = _grid_job(cls, tmp_path)
    assert isinstance(model, (EmbeddingModel, PairScoringModel, TextOnlyModel, ChoiceModel))
    try:
        if isinstance(model, ChoiceModel):
            events = list(run_job(model, job))
            assert not [e for e in events if isinstance(e, AnswerFailed)], "the offline example must answer"
            answers = [row for e in events if isinstance(e, Answers) for row in e.rows]
            assert len(answers) == 2 and all(c is None or c in (0, 1) for _, c, _ in answers)
        else:
            runs = []
            for _ in range(2):
                rows = [row for event in run_job(model, job) if isinstance(event, Scores) for row in event.rows]
                assert len(rows) == job.n_pairs
                assert all(math.isfinite(score) for _, _, score in rows)
                runs.append(sorted(rows))
            for (k1, t1, s1), (k2, t2, s2) in zip(*runs):
                assert (k1, t1) == (k2, t2) and abs(s1 - s2) <= 1e-6
        if not issubclass(cls, ReplaysScores):  # replayed scores exist for the grid's pairs only
            check_varied_inputs(model, tmp_path)
    finally:
        model.close()


def test_plugin_module_import_is_light(vlc_model_type: str, request: pytest.FixtureRequest) -> None:
    """Importing a model plugin's module imports no heavy framework (listing stays instant), as a
    fresh interpreter sees it (:mod:`vlc_harness.testing.light_imports`: one for all the types)."""
    from vlc_harness.testing.pytest_plugin import conformance_selection

    cls = _model_cls(vlc_model_type)
    locator = class_locator(cls)  # by module name, or by file for a plugin loaded from a folder
    names = conformance_selection(request.config, get_plugins())["vlc_model_type"]
    heavy = heavy_imports(locator, [class_locator(_model_cls(name)) for name in names])
    assert not heavy, f"{cls.__module__} imports {','.join(heavy)} at import time"


def test_benchmark_metadata(vlc_benchmark_type: str) -> None:
    """Docstring, citation, where the headline comes from, and dataclass params."""
    cls = _benchmark_cls(vlc_benchmark_type)
    assert (cls.__doc__ or "").strip(), f"{cls.__qualname__} needs a docstring"
    assert cls.title and cls.citation
    assert cls.headline_source.strip(), (
        f"{cls.__qualname__} must state headline_source: the paper table its headline reproduces, "
        "or 'ours: ...' and why no paper reports it"
    )
    assert dataclasses.is_dataclass(cls.Params)


def _example(cls: type[Benchmark], tmp_path: Path) -> Benchmark:
    example = example_for(cls, tmp_path)
    if example is None:
        pytest.skip(f"{cls.type_name} offers no example data")
    params, root = example
    bench = cls(build(cls.Params, params), root)
    bench.check_data()
    return bench


def _check_answer_metrics(bench: Benchmark, instances: list[Any], specs: dict[str, Any]) -> None:
    """A benchmark of answers only: its questions fit their instances, its metrics are finite on
    random answers, all right gives a perfect headline, and unanswered questions count wrong."""
    rng = np.random.default_rng(0)

    def answered(pick: Any) -> list[InstanceAnswers]:
        out = []
        for inst in instances:
            questions = bench.questions(inst)
            assert questions, f"{inst.id}: an answers-only benchmark must ask questions"
            for q in questions:
                assert all(0 <= i < len(inst.images) for i in q.images)
                assert 0 <= q.correct < _n_candidates(inst, q)
            out.append(InstanceAnswers(inst, [AnsweredQuestion(q, pick(inst, q)) for q in questions]))
        return out

    values = bench.compute_choices(answered(lambda inst, q: int(rng.integers(_n_candidates(inst, q)))))
    assert values and all(v.metric in specs or v.metric == "coverage" for v in values)
    assert all(math.isfinite(v.value) for v in values)
    headline = bench.headline_metric()

    def overall(results: list[InstanceAnswers]) -> float:
        return next(v.value for v in bench.compute_choices(results) if v.metric == headline and v.category == "all")

    assert overall(answered(lambda inst, q: q.correct)) == 1.0
    assert overall(answered(lambda inst, q: None)) == 0.0, "an unanswered question must count wrong"


def _n_candidates(inst: Any, q: Question) -> int:
    return len(q.images) if q.kind == "t2i" else len(q.candidates(inst))


def test_benchmark_example_metrics(vlc_benchmark_type: str, tmp_path: Path) -> None:
    """Example data loads; metrics are finite on random scores, count ties, and reject NaN."""
    cls = _benchmark_cls(vlc_benchmark_type)
    bench = _example(cls, tmp_path)
    instances = bench.load_instances()
    assert instances, "the example has no instances"
    ids = [i.id for i in instances]
    assert len(set(ids)) == len(ids), "instance ids must be unique"
    for inst in instances:
        assert inst.id.startswith(inst.category + "/"), f"{inst.id} is not <category>/<key>"
        assert inst.texts and all(isinstance(t, str) and t for t in inst.texts)
        json.dumps(dict(inst.gold))
        for i, j in inst.needed_pairs():
            assert 0 <= i < len(inst.images) and 0 <= j < len(inst.texts)
    specs = {s.id: s for s in bench.metric_specs()}
    assert cls.headline in specs, f"headline {cls.headline!r} is not among the metric specs"
    for spec in specs.values():
        assert spec.tie_rule in SPEC_TIE_RULES and spec.averaging, f"{spec.id}: tie rule {spec.tie_rule!r}"
    if cls.answers_only:
        _check_answer_metrics(bench, instances, specs)
        return

    rng = np.random.default_rng(0)

    def scored(fill: Any) -> list[InstanceScores]:
        out = []
        for inst in instances:
            m = np.full((len(inst.images), len(inst.texts)), np.nan)
            for i, j in inst.needed_pairs():
                m[i, j] = fill(i, j)
            out.append(InstanceScores(inst, m))
        return out

    values = bench.compute(scored(lambda i, j: rng.random()))
    assert values and all(v.metric in specs for v in values)
    assert all(math.isfinite(v.value) for v in values)
    assert any(v.metric == bench.headline_metric() and v.category == "all" for v in values)
    tied = bench.compute(scored(lambda i, j: 0.5))
    assert any(v.ties > 0 for v in tied), "all-equal scores must be counted as ties"
    with pytest.raises(ScoreError):
        bench.compute(scored(lambda i, j: float("nan")))
    for row in bench.reference_rows():
        assert row.metric in specs, f"reference row for unknown metric {row.metric}"
        assert 0.0 <= row.value <= 1.0
