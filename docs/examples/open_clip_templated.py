"""open_clip with a caption template: scores "a photo of {caption}" instead of the raw caption.

A complete model plugin. Put it in plugins/models/ (built in) or any package with a
``vlc_harness`` entry point, add a registry.yaml entry with ``type: open_clip_templated``,
and nothing else changes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from vlc_harness import hookimpl
from vlc_harness.models import Identity
from vlc_harness_builtins.models.openclip import OpenClip


@dataclass(frozen=True)
class TemplatedParams:
    """The open_clip params plus the template (all fingerprinted: they change the scores)."""

    arch: str | dict
    pretrained: str | None = None
    template: str = "a photo of {}"
    precision: Literal["fp32", "fp16", "bf16"] = "fp32"
    force_quick_gelu: bool = False
    init_seed: int = 0


class OpenClipTemplated(OpenClip):
    """An open_clip model that wraps every caption in a template before encoding it."""

    type_name = "open_clip_templated"
    Params = TemplatedParams

    def identify(self) -> Identity:
        base = super().identify()
        return Identity(base.weights, base.dtype, f"embed/cosine/template={self.params.template}")

    def embed_texts(self, texts: list[str]) -> np.ndarray:
        return super().embed_texts([self.params.template.format(t) for t in texts])


@hookimpl
def register_models(register: Any) -> None:
    """Register the templated open_clip model type."""
    register(OpenClipTemplated)
