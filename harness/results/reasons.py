"""Why a cell has no number, in words for readers: one sentence per reason code, else per status.

A cell that is not ``ok`` stores its reason twice (:mod:`vlc_harness.errors`): its text, for
people running the harness (``vlc-harness show`` prints it), and a reason code decided where the
error was raised. Pages show :func:`public_reason` instead of the text: chosen by the code and the
status alone, it names no local path, environment variable or stack trace, and reads no message.
"""

from __future__ import annotations

from vlc_harness import errors

_GENERIC = {
    "unavailable": "Not evaluated: the model's weights or the benchmark's data could not be had on the machine "
    "that built this board.",
    "failed": "The evaluation failed on the machine that built this board.",
    "skipped": "Not applicable: this model's way of scoring does not apply to this benchmark.",
    "partial": "Only part of the benchmark was scored (a limited or interrupted run), so no number is published.",
    "not run": "This model has not been evaluated on this benchmark yet.",
}
"""What a cell says by its status alone, when its reason code has no words of its own."""

_WEIGHTS = "Not evaluated: the model's weights could not be downloaded when this board was built."
_INSTANCES = "Some instances could not be scored, so no number is published."

_WORDS: dict[str, str] = {
    errors.WEIGHTS_MISSING: _WEIGHTS,
    errors.GATED: _WEIGHTS,
    errors.DATA_MISSING: "Not evaluated: the benchmark's data files were not present when this board was built.",
    errors.SCORES_MISSING: "The submitted scores file has no scores for this benchmark.",
    errors.AUTH: "Not evaluated: this API model was not queried for this board.",
    errors.OUT_OF_MEMORY: "The evaluation ran out of memory.",
    errors.TIMEOUT: "The evaluation stopped making progress and was stopped.",
    errors.VERSION_TOO_OLD: "Not evaluated: the software versions on the build machine cannot run this model.",
    errors.PACKAGE_MISSING: "Not evaluated: a software package it needs was not installed on the machine that built "
    "this board.",
    errors.NOT_APPLICABLE: _GENERIC["skipped"],
    errors.INSTANCES_FAILED: _INSTANCES,
    errors.SCORE_ERROR: _INSTANCES,
    errors.IMAGE_ERROR: _INSTANCES,
    errors.PAIR_ERROR: _INSTANCES,
    errors.NOT_COMPUTED: _INSTANCES,
}
"""The words of each reason code (:data:`vlc_harness.errors.REASONS`) that has its own; the
others (a worker's error, ``--limit``, failed requests, ``other``) are worded
by the cell's status."""


def public_reason(status: str, code: str | None) -> str:
    """Why a cell shows no number, as one sentence for readers: the words of its reason code, else
    of its status. It reads no message: the full reason stays in the store, ``show`` and the JSON."""
    return _WORDS.get(code or "") or _GENERIC.get(status, "No published result for this cell.")
