"""What the published site may say: reasons phrased for readers, and no local path anywhere.

A cell that is not published keeps its full reason in the store; ``vlc-harness show`` prints it as
it is. The site shows :func:`public_reason` instead: one plain sentence per kind of problem, with
no local path, environment variable or stack trace. Where a technical text must ship (the JSON
download, per-instance errors, a model id that is an inline spec holding a path),
:func:`redact_paths` replaces every local path by ``<local folder>/`` and the file's name.
"""

from __future__ import annotations

import hashlib
import re

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

_PATTERNS: tuple[tuple[str, re.Pattern[str], str], ...] = (
    (
        "",
        re.compile(r"hugging ?face|huggingface\.co|HF_HUB_OFFLINE|hub cache|local_files_only|gated repo", re.I),
        "Not evaluated: the model's weights could not be downloaded when this board was built.",
    ),
    (
        "",
        re.compile(r"data is not ready|data files? (?:is|are) missing|missing .*\(get |not under the data root", re.I),
        "Not evaluated: the benchmark's data files were not present when this board was built.",
    ),
    (
        "",
        re.compile(r"has no score for|precomputed scores file", re.I),
        "The submitted scores file has no scores for this benchmark.",
    ),
    (
        "",
        re.compile(r"API key|OPENAI_API_KEY|api_key|401|unauthori[sz]ed", re.I),
        "Not evaluated: this API model was not queried for this board.",
    ),
    (
        "",
        re.compile(r"out of memory|OOM\b|MemoryError", re.I),
        "The evaluation ran out of memory.",
    ),
    (
        "",
        re.compile(r"timed? ?out|no progress|timeout_s", re.I),
        "The evaluation stopped making progress and was stopped.",
    ),
    (
        "",
        re.compile(r"requires? [\w.-]+ ?(?:>=|==|version)|needs [\w.-]+ (?:>=|version)|version .* needed", re.I),
        "Not evaluated: the software versions on the build machine cannot run this model.",
    ),
    (
        "skipped",
        re.compile(r".*", re.S),
        _GENERIC["skipped"],
    ),
)


def public_reason(status: str, raw: str | None) -> str:
    """Why a cell shows no number, as one sentence for readers: no local path, no environment
    variable, no exception text (the full reason stays in the store, ``show`` and the JSON)."""
    text = (raw or "").strip()
    for only, pattern, phrase in _PATTERNS:
        if only and status != only:
            continue
        if text and pattern.search(text):
            return phrase
    if status == "partial":
        return _GENERIC["partial"]
    if status == "failed" and re.search(r"instance", text, re.I) and re.search(r"\d+ of \d+|some", text):
        return "Some instances could not be scored, so no number is published."
    return _GENERIC.get(status, "No published result for this cell.")
