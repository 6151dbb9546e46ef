"""What the published site may say: reasons phrased for readers, and no local path anywhere.

A cell that is not published keeps its full reason in the store; ``vlc-harness show`` prints it as
it is. The site shows :func:`public_reason` instead: one plain sentence per reason code (stored
with the cell where its error was raised, :mod:`vlc_harness.errors`), with no local path,
environment variable or stack trace; no message is matched to choose it. Where a technical text must ship (the JSON
download, per-instance errors, a model id that is an inline spec holding a path),
:func:`redact_paths` replaces every local path by ``<local folder>/`` and the file's name.
"""

from __future__ import annotations

import hashlib
import re

from vlc_harness import errors

LOCAL = "<local folder>"
"""What stands for the folders of a local path on the published site."""

_URL = re.compile(r"(?:https?|ftp)://[^\s'\"<>()]+")
_PATH = re.compile(
    r"""(?:^|(?<=[\s'"(=,\[{])|(?<=:)(?!//))"""  # after a separator, never a URL's '//'
    r"""(?:file://)?(?:~|[A-Za-z]:)?[/\\]"""  # '/', '~/', 'C:\' or file://
    r"""(?:[^\s'"()<>,;\[\]{}/\\]+[/\\])*"""  # folders
    r"""([^\s'"()<>,;\[\]{}/\\]*)"""  # the file's name (kept)
)


def redact_paths(text: str) -> str:
    """``text`` with every local path replaced by ``<local folder>/NAME`` (URLs are kept)."""
    if not text:
        return text
    out = []
    last = 0
    for url in _URL.finditer(text):
        out.append(_redact(text[last : url.start()]))
        out.append(url.group(0))
        last = url.end()
    out.append(_redact(text[last:]))
    return "".join(out)


def _redact(text: str) -> str:
    def replace(match: re.Match[str]) -> str:
        whole, name = match.group(0), match.group(1)
        if whole in ("/", "\\") or not whole.strip("/\\~"):
            return whole
        return f"{LOCAL}/{name}" if name else LOCAL

    return _PATH.sub(replace, text)


def has_local_path(text: str) -> bool:
    """Whether ``text`` holds a local path that :func:`redact_paths` would replace."""
    return redact_paths(text) != text


def public_id(model_id: str) -> str:
    """A model or benchmark id as the site shows it (an inline spec's local path redacted)."""
    return redact_paths(model_id)


def page_slug(model_id: str) -> str:
    """The file name (without extension) of a model's page and downloads: the id made file-safe;
    an id that held a local path gets its redacted form plus a short hash, so two checkpoints
    named alike in different folders keep different pages."""
    public = public_id(model_id)
    base = re.sub(r"[^A-Za-z0-9._-]+", "_", public).strip("_") or "_"
    if public != model_id:
        base += "-" + hashlib.sha256(model_id.encode("utf-8")).hexdigest()[:8]
    return base


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
    errors.NOT_APPLICABLE: _GENERIC["skipped"],
    errors.INSTANCES_FAILED: _INSTANCES,
    errors.SCORE_ERROR: _INSTANCES,
    errors.IMAGE_ERROR: _INSTANCES,
    errors.PAIR_ERROR: _INSTANCES,
    errors.NOT_COMPUTED: _INSTANCES,
}
"""The words of each reason code (:data:`vlc_harness.errors.REASONS`) that has its own; the
others (a worker's error, a missing package, ``--limit``, failed requests, ``other``) are worded
by the cell's status."""


def public_reason(status: str, code: str | None) -> str:
    """Why a cell shows no number, as one sentence for readers: the words of its reason code, else
    of its status. It reads no message: the full reason stays in the store, ``show`` and the JSON."""
    return _WORDS.get(code or "") or _GENERIC.get(status, "No published result for this cell.")
