"""The ``embed`` engine's chunks: which images, text pairs and text vectors each chunk handles.

Images are taken in chunks of consecutive tasks. A text-text pair is scored in the first chunk
where both of its texts' vectors are at hand: the later of the chunks that first need each text
for an image (so a text used by images is encoded once, for both), or, when neither text is
scored against an image in this job (the image-text scores are stored already), in a chunk of
text pairs only after the image chunks. A text's vector is kept from the chunk that first needs
it to the last one, and dropped then.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from vlc_harness.run.jobs import ImageTask


@dataclass
class Chunk:
    """Consecutive image tasks and the text pairs scored with them."""

    tasks: Sequence[ImageTask] = ()
    pairs: list[tuple[str, str]] = field(default_factory=list)

    def texts(self) -> list[str]:
        """Every text whose vector this chunk reads, in first-use order, each once."""
        out: dict[str, None] = {}
        for task in self.tasks:
            out.update(dict.fromkeys(task.texts))
        for a, b in self.pairs:
            out.update(dict.fromkeys((a, b)))
        return list(out)


def plan_chunks(tasks: Sequence[ImageTask], text_pairs: Sequence[tuple[str, str]], size: int) -> list[Chunk]:
    """Chunks of at most ``size`` image tasks, then of at most ``size`` text pairs that no image
    task's texts hold (see the module docstring)."""
    size = max(1, size)
    chunks = [Chunk(tasks[start : start + size]) for start in range(0, len(tasks), size)]
    first: dict[str, int] = {}
    for c, chunk in enumerate(chunks):
        for task in chunk.tasks:
            for text in task.texts:
                first.setdefault(text, c)
    rest: list[tuple[str, str]] = []
    for a, b in text_pairs:
        c = max(first.get(a, -1), first.get(b, -1))
        if c < 0:
            rest.append((a, b))
        else:
            chunks[c].pairs.append((a, b))
    chunks += [Chunk((), rest[start : start + size]) for start in range(0, len(rest), size)]
    return chunks


def last_uses(chunks: Sequence[Chunk]) -> dict[str, int]:
    """Per text, the index of the last chunk that reads its vector."""
    out: dict[str, int] = {}
    for c, chunk in enumerate(chunks):
        for text in chunk.texts():
            out[text] = c
    return out
