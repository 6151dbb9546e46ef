"""What to do about the cells of a run that have no number, by their reason codes
(:class:`~vlc_harness.reasons.Reason`): the advice of ``run``'s exit paragraph
(:func:`vlc_harness.run.summary.exit_reason`), so that a run whose every cell failed on non-finite scores
is told to fix the model, not to fetch data and weights it already has.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from vlc_harness.reasons import Reason
from vlc_harness.store import CellRecord

_PLUGIN = "fix the plugin: the cells' messages (`vlc-harness show`) say where it raised"
_IMAGES = "get the benchmark's images (`vlc-harness data fetch -b ID`); the messages name the files"
FIXES: dict[Reason, str] = {
    Reason.DATA_MISSING: "get the benchmark's data (`vlc-harness data fetch -b ID`)",
    Reason.INPUT_MALFORMED: (
        "correct the file the cell's message names (file, record and field), or fetch it again "
        "(`vlc-harness data fetch -b ID`); `vlc-harness --debug` shows where it was read"
    ),
    Reason.MODEL_DATA_MISSING: (
        "get the data the model itself is built from (the files its params name, e.g. a fit set; "
        "`vlc-harness data fetch -b ID` of the benchmark it comes from, or set the path in its params)"
    ),
    Reason.WEIGHTS_MISSING: "get the weights (the network, or a Hugging Face cache: unset HF_HUB_OFFLINE)",
    Reason.GATED: "accept the weights' licence on the hub and set HF_TOKEN",
    Reason.WEIGHTS_MISMATCH: "use the weights the entry pins (the file at hand has another sha256)",
    Reason.VERSION_TOO_OLD: "upgrade the package the message names",
    Reason.PACKAGE_MISSING: "install the missing package (the extra or the `vlc-harness plugins install` it names)",
    Reason.AUTH: "set the API key the entry names (and check it is accepted)",
    Reason.OUT_OF_MEMORY: "use a smaller `run.batch_size`, a lower precision or a larger device",
    Reason.TIMEOUT: "raise `run.timeout_s`, or find why the model stopped making progress",
    Reason.WORKER_DIED: "find why the worker process died (a crash in native code, the system's memory killer)",
    Reason.WORKER_ERROR: _PLUGIN,
    Reason.MODEL_ERROR: _PLUGIN,
    Reason.BENCHMARK_ERROR: _PLUGIN,
    Reason.INSTANCES_FAILED: "read why each instance failed (`vlc-harness show`)",
    Reason.SCORES_MISSING: "submit a scores file that covers every needed pair (`vlc-harness instances -b ID`)",
    Reason.SCORE_ERROR: (
        "fix the model: it returned non-finite scores (NaN or infinity) for some inputs; the cells' messages "
        "name them, and its conformance checks (`pytest --vlc-types TYPE`) try generated captions and images"
    ),
    Reason.IMAGE_ERROR: _IMAGES,
    Reason.PAIR_ERROR: "read why the model declined the pairs (`vlc-harness show`)",
    Reason.NOT_COMPUTED: "run again: the worker stopped before computing them",
    Reason.LIMITED: "drop --limit for a complete cell",
    Reason.REQUEST_FAILED: "run again (failed requests are asked again); check the API's status and rate limits",
    Reason.REQUEST_DEADLINE: "raise `run.request_deadline_s`, or run again",
    Reason.REPLY_TOO_LARGE: "raise `run.max_reply_bytes` or `run.max_answer_chars`, if the replies are legitimate",
    Reason.BUDGET_SPENT: "raise --max-cost, or run again to spend the rest",
    Reason.NOT_APPLICABLE: "choose a model whose protocol applies to the benchmark (`vlc-harness plan` says which)",
    Reason.OTHER: "read the cells' messages (`vlc-harness show`)",
}
"""The fix of each reason code (every code has one: a test holds the table complete)."""


def fixes_for(cells: Iterable[CellRecord], k: int = 3) -> str:
    """The fixes of the most frequent reason codes among ``cells`` (each once, the commonest first), as
    one sentence; the plain advice to read the messages when no cell has a known code."""
    counts = Counter(c.reason_code for c in cells if c.reason_code)
    seen: list[str] = []
    for code, _ in counts.most_common():
        reason = Reason._value2member_map_.get(str(code))
        fix = FIXES.get(reason) if isinstance(reason, Reason) else None
        if fix and fix not in seen:
            seen.append(fix)
    if not seen:
        return "Read the cells' messages (`vlc-harness show`)"
    text = "; ".join(seen[:k])
    return text[0].upper() + text[1:]
