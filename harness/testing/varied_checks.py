"""Conformance on generated inputs (:mod:`vlc_harness.testing.varied_inputs`): every model type's example
scores each generated caption (with two generated images each, or alone for an image-blind model), or
answers a question on each, and must give

* a finite score for every pair, exactly the pairs asked (the right shape);
* the same scores whatever the order of the images and captions and the batch size (batch-order
  invariance), and the same scores twice (determinism), within :data:`TOLERANCE`;
* for a model that answers: an answer in range (or an abstention) for every question, the same
  whatever the order and batch size, and the same twice.

A failure names each input that failed (the caption, its kind, the image and what it shows). Called
by :func:`vlc_harness.testing.conformance.test_model_example_scores` on its loaded model.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from vlc_harness.models import ChoiceModel, Model
from vlc_harness.run.compute import run_job
from vlc_harness.run.jobs import (
    Abstained,
    AnswerFailed,
    Answers,
    ImageFailed,
    ImageTask,
    Job,
    PairFailed,
    QuestionTask,
    Scores,
    Unscored,
)
from vlc_harness.testing.varied_inputs import VariedInputs, varied_inputs

TOLERANCE = 1e-6
"""Two scores of one pair agree when they differ by at most this, relative to their size above 1
(``|a - b| <= 1e-6 * max(1, |a|, |b|)``): log-likelihood sums run to the hundreds."""
SHOWN = 6
"""Problems listed in a failure message at most (the rest are counted)."""
Pair = tuple[str, str]


class VariedInputFailure(AssertionError):
    """The model failed on generated inputs; the message names each."""


def check_varied_inputs(model: Model, tmp_path: Path) -> None:
    """Run the checks of this module on a loaded ``model``; raise :class:`VariedInputFailure` naming
    the inputs that failed."""
    inputs = varied_inputs(tmp_path / "varied")
    if isinstance(model, ChoiceModel):
        _check_answers(model, inputs)
    else:
        _check_scores(model, inputs)


def _pairs(model: Model, inputs: VariedInputs) -> list[Pair]:
    """(image name, caption) pairs: each caption with two images (one, the blind key, when image-blind)."""
    if model.image_blind:
        return [("", c.text) for c in inputs.captions]
    n = len(inputs.images)
    return [(inputs.images[(k + d) % n].name, c.text) for k, c in enumerate(inputs.captions) for d in (0, 1)]


def _score_job(inputs: VariedInputs, pairs: list[Pair], blind: bool, reverse: bool, batch_size: int) -> Job:
    if blind:
        texts = [t for _, t in pairs]
        return Job(blind_texts=texts[::-1] if reverse else texts, batch_size=batch_size)
    by_image: dict[str, list[str]] = {}
    for name, text in pairs:
        by_image.setdefault(name, []).append(text)
    names = sorted(by_image, reverse=reverse)
    tasks = []
    for name in names:
        texts = by_image[name][::-1] if reverse else by_image[name]
        tasks.append(ImageTask(name, str(inputs.image(name).path), None, texts))
    return Job(tasks=tasks, batch_size=batch_size)


def _describe(inputs: VariedInputs, pair: Pair) -> str:
    name, text = pair
    caption = inputs.caption(text).describe()
    return caption if not name else f"{caption} with {inputs.image(name).describe()}"


def _collect(model: Model, job: Job, inputs: VariedInputs, problems: list[str]) -> dict[Pair, float]:
    """The job's scores by pair (blind pairs keyed ``("", text)``); what went wrong appended to ``problems``."""
    scores: dict[Pair, float] = {}
    for event in run_job(model, job):
        if isinstance(event, Scores):
            for key, text, score in event.rows:
                pair = ("" if model.image_blind else key, text)
                if pair in scores:
                    problems.append(f"scored twice: {_describe(inputs, pair)}")
                scores[pair] = score
        elif isinstance(event, (Unscored, PairFailed)):
            problems.append(f"no score ({event.__class__.__name__}: {_reason(event)}): {_pair_of(event, inputs)}")
        elif isinstance(event, Abstained):
            problems += [f"abstained ({raw!r}): {_describe(inputs, (k, t))}" for k, t, raw in event.rows]
        elif isinstance(event, ImageFailed):
            problems.append(f"could not read {inputs.image(event.key).describe()}: {event.message}")
    return scores


def _reason(event: Unscored | PairFailed) -> str:
    return event.reason if isinstance(event, Unscored) else event.message


def _pair_of(event: Unscored | PairFailed, inputs: VariedInputs) -> str:
    return _describe(inputs, (event.key if event.key in {i.name for i in inputs.images} else "", event.text))


def _run_or_locate(model: Model, job: Job, inputs: VariedInputs, pairs: list[Pair], problems: list[str]) -> Any:
    """The job's scores; when it raises, each pair is run alone to name the inputs that raise."""
    try:
        return _collect(model, job, inputs, problems)
    except Exception as exc:
        culprits = []
        for pair in pairs:
            try:
                _collect(model, _score_job(inputs, [pair], model.image_blind, False, 1), inputs, [])
            except Exception as alone:
                culprits.append(f"raised {type(alone).__name__}: {alone}: {_describe(inputs, pair)}")
        raise VariedInputFailure(
            _message(
                model,
                inputs,
                culprits or [f"raised {type(exc).__name__}: {exc} (no input raises alone: a batch of them does)"],
            )
        ) from exc


