"""open_clip contrastive models: any architecture name and pretrained tag, or an inline config.

``params``:

* ``arch``: an open_clip model name (``ViT-B-32``, ``hf-hub:org/repo``, ``local-dir:/path``) or
  an inline model config dict in open_clip's JSON format (``embed_dim``, ``vision_cfg``,
  ``text_cfg``).
* ``pretrained``: a pretrained tag (``openai``, ``laion2b_s34b_b79k``), a local checkpoint path,
  or ``null`` for random initialisation from ``init_seed`` (tests and benches only).
* ``precision``: ``fp32`` (the only choice on CPU), or ``fp16``/``bf16`` autocast on CUDA.
* ``force_quick_gelu``: QuickGELU activations whatever the config says. A model is loaded with the
  activation it was trained with by naming the config open_clip lists its tag under (OpenAI's
  weights: ``ViT-B-32-quickgelu``, whose tag declares ``quick_gelu``; DataComp's: ``ViT-B-32``, GELU);
  the flag reproduces an evaluation that loaded a model otherwise (``meta.paper_params``).

``identify()`` also checks the Hugging Face repositories the text side reads (a transformers text
tower's config, an HF tokenizer: :mod:`vlc_harness_builtins.models.openclip_repos`), so that what
is missing offline makes the cells ``unavailable``, naming it.

Scoring is SugarCrepe's reference protocol: the raw caption (no template) through open_clip's
tokenizer, the default eval image transform, and cosine similarity of L2-normalised embeddings.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import os
import pickle
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np

from vlc_harness import hookimpl
from vlc_harness.kit.precision import autocast, check_precision
from vlc_harness.kit.weights import dir_identity, file_identity, hub_identity, pinned_revision
from vlc_harness.models import EmbeddingModel, Identity, RunOptions
from vlc_harness.requires import OPEN_CLIP
from vlc_harness.types import canonical_json
from vlc_harness_builtins.models.openclip_repos import check_text_repos
from vlc_harness_builtins.models.versions import check_open_clip_name, require_open_clip_model

HF_WEIGHT_FILES = ("open_clip_model.safetensors", "open_clip_pytorch_model.bin")


@dataclass(frozen=True)
class OpenClipParams:
    """Which open_clip model, which weights, which precision."""

    arch: str | dict
    pretrained: str | None = None
    precision: Literal["fp32", "fp16", "bf16"] = "fp32"
    force_quick_gelu: bool = False
    init_seed: int = 0


@dataclass(frozen=True)
class OpenClipRun(RunOptions):
    """Run options: ``truncate_text`` runs a causal text tower only up to each batch's longest
    caption instead of the padded context (exact up to float rounding; never applied to
    bidirectional towers, where padding changes the result)."""

    truncate_text: bool = True


class OpenClip(EmbeddingModel):
    """A contrastive model from open_clip scored by cosine similarity."""

    type_name = "open_clip"
    requires = OPEN_CLIP
    similarity = "cosine"
    Params = OpenClipParams
    Run = OpenClipRun
    run: OpenClipRun

    @classmethod
    def check_params(cls, params: OpenClipParams) -> None:
        """An unknown architecture name or a missing checkpoint file is a usage error at load."""
        arch = params.arch
        if isinstance(arch, str) and arch.startswith("local-dir:"):
            if not Path(arch[len("local-dir:") :]).is_dir():
                raise ValueError(f"arch {arch!r}: no such folder")
        elif isinstance(arch, str) and not arch.startswith("hf-hub:"):
            check_open_clip_name(arch)
        pretrained = getattr(params, "pretrained", None)  # open_clip_tuned names a `checkpoint` instead
        if pretrained and ("/" in pretrained or Path(pretrained).suffix) and not os.path.isfile(pretrained):
            raise ValueError(f"pretrained {pretrained!r} looks like a checkpoint path, but no such file exists")

    def _model_name(self) -> str:
        arch = self.params.arch
        return arch if isinstance(arch, str) else register_inline_config(arch)

    def identify(self) -> Identity:
        """Hub revision of a tag, sha256 of a local checkpoint, or the seed of a random init (after
        checking the repositories the text side reads)."""
        pretrained = self.params.pretrained
        protocol = "embed/cosine/raw-caption"
        arch = self.params.arch
        if isinstance(arch, str) and not arch.startswith(("hf-hub:", "local-dir:")):
            # a model this open_clip (or timm) does not know yet is unavailable, naming the version it needs
            tag = pretrained if pretrained is not None and not os.path.isfile(pretrained) else None
            require_open_clip_model(arch, tag)
        if pretrained is None:
            arch = self.params.arch
            if isinstance(arch, str) and arch.startswith("hf-hub:"):
                weights = hub_identity(arch[len("hf-hub:") :], HF_WEIGHT_FILES, needs=(("open_clip_config.json",),))
            elif isinstance(arch, str) and arch.startswith("local-dir:"):
                weights = "local-dir:" + dir_identity(Path(arch[len("local-dir:") :]))
            else:  # the installed torch's version, read without importing it
                torch_version = importlib.metadata.version("torch").split("+")[0]
                weights = f"random-init:seed={self.params.init_seed}:torch={torch_version}"
        elif os.path.isfile(pretrained):
            weights = file_identity(pretrained)
        else:
            weights = self._tag_identity(pretrained)
        check_text_repos(arch, pinned_revision(weights))
        return Identity(weights=weights, dtype=self.params.precision, protocol=protocol)

    def _tag_identity(self, tag: str) -> str:
        import open_clip

        name = self._model_name()
        cfg = open_clip.get_pretrained_cfg(name, tag)
        if not cfg:
            known = ", ".join(open_clip.list_pretrained_tags_by_model(name)) or "(none)"
            raise ValueError(f"pretrained {tag!r} is neither a file nor a tag of {name}; tags: {known}")
        hub = cfg.get("hf_hub", "")
        if hub.endswith("/"):  # open_clip's convention: repo with its default weights file
            return hub_identity(hub[:-1], HF_WEIGHT_FILES)
        if hub:
            repo, filename = hub.rsplit("/", 1)
            return hub_identity(repo, [filename])
        return "url:" + cfg["url"]

    def load(self, device: str) -> None:
        """Create the model (fp32 weights) and its eval transform and tokenizer."""
        import open_clip
        import torch

        check_precision(self.params.precision, device)
        name = self._model_name()
        if self.params.pretrained is None:
            torch.manual_seed(self.params.init_seed)
        else:
            check_activation(open_clip, name, self.params.pretrained, self.params.force_quick_gelu)
        try:
            model, _, preprocess = open_clip.create_model_and_transforms(
                name,
                pretrained=self.params.pretrained,
                device=device,
                pretrained_text=self.params.pretrained is not None,
                force_quick_gelu=self.params.force_quick_gelu,
            )
        except pickle.UnpicklingError as exc:
            # open_clip reads pickles with torch.load(weights_only=True): anything beyond tensors is refused
            raise ValueError(
                f"refusing to load {self.params.pretrained}: the pickle holds objects other than tensors and "
                "could run code when loaded; save a plain state dict or safetensors instead"
            ) from exc
        self._model = model.eval()
        self._preprocess = preprocess
        self._tokenizer = open_clip.get_tokenizer(name)
        self._device = device
        self._torch = torch
        self._truncate = self.run.truncate_text and causal_argmax_text_tower(model)

    def preprocess(self, image: Any) -> Any:
        """open_clip's eval transform (resize, centre crop, normalise)."""
        return self._preprocess(image)

    def embed_images(self, batch: list[Any]) -> np.ndarray:
        """L2-normalised image embeddings."""
        torch = self._torch
        with torch.no_grad(), autocast(self.params.precision):
            x = torch.stack(batch).to(self._device)
            return self._model.encode_image(x, normalize=True).float().cpu().numpy()

    def embed_texts(self, texts: list[str]) -> np.ndarray:
        """L2-normalised text embeddings of the raw captions."""
        torch = self._torch
        with torch.no_grad(), autocast(self.params.precision):
            tokens = self._tokenizer(texts).to(self._device)
            if self._truncate:
                features = encode_text_prefix(self._model, tokens)
            else:
                features = self._model.encode_text(tokens, normalize=True)
            return features.float().cpu().numpy()


