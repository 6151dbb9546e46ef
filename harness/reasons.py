"""Why a cell has no number: the one table of reason codes, each with what it means, a few words
for the people running the harness, and a sentence for readers of the board.

A cell that is ``failed``, ``unavailable``, ``partial`` or ``skipped`` stores a reason code next to
its human text. The code is decided where the error is raised (an
:class:`~vlc_harness.errors.Unavailable` or :class:`~vlc_harness.errors.WorkerFailed` carries one)
or from the exception's type (:func:`vlc_harness.errors.reason_of`), never by reading the text.
The run's grouped lines show :attr:`Reason.label`; the board shows :func:`public_reason`, which
names no local path, environment variable or stack trace and reads no message.
"""

from __future__ import annotations

from enum import Enum

from vlc_harness.status import Status

_WEIGHTS = "Not evaluated: the model's weights could not be downloaded when this board was built."
_INSTANCES = "Some instances could not be scored, so no number is published."
_PLUGIN = "fix the plugin: the cells' messages (`vlc-harness show`) say where it raised"


class Reason(str, Enum):
    """A reason code: its value is what the store keeps (``data_missing``); each member also has
    :attr:`label` (a few words for the run's grouped lines), :attr:`reader` (one sentence for the
    board, or ``None``: the board words the cell by its status), :attr:`doc` (what it means) and
    :attr:`fix` (what to do about it: ``run``'s exit paragraph, :func:`vlc_harness.run.fixes.fixes_for`)."""

    label: str
    reader: str | None
    doc: str
    fix: str

    def __new__(cls, code: str, label: str, reader: str | None, doc: str, fix: str) -> Reason:
        member = str.__new__(cls, code)
        member._value_ = code
        member.label, member.reader, member.doc, member.fix = label, reader, doc, fix
        return member

    def __str__(self) -> str:
        return str(self.value)

    __hash__ = str.__hash__  # equal to its value, so hashed as it: dicts keyed by plain codes find members

    def __format__(self, spec: str) -> str:
        return format(str(self.value), spec)

    # why data or weights cannot be had here (``unavailable``; also a worker's ``failed`` when it loads)
    DATA_MISSING = (
        "data_missing",
        "data not ready",
        "Not evaluated: the benchmark's data files were not present when this board was built.",
        "Benchmark data files are missing, malformed or not as pinned (DataUnavailable).",
        "get the benchmark's data (`vlc-harness data fetch -b ID`)",
    )
    MODEL_DATA_MISSING = (
        "model_data_missing",
        "the model's own data not ready",
        "Not evaluated: the data this model is fitted on was not present when this board was built.",
        "Data the model itself reads (the files it is fitted on, a reference set) is missing: a DataUnavailable "
        "raised by the model, not by the benchmark.",
        "get the data the model itself is built from (the files its params name, e.g. a fit set; "
        "`vlc-harness data fetch -b ID` of the benchmark it comes from, or set the path in its params)",
    )
    WEIGHTS_MISSING = (
        "weights_missing",
        "weights not available",
        _WEIGHTS,
        "Model weights are not present locally and cannot be downloaded now (WeightsUnavailable).",
        "get the weights (the network, or a Hugging Face cache: unset HF_HUB_OFFLINE)",
    )
    GATED = (
        "gated",
        "weights gated or not on the hub",
        _WEIGHTS,
        "The weights' hub repository does not exist or is gated (needs an accepted licence and a token).",
        "accept the weights' licence on the hub and set HF_TOKEN",
    )
    WEIGHTS_MISMATCH = (
        "weights_mismatch",
        "weights differ from the pinned ones",
        None,
        "The weights at hand are not the ones the entry pins (another sha256).",
        "use the weights the entry pins (the file at hand has another sha256)",
    )
    VERSION_TOO_OLD = (
        "version_too_old",
        "installed package too old",
        "Not evaluated: the software versions on the build machine cannot run this model.",
        "An installed package is older than the model needs (or absent from a version gate).",
        "upgrade the package the message names",
    )
    PACKAGE_MISSING = (
        "package_missing",
        "dependency missing",
        "Not evaluated: a software package it needs was not installed on the machine that built this board.",
        "A package the model or benchmark needs is not installed, or does not import here.",
        "install the missing package (the extra or the `vlc-harness plugins install` it names)",
    )
    AUTH = (
        "auth",
        "API credentials missing or refused",
        "Not evaluated: this API model was not queried for this board.",
        "An API refused the credentials (HTTP 401/403), or no API key is set.",
        "set the API key the entry names (and check it is accepted)",
    )
    # why a benchmark's or a scores file's content cannot be read (``failed``)
    INPUT_MALFORMED = (
        "input_malformed",
        "input file malformed",
        "Not evaluated: an input file (the benchmark's data or the submitted scores) was malformed when this "
        "board was built.",
        "A benchmark's data file or a precomputed scores file is malformed: bad JSON, CSV or UTF-8, a field "
        "absent or of the wrong type, a repeated id (InputError, naming the file, record and field).",
        "correct the file the cell's message names (file, record and field), or fetch it again "
        "(`vlc-harness data fetch -b ID`); `vlc-harness --debug` shows where it was read",
    )
    # why a worker failed (``failed``)
    OUT_OF_MEMORY = (
        "out_of_memory",
        "out of memory",
        "The evaluation ran out of memory.",
        "The model ran out of memory (CUDA or host).",
        "use a smaller `run.batch_size`, a lower precision or a larger device",
    )
    TIMEOUT = (
        "timeout",
        "worker made no progress",
        "The evaluation stopped making progress and was stopped.",
        "The worker made no progress for ``run.timeout_s`` and was stopped.",
        "raise `run.timeout_s`, or find why the model stopped making progress",
    )
    WORKER_DIED = (
        "worker_died",
        "worker died",
        None,
        "The worker process died (a signal, an exit) without reporting an error.",
        "find why the worker process died (a crash in native code, the system's memory killer)",
    )
    WORKER_ERROR = (
        "worker_error",
        "worker error",
        None,
        "The model raised an error of no more specific kind while loading or scoring.",
        _PLUGIN,
    )
    MODEL_ERROR = (
        "model_error",
        "model plugin error",
        None,
        "The model's plugin failed before any work (``identify()`` raised).",
        _PLUGIN,
    )
    BENCHMARK_ERROR = (
        "benchmark_error",
        "benchmark plugin error",
        None,
        "The benchmark's plugin failed to load its instances (a bug, duplicate instance ids).",
        _PLUGIN,
    )
    # why instances could not be scored (``failed``)
    INSTANCES_FAILED = (
        "instances_failed",
        "instances not scored",
        _INSTANCES,
        "Some instances could not be scored, for more than one kind of reason.",
        "read why each instance failed (`vlc-harness show`)",
    )
    SCORES_MISSING = (
        "scores_missing",
        "scores missing from the scores file",
        "The model's scores file has no score for some of this benchmark's pairs, so no number is published.",
        "A scores file has no score for the pairs (a precomputed model, submitted or not).",
        "submit a scores file that covers every needed pair (`vlc-harness instances -b ID`)",
    )
    SCORE_ERROR = (
        "score_error",
        "non-finite scores",
        _INSTANCES,
        "The model returned a score that is not a finite number.",
        "fix the model: it returned non-finite scores (NaN or infinity) for some inputs; the cells' messages "
        "name them, and its conformance checks (`pytest --vlc-types TYPE`) try generated captions and images",
    )
    IMAGE_ERROR = (
        "image_error",
        "images missing or unreadable",
        _INSTANCES,
        "An image the instances need is missing or cannot be decoded.",
        "get the benchmark's images (`vlc-harness data fetch -b ID`); the messages name the files",
    )
    PAIR_ERROR = (
        "pair_error",
        "pairs without a score",
        _INSTANCES,
        "The model reported a pair as having no score (PairError).",
        "read why the model declined the pairs (`vlc-harness show`)",
    )
    NOT_COMPUTED = (
        "not_computed",
        "scores never computed",
        _INSTANCES,
        "A score or answer was never computed (the worker stopped before it).",
        "run again: the worker stopped before computing them",
    )
    # why a cell is partial or skipped
    LIMITED = (
        "limited",
        "limited run",
        None,
        "``--limit`` was given: only part of the benchmark was scored.",
        "drop --limit for a complete cell",
    )
    REQUEST_FAILED = (
        "request_failed",
        "API requests failed",
        None,
        "API requests failed (network, rate limit, malformed replies); a rerun asks them again.",
        "run again (failed requests are asked again); check the API's status and rate limits",
    )
    REQUEST_DEADLINE = (
        "request_deadline",
        "API requests past their deadline",
        None,
        "API requests were still running at their wall-clock deadline (``request_deadline_s``), retries included.",
        "raise `run.request_deadline_s`, or run again",
    )
    REPLY_TOO_LARGE = (
        "reply_too_large",
        "API replies over their size cap",
        None,
        "API replies were over ``max_reply_bytes``, or their answer text over ``max_answer_chars``: not kept.",
        "raise `run.max_reply_bytes` or `run.max_answer_chars`, if the replies are legitimate",
    )
    BUDGET_SPENT = (
        "budget_spent",
        "cost budget spent",
        None,
        "The ``--max-cost`` budget stopped the requests.",
        "raise --max-cost, or run again to spend the rest",
    )
    NOT_APPLICABLE = (
        "not_applicable",
        "protocol does not apply",
        Status.SKIPPED.reader,
        "The model's protocol does not apply to the benchmark (``skipped``).",
        "choose a model whose protocol applies to the benchmark (`vlc-harness plan` says which)",
    )
    OTHER = (
        "other",
        "other",
        None,
        "No more specific code: a third party's Unavailable, or an old cell whose text named no known cause "
        "(see vlc_harness.store.migrations).",
        "read the cells' messages (`vlc-harness show`)",
    )


