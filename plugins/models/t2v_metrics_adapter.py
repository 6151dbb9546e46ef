"""Optional adapter: t2v_metrics' own scorers (VQAScore, ITMScore, CLIPScore) as a pair-scoring model.

Registered only where the ``t2v_metrics`` package is installed (checked with
:func:`importlib.util.find_spec`, so listing plugins imports nothing heavy); elsewhere declared
unavailable with its class, so that the registry's JSON Schema describes its params either way. It cannot be installed
beside a current stack: its wheel pins ``torch==2.5.1``, ``transformers==4.49.0`` and an unrelated
PyPI ``apex``, and ``import t2v_metrics`` needs ``ffmpeg`` on PATH and LLaVA-NeXT installed by hand
(it imports them eagerly). Use it from its own environment, with vlc-harness installed there, to
compare the built-in :mod:`vlc_harness_builtins.models.vqascore` /
:mod:`vlc_harness_builtins.models.clip_flant5` scorers with the reference implementation. Where the
package is found but does not import, the cells are ``unavailable`` with the import error as the reason.

t2v_metrics reads images from files, so each image is written once, losslessly (PNG), to a
temporary folder. Its models download their own weights by name (into ``./hf_cache/`` relative to
the working directory, unless configured); the identity names the package version and model name,
not a hub commit.
"""

from __future__ import annotations

import hashlib
import importlib.util
from dataclasses import dataclass
from typing import Any, Literal

from vlc_harness import hookimpl
from vlc_harness.errors import WeightsUnavailable
from vlc_harness.models import Identity, PairGroup, PairScoringModel
from vlc_harness.reasons import Reason
from vlc_harness.requires import TRANSFORMERS, Requires

MISSING_MESSAGE = (
    "model type t2v_metrics needs the t2v_metrics package, which is not installed here; it cannot be "
    "installed beside this stack (it pins torch==2.5.1 and transformers==4.49.0, pulls an unrelated PyPI "
    "'apex', and its import needs ffmpeg and a hand-installed LLaVA-NeXT). Install it with vlc-harness in "
    "a separate environment, or use the built-in types vqascore, clip_flant5 and captioning_likelihood."
)
SCORE_CLASSES = {"vqascore": "VQAScore", "itmscore": "ITMScore", "clipscore": "CLIPScore"}


def t2v_metrics_found() -> bool:
    """Whether the t2v_metrics package is installed (without importing it)."""
    return importlib.util.find_spec("t2v_metrics") is not None


@dataclass(frozen=True)
class T2vMetricsParams:
    """Which t2v_metrics scorer and model, and (VQAScore only) the question and answer templates."""

    model: str = "clip-flant5-xxl"
    score: Literal["vqascore", "itmscore", "clipscore"] = "vqascore"
    question_template: str | None = None
    """``None``: t2v_metrics' default (``Does this figure show "{}"? Please answer yes or no.``)."""
    answer_template: str | None = None
    """``None``: t2v_metrics' default (``Yes``)."""


class T2vMetrics(PairScoringModel):
    """A t2v_metrics scorer (``t2v_metrics.VQAScore`` and friends) run through its own package."""

    type_name = "t2v_metrics"
    requires = TRANSFORMERS | Requires(no_deps=("t2v_metrics",), scoring=("t2v_metrics",))
    Params = T2vMetricsParams

    @classmethod
    def conformance_example(cls, tmp_path: Any) -> dict[str, Any] | None:
        """None: t2v_metrics downloads its models' weights by name, so no example runs offline (and
        beside this stack the package does not import: its cells are ``unavailable``)."""
        return None

    def _package(self) -> Any:
        try:
            import t2v_metrics
        except Exception as exc:  # ffmpeg missing, LLaVA-NeXT missing, version clashes
            raise WeightsUnavailable(
                f"t2v_metrics is installed but does not import here: {type(exc).__name__}: {exc}",
                Reason.PACKAGE_MISSING,
            ) from None
        return t2v_metrics

    def identify(self) -> Identity:
        """Package version, scorer and model name (t2v_metrics resolves the weights itself)."""
        from importlib.metadata import PackageNotFoundError, version

        package = self._package()
        try:
            release = version("t2v-metrics")
        except PackageNotFoundError:
            release = str(getattr(package, "__version__", "unknown"))
        templates = {"question": self.params.question_template, "answer": self.params.answer_template}
        return Identity(
            f"t2v_metrics=={release}:{self.params.score}:{self.params.model}",
            "t2v_metrics-default",
            f"score_pairs/t2v_metrics/{self.params.score}",
            {"templates": templates, "weights": "resolved by t2v_metrics by model name (not pinned)"},
        )

    def load(self, device: str) -> None:
        """Build the t2v_metrics scorer and a folder for the image files it reads."""
        import tempfile

        package = self._package()
        cls = getattr(package, SCORE_CLASSES[self.params.score])
        self._model = cls(model=self.params.model, device=device)
        self._folder = tempfile.TemporaryDirectory(prefix="vlc-t2v-")

    def score_pairs(self, groups: list[PairGroup]) -> list[list[float]]:
        """One call per image with all its texts; each image written once as PNG."""
        import math
        from pathlib import Path

        kwargs: dict[str, str] = {}
        if self.params.score == "vqascore":
            if self.params.question_template is not None:
                kwargs["question_template"] = self.params.question_template
            if self.params.answer_template is not None:
                kwargs["answer_template"] = self.params.answer_template
        out = []
        for group in groups:
            path = Path(self._folder.name) / (hashlib.sha256(group.image_key.encode()).hexdigest()[:32] + ".png")
            if not path.is_file():
                group.image.save(path, format="PNG")
            scores = self._model(images=[str(path)], texts=list(group.texts), **kwargs)
            row = [float(s) for s in _row(scores)]
            if len(row) != len(group.texts) or not all(math.isfinite(s) for s in row):
                raise ValueError(f"t2v_metrics returned {row!r} for {len(group.texts)} texts")
            out.append(row)
        return out

    def close(self) -> None:
        """Remove the image files."""
        folder = getattr(self, "_folder", None)
        if folder is not None:
            folder.cleanup()


def _row(scores: Any) -> list[Any]:
    """The first (only) image's row of t2v_metrics' ``[images, texts]`` score matrix."""
    values = scores.tolist() if hasattr(scores, "tolist") else scores
    return list(values[0])


@hookimpl
def register_models(register: Any) -> None:
    """Register the t2v_metrics adapter only where the package is installed."""
    if t2v_metrics_found():
        register(T2vMetrics)
        return
    note = getattr(register, "unavailable", None)  # a registrar that can explain a missing type
    if callable(note):
        note(T2vMetrics.type_name, MISSING_MESSAGE, T2vMetrics)  # the class imports nothing of the package
