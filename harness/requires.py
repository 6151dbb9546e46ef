"""What a plugin type needs installed and which installed distributions can change its scores,
declared once, on the class (``requires = Requires(...)``).

The nightly installs from it (the extras, the ``--no-deps`` packages, the spaCy pipelines of the
registry's types); the distributions named in :attr:`Requires.scoring` are the versions that can
change a stored number, which ``constraints.txt`` pins. A registry entry's params can add to its
class's declaration (:meth:`Requires.for_params`: ARO's Order tasks name the spaCy pipeline they tag
with in their ``tagger`` param).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

SPACY_DEFAULT = "en_core_web_sm"
"""The spaCy pipeline a bare ``spacy`` tagger value means."""


def _merged(*parts: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(name for part in parts for name in part))


@dataclass(frozen=True)
class Requires:
    """A type's installation needs and scoring stack.

    ``extras`` are vlc-harness's optional-dependency extras that install what the type imports
    (built-in types; a third party's plugin package declares its own dependencies and needs none);
    ``no_deps`` are distributions installed without their dependencies beside them (``t2v_metrics``
    pins an old stack); ``spacy_models`` are spaCy pipelines it loads; ``scoring`` are the
    distributions whose installed versions can change its scores; ``spacy_model_param`` names a
    param whose value ``spacy:<pipeline>`` (``spacy`` alone: :data:`SPACY_DEFAULT`) adds a pipeline.
    """

    extras: tuple[str, ...] = ()
    no_deps: tuple[str, ...] = ()
    spacy_models: tuple[str, ...] = ()
    scoring: tuple[str, ...] = ()
    spacy_model_param: str | None = None

    def for_params(self, params: Any) -> Requires:
        """What an entry with ``params`` needs: this declaration plus the pipeline its params name."""
        if self.spacy_model_param is None:
            return self
        value = str(getattr(params, self.spacy_model_param, "") or "")
        if value != "spacy" and not value.startswith("spacy:"):
            return self  # e.g. a table of tags read from a file
        return self | Requires(spacy_models=(value.partition(":")[2] or SPACY_DEFAULT,))

    def __or__(self, other: Requires) -> Requires:
        """Both declarations at once (each name once, in order)."""
        return Requires(
            extras=_merged(self.extras, other.extras),
            no_deps=_merged(self.no_deps, other.no_deps),
            spacy_models=_merged(self.spacy_models, other.spacy_models),
            scoring=_merged(self.scoring, other.scoring),
            spacy_model_param=self.spacy_model_param or other.spacy_model_param,
        )


IMAGES = Requires(scoring=("numpy", "Pillow"))
"""Every type that reads images: the harness decodes them with Pillow into numpy arrays."""
TORCH = IMAGES | Requires(scoring=("torch", "torchvision"))
"""A torch model (kernels, and torchvision's resizing and cropping where a processor uses it)."""
OPEN_CLIP = TORCH | Requires(extras=("openclip",), scoring=("open_clip_torch", "timm", "ftfy", "regex"))
"""open_clip: model configs, pretrained tags, its tokenizer (ftfy and regex clean text) and timm towers."""
TRANSFORMERS = TORCH | Requires(extras=("hf",), scoring=("transformers", "tokenizers", "sentencepiece"))
"""transformers: modelling code, processors and tokenizers."""
BLIND_TRANSFORMERS = Requires(extras=("hf",), scoring=("numpy", "torch", "transformers", "tokenizers", "sentencepiece"))
"""A transformers model that reads text only (no image processing)."""