def public_reason(status: str, code: str | None, failed: int = 0, instances: int = 0, submitted: bool = False) -> str:
    """Why a cell shows no number, as one sentence for readers: the words of its reason code, else
    of its status. It reads no message: the full reason stays in the store, ``show`` and the JSON.

    Where the cell counts them, ``failed`` of its ``instances`` are named (a scores file missing 94 of
    7,512 is not one with no scores for the benchmark); ``submitted``: the model's entry is a lab's
    submitted scores (``meta.submitted``), the only case its scores file is called submitted."""
    reason = Reason._value2member_map_.get(code or "")
    if reason is Reason.SCORES_MISSING:
        file = "The submitted scores file" if submitted else "The model's scores file"
        if instances and failed >= instances:
            return f"{file} has no scores for this benchmark."
        if instances and failed:
            counted = f"{failed:,} of this benchmark's {instances:,} instances"
            return f"{file} has no score for {counted}, so no number is published."
        return file + Reason.SCORES_MISSING.reader.removeprefix("The model's scores file")  # type: ignore[union-attr]
    if isinstance(reason, Reason) and reason.reader == _INSTANCES and instances and failed:
        return f"{failed:,} of {instances:,} instances could not be scored ({reason.label}), so no number is published."
    if isinstance(reason, Reason) and reason.reader:
        return reason.reader
    known = Status._value2member_map_.get(status)
    return known.reader if isinstance(known, Status) else "No published result for this cell."


def label_of(code: str | None, status: str) -> str:
    """The few words a run prints for a reason code (else the cell's status)."""
    reason = Reason._value2member_map_.get(code or "")
    return reason.label if isinstance(reason, Reason) else str(status)
