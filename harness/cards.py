"""A benchmark's card: what the board shows about it, declared in one place."""

from __future__ import annotations

from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class BenchmarkCard:
    """What the board shows about a benchmark, and where its numbers come from.

    A benchmark class sets ``card = BenchmarkCard(...)``; each field becomes the class attribute of the
    same name (``title``, ``headline``, ...), which is what the harness and the board read, so a
    benchmark that sets those attributes one by one works the same. A misspelt field fails at import.
    """

    title: str
    citation: str
    headline: str
    """Metric id of the headline number."""
    headline_source: str
    """The paper table or figure the headline reproduces, with the file or page, or ``ours: ...`` and why
    no paper reports it (shown next to the headline; the conformance checks require it)."""
    homepage: str = ""
    license: str = ""
    index_metrics: tuple[str, ...] = ()
    """Metric ids the index shows beside the headline (e.g. brittleness)."""
    gap_metrics: tuple[str, str] | None = None
    """``(image-to-text, text-to-image)`` metric ids whose difference is the directional gap."""
    captions_redistributable: bool = False
    """Whether the data license allows publishing captions next to scores."""
    image_pools: tuple[str, ...] = ()
    """The image pools (:data:`vlc_harness.overlap.POOLS`) the images are drawn from (training-overlap marks)."""
    reference_file: Path | None = None
    """JSON file of paper-reported :class:`~vlc_harness.types.ReferenceRow` data beside the plugin."""


def apply_card(cls: type) -> None:
    """Copy the card a class declares itself into its class attributes (refusing one also set directly)."""
    card: Any = vars(cls).get("card")
    if card is None:
        return
    for field in fields(BenchmarkCard):
        if field.name in vars(cls):
            raise TypeError(f"{cls.__name__} sets {field.name} both in its card and as an attribute")
        setattr(cls, field.name, getattr(card, field.name))