def causal_argmax_text_tower(model: Any) -> bool:
    """True for open_clip's ``CLIP`` text tower with a causal mask and end-of-text pooling.

    There, the output at a position depends only on earlier positions, so running the tower on
    the first L tokens gives the same pooled features as on the padded context.
    """
    from open_clip.model import CLIP

    return (
        type(model).encode_text is CLIP.encode_text
        and getattr(model, "attn_mask", None) is not None
        and getattr(model, "text_pool_type", None) in ("argmax", "eos")
    )


def encode_text_prefix(model: Any, tokens: Any) -> Any:
    """``model.encode_text(tokens, normalize=True)`` computed on the tokens up to the batch's
    longest caption (see :func:`causal_argmax_text_tower` for when this is exact)."""
    import torch
    import torch.nn.functional as F
    from open_clip.transformer import text_global_pool

    if model.text_pool_type == "argmax":
        last = tokens.argmax(dim=-1)  # the end-of-text token has the highest id
    else:
        last = (tokens == model.text_eos_id).int().argmax(dim=-1)
    length = int(last.max()) + 1
    tokens = tokens[:, :length]
    cast_dtype = model.transformer.get_cast_dtype()
    x = model.token_embedding(tokens).to(cast_dtype) + model.positional_embedding[:length].to(cast_dtype)
    x = model.transformer(x, attn_mask=model.attn_mask[:length, :length])
    x = model.ln_final(x)
    x = text_global_pool(x, tokens, model.text_pool_type, eos_token_id=getattr(model, "text_eos_id", None))
    projection = model.text_projection
    if isinstance(projection, torch.nn.Linear):
        x = projection(x)
    elif projection is not None:
        x = x @ projection
    return F.normalize(x, dim=-1)


def register_inline_config(config: dict[str, Any]) -> str:
    """Make an inline model config known to open_clip under a name derived from its content."""
    import open_clip

    name = "vlc-inline-" + hashlib.sha256(canonical_json(config).encode()).hexdigest()[:16]
    if name not in open_clip.list_models():
        path = Path(tempfile.mkdtemp(prefix="vlc-openclip-")) / f"{name}.json"
        path.write_text(json.dumps(config))
        open_clip.add_model_config(path)
    return name


def check_activation(open_clip: Any, name: str, tag: str, force_quick_gelu: bool) -> None:
    """Refuse a pretrained tag trained with QuickGELU under a config that builds GELU.

    open_clip (since 2.29) builds such a model with only a warning, and its scores are not the
    weights' (OpenAI's tags under ``ViT-B-32`` rather than ``ViT-B-32-quickgelu``).
    """
    if os.path.isfile(tag) or not open_clip.get_pretrained_cfg(name, tag).get("quick_gelu"):
        return
    if force_quick_gelu or (open_clip.get_model_config(name) or {}).get("quick_gelu"):
        return
    raise ValueError(
        f"pretrained {tag!r} was trained with QuickGELU, but arch {name!r} builds GELU, which would score "
        f"other weights than the published ones: use arch '{name}-quickgelu' (or force_quick_gelu: true)"
    )


@hookimpl
def register_models(register: Any) -> None:
    """Register the open_clip model type."""
    register(OpenClip)
