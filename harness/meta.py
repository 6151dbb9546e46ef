"""The ``meta`` of registry entries: what the board shows about a model or a benchmark.

Every key is optional and checked on load, as params are: an unknown key, a value of the wrong
type, a link that is not ``http(s)`` or an unknown training image pool is an error naming the file,
line and key. ``meta`` is not fingerprinted: it never changes a score.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any
from urllib.parse import urlparse

from vlc_harness.overlap import UNDISCLOSED, check_pools
from vlc_harness.params import ParamError, build


@dataclass(frozen=True)
class ModelMeta:
    """A model entry's ``meta``."""

    display_name: str | None = None
    """The name the board shows (default: the entry id)."""
    family: str | None = None
    """What it belongs to, e.g. ``CLIP (WIT-400M)``; ``baseline`` marks a baseline row."""
    parameters_m: float | None = None
    """Parameters, in millions."""
    open_weights: bool | None = None
    license: str | None = None
    source: str | None = None
    """Who released it."""
    description: str | None = None
    """One or two sentences for the model page."""
    homepage: str | None = None
    """An http(s) link."""
    paper: str | None = None
    """An http(s) link to the paper."""
    links: dict[str, str] | None = None
    """More http(s) links by title, e.g. ``{code: https://..., weights: https://...}``."""
    download: str | None = None
    """Where to get weights the harness cannot download itself (an http(s) link)."""
    verified: bool | None = None
    """Whether someone ran this entry on real weights and compared it with its paper rows."""
    paper_match: str | None = None
    """The ``matches`` key of the paper-reported rows this entry should reproduce."""
    paper_params: dict[str, Any] | None = None
    """Params with which the authors' evaluation behind ``paper_match`` loaded the model, where it
    differs from this entry (``{quick_gelu: false}``): ``vlc-harness verify`` compares the paper rows
    with the entry run with these (its own fingerprint), and the board does not show them next to
    this entry's own values (:func:`vlc_harness.verify.board_paper_match`)."""
    trained_on: tuple[str, ...] | None = None
    """Training image pools (``vlc_harness.overlap.POOLS``, or ``undisclosed``)."""
    submitted: bool | None = None
    """Scores submitted by a lab (precomputed), not reproduced here."""
    reproduces: str | None = None
    """The upstream evaluation whose scoring this entry follows: repository, file (and line) at a
    commit, e.g. ``RAIVNLab/sugar-crepe main_eval.py @0047054``; ``ours`` when none exists."""
    differs: str | None = None
    """Where this entry deliberately scores differently from that evaluation, and why; shown on the
    model page. Absent means: no known difference."""
    note: str | None = None


@dataclass(frozen=True)
class BenchmarkMeta:
    """A benchmark entry's ``meta``."""

    display_name: str | None = None
    description: str | None = None
    homepage: str | None = None
    note: str | None = None
    """Shown on the benchmark page (a caveat, what is left out)."""


LINK_KEYS = ("homepage", "paper", "download")


def check_meta(cls: type[Any], raw: Mapping[str, Any] | None, path: str) -> dict[str, Any]:
    """The validated ``meta`` (only the keys given, as plain values); raises :class:`ParamError`."""
    built = build(cls, raw, path)
    out = {f.name: getattr(built, f.name) for f in fields(built) if f.name in (raw or {})}
    for key in LINK_KEYS:
        if out.get(key) is not None:
            _check_link(out[key], f"{path}.{key}")
    for title, url in (out.get("links") or {}).items():
        if not isinstance(title, str) or not isinstance(url, str):
            raise ParamError(f"{path}.links", "expected a mapping of titles to http(s) links")
        _check_link(url, f"{path}.links.{title}")
    if out.get("trained_on") is not None:
        try:
            check_pools(out["trained_on"], f"{path}.trained_on", allow_undisclosed=True)
        except ValueError as exc:
            raise ParamError(f"{path}.trained_on", str(exc).split(": ", 1)[-1]) from None
        out["trained_on"] = list(out["trained_on"])
    return out


def _check_link(url: str, path: str) -> None:
    parsed = urlparse(url)
    if parsed.scheme not in ("http", "https") or not parsed.netloc:
        raise ParamError(path, f"expected an http(s) link, got {url!r}")


__all__ = ["UNDISCLOSED", "BenchmarkMeta", "ModelMeta", "check_meta"]
