"""What the published site may say: reasons phrased for readers, and no local path anywhere.

A cell that is not published keeps its full reason in the store; ``vlc-harness show`` prints it as
it is. The site shows :func:`public_reason` instead, from the results API
(:mod:`vlc_harness.reasons`): one plain sentence per reason code (stored with the cell
where its error was raised, :mod:`vlc_harness.errors`), with no local path, environment variable
or stack trace; no message is matched to choose it. Where a technical text must ship (the JSON
download, per-instance errors, a model id that is an inline spec holding a path),
:func:`redact_paths` replaces every local path by ``<local folder>/`` and the file's name.
"""

from __future__ import annotations

import functools
import hashlib
import re

from vlc_harness.results import public_reason
from vlc_harness.site_names import file_name

__all__ = ["LOCAL", "has_local_path", "page_slug", "public_id", "public_reason", "redact_paths"]

LOCAL = "<local folder>"
"""What stands for the folders of a local path on the published site."""

_URL = re.compile(r"(?:https?|ftp)://[^\s'\"<>()]+")
_PATH = re.compile(
    r"""(?:^|(?<=[\s'"(=,\[{])|(?<=:)(?!//))"""  # after a separator, never a URL's '//'
    r"""(?:file://)?(?:~|[A-Za-z]:)?[/\\]"""  # '/', '~/', 'C:\' or file://
    r"""(?:[^\s'"()<>,;\[\]{}/\\]+[/\\])*"""  # folders
    r"""([^\s'"()<>,;\[\]{}/\\]*)"""  # the file's name (kept)
)


@functools.lru_cache(maxsize=1 << 18)  # the same instance ids, once per model in the downloads
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
    base = file_name(public)  # the core's rule, which the registry checks for collisions
    if public != model_id:
        base += "-" + hashlib.sha256(model_id.encode("utf-8")).hexdigest()[:8]
    return base