def _check_scores(model: Model, inputs: VariedInputs) -> None:
    pairs = _pairs(model, inputs)
    blind = model.image_blind
    problems: list[str] = []
    first = _run_or_locate(model, _score_job(inputs, pairs, blind, False, 4), inputs, pairs, problems)
    missing = [p for p in pairs if p not in first]
    problems += [f"no score returned: {_describe(inputs, p)}" for p in missing]
    problems += [f"not asked, yet scored: {_describe(inputs, p)}" for p in first if p not in set(pairs)]
    problems += [f"score {first[p]!r} is not finite: {_describe(inputs, p)}" for p in pairs if not _finite(first, p)]
    if not problems:
        reordered = _run_or_locate(model, _score_job(inputs, pairs, blind, True, 1), inputs, pairs, problems)
        again = _run_or_locate(model, _score_job(inputs, pairs, blind, False, 4), inputs, pairs, problems)
        problems += _differences(first, reordered, inputs, "another order and batch size (1, reversed)")
        problems += _differences(first, again, inputs, "the same job run twice")
    if problems:
        raise VariedInputFailure(_message(model, inputs, problems))


def _finite(scores: dict[Pair, float], pair: Pair) -> bool:
    return pair not in scores or math.isfinite(scores[pair])


def _differences(a: dict[Pair, float], b: dict[Pair, float], inputs: VariedInputs, how: str) -> list[str]:
    out = []
    for pair, x in a.items():
        y = b.get(pair)
        if y is None:
            out.append(f"no score under {how}: {_describe(inputs, pair)}")
        elif not (abs(x - y) <= TOLERANCE * max(1.0, abs(x), abs(y))):
            out.append(f"score {x!r} became {y!r} under {how}: {_describe(inputs, pair)}")
    return out


def _questions(model: ChoiceModel, inputs: VariedInputs) -> tuple[list[QuestionTask], dict[str, str], int]:
    """One question per caption on one image each, its candidates' count, and what each question asks."""
    out, described = [], {}
    texts = [c.text for c in inputs.captions]
    for k, caption in enumerate(inputs.captions):
        image = inputs.images[k % len(inputs.images)]
        ref: list[tuple[str, str, dict[str, Any] | None]] = [(image.name, str(image.path), None)]
        if "i2t" in model.question_kinds:
            other = texts[(k + 1) % len(texts)]
            out.append(QuestionTask(f"q{k}", "i2t", ref, [caption.text, other]))
        else:
            asked = f"Does this image show {caption.text}? Please answer Yes or No."
            out.append(QuestionTask(f"q{k}", "vqa", ref, ["Yes", "No"], asked))
        described[f"q{k}"] = f"{caption.describe()} on {image.describe()}"
    return out, described, 2


def _answers(model: ChoiceModel, job: Job, described: dict[str, str], problems: list[str]) -> dict[str, int | None]:
    answers: dict[str, int | None] = {}
    for event in run_job(model, job):
        if isinstance(event, Answers):
            answers.update((key, choice) for key, choice, _ in event.rows)
        elif isinstance(event, AnswerFailed):
            problems.append(f"no answer ({event.message}): {described[event.key]}")
    return answers


def _check_answers(model: ChoiceModel, inputs: VariedInputs) -> None:
    questions, described, n = _questions(model, inputs)
    problems: list[str] = []

    def ask(asked: list[QuestionTask], batch_size: int) -> dict[str, int | None]:
        return _answers(model, Job(questions=asked, batch_size=batch_size), described, problems)

    first = ask(questions, 4)
    problems += [f"no answer returned: {described[q.key]}" for q in questions if q.key not in first]
    valid = (None, *range(n))
    problems += [f"answer {c!r} is not one of 0..{n - 1}: {described[k]}" for k, c in first.items() if c not in valid]
    if not problems:
        for how, answers in (
            ("another order and batch size (1, reversed)", ask(questions[::-1], 1)),
            ("the same job run twice", ask(questions, 4)),
        ):
            changed = [k for k, c in first.items() if answers.get(k) != c]
            problems += [f"answer {first[k]!r} became {answers.get(k)!r} under {how}: {described[k]}" for k in changed]
    if problems:
        raise VariedInputFailure(_message(model, inputs, problems))


def _message(model: Model, inputs: VariedInputs, problems: list[str]) -> str:
    """The first problem on the first line (what a one-line report shows), then the others, then where
    the inputs come from."""
    rest = "".join(f"\n- {p}" for p in problems[1:SHOWN])
    more = f"\n- and {len(problems) - SHOWN} more" if len(problems) > SHOWN else ""
    return (
        f"{type(model).__qualname__} fails on generated inputs ({len(problems)} problem(s)): {problems[0]}"
        f"{rest}{more}\n"
        f"(inputs: vlc_harness.testing.varied_inputs, seed {inputs.seed}; the vlc_varied_inputs fixture gives them "
        "to your own tests)"
    )
