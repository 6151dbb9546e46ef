"""vlc-harness core: types, plugin hooks, registry, score store, scheduler and CLI.

Import what plugins need from here::

    from vlc_harness import hookimpl
    from vlc_harness.models import EmbeddingModel, PairScoringModel, TextOnlyModel, Identity
    from vlc_harness.benchmarks import Benchmark

and evaluate from Python (a training loop, a notebook) with :func:`evaluate`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from vlc_harness.hookspecs import hookimpl

if TYPE_CHECKING:
    from vlc_harness.api import Results

__all__ = ["evaluate", "hookimpl"]


def evaluate(*args: Any, **kwargs: Any) -> Results:
    """Evaluate one model on benchmarks; see :func:`vlc_harness.api.evaluate`."""
    from vlc_harness.api import evaluate as _evaluate

    return _evaluate(*args, **kwargs)
