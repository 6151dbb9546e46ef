"""A small CLIP-style model trained on generated shapes scenes, shipped with the harness.

Trained by ``scripts/train_shapes_clip.py`` (recipe, seed and timings in its docstring and in
``weights/shapes_clip.json``) on scenes of the ``train`` stream of
:mod:`vlc_harness_builtins.benchmarks.shapes_scenes`, never on the benchmark's ``bench`` stream. Its weights
(``weights/shapes_clip.safetensors``: 0.91 M parameters in fp16, 1.8 MB) carry the network config,
the word vocabulary and the recipe in the safetensors metadata, so the file alone defines the model.

Network (pure PyTorch, defined in :func:`build_network`): a 3-layer convolutional image tower
on 64 x 64 pixels whose last feature map is flattened (so where things are is kept) into the
embedding; a 2-layer bidirectional pre-norm transformer text tower over a word vocabulary of the shapes
grammar (unknown words map to ``<unk>``; captions are cut at 32 words) with learned positions,
mean-pooled. Scores are the cosine similarity of the two embeddings.

``params``:

* ``weights``: a safetensors file written by the training script; ``null`` (default) is the
  shipped file. Its sha256 is the weights identity.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from vlc_harness import hookimpl
from vlc_harness.errors import WeightsUnavailable
from vlc_harness.kit.weights import file_identity
from vlc_harness.models import EmbeddingModel, Identity
from vlc_harness.reasons import Reason
from vlc_harness.requires import OPEN_CLIP

SHIPPED_WEIGHTS = Path(__file__).with_name("weights") / "shapes_clip.safetensors"
PAD, UNK = "<pad>", "<unk>"
WORD = re.compile(r"[a-z]+|,")
MEAN, STD = 0.5, 0.25
"""Pixel normalisation: ``(x / 255 - MEAN) / STD`` per channel."""


@dataclass(frozen=True)
class ShapesClipParams:
    """Which weights file (``null``: the shipped one)."""

    weights: str | None = None


def weights_path(weights: str | None) -> Path:
    """The weights file the params name."""
    return SHIPPED_WEIGHTS if weights is None else Path(weights)


def tokenize(texts: list[str], vocab: dict[str, int], max_len: int) -> np.ndarray:
    """Word ids ``[len(texts), longest]`` (lower-cased words and commas; 0 pads; unknown words are ``<unk>``)."""
    rows = [[vocab.get(w, vocab[UNK]) for w in WORD.findall(t.lower())][:max_len] or [vocab[UNK]] for t in texts]
    out = np.zeros((len(rows), max(len(r) for r in rows)), dtype=np.int64)
    for k, row in enumerate(rows):
        out[k, : len(row)] = row
    return out


def image_array(image: Any, size: int) -> np.ndarray:
    """An RGB PIL image as a normalised ``[3, size, size]`` float32 array (box-filter resize)."""
    from PIL import Image

    if image.size != (size, size):
        image = image.resize((size, size), Image.Resampling.BOX)
    x = np.asarray(image.convert("RGB"), dtype=np.float32) / 255.0
    return ((x - MEAN) / STD).transpose(2, 0, 1).copy()


@functools.cache
def _network_class() -> type:
    """The network class (defined on first use, so importing this module never imports torch)."""
    import torch
    from torch import nn
    from torch.nn import functional as F

    class Block(nn.Module):
        """A pre-norm transformer block: self-attention over the words, then an MLP."""

        def __init__(self, width: int, heads: int) -> None:
            super().__init__()
            self.heads = heads
            self.norm1, self.norm2 = nn.LayerNorm(width), nn.LayerNorm(width)
            self.qkv, self.out = nn.Linear(width, 3 * width), nn.Linear(width, width)
            self.fc1, self.fc2 = nn.Linear(width, 2 * width), nn.Linear(2 * width, width)

        def forward(self, x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
            b, n, w = x.shape
            q, k, v = self.qkv(self.norm1(x)).view(b, n, 3, self.heads, w // self.heads).permute(2, 0, 3, 1, 4)
            a = F.scaled_dot_product_attention(q, k, v, attn_mask=bias)
            x = x + self.out(a.transpose(1, 2).reshape(b, n, w))
            return x + self.fc2(F.gelu(self.fc1(self.norm2(x))))

    class ShapesClipNet(nn.Module):
        """Image tower (convolutions, flattened) and text tower (transformer, mean-pooled)."""

        def __init__(self, config: dict[str, Any]) -> None:
            super().__init__()
            c = config
            layers: list[nn.Module] = []
            in_ch = 3
            for k, (out_ch, stride) in enumerate(zip(c["channels"], c["strides"])):
                # the first layer cuts the image into stride x stride patches; the others are 3 x 3
                kernel, padding = (stride, 0) if k == 0 else (3, 1)
                layers += [nn.Conv2d(in_ch, out_ch, kernel, stride, padding), nn.GroupNorm(8, out_ch), nn.GELU()]
                in_ch = out_ch
            self.convs = nn.Sequential(*layers)
            side = c["image_size"]
            for stride in c["strides"]:
                side //= stride
            self.image_proj = nn.Linear(in_ch * side * side, c["embed_dim"])
            w = c["text_width"]
            self.token_embedding = nn.Embedding(c["vocab_size"], w, padding_idx=0)
            self.position_embedding = nn.Parameter(torch.randn(c["max_len"], w) * 0.02)
            self.blocks = nn.ModuleList(Block(w, c["text_heads"]) for _ in range(c["text_layers"]))
            self.text_norm = nn.LayerNorm(w)
            self.text_proj = nn.Linear(w, c["embed_dim"])
            self.logit_scale = nn.Parameter(torch.tensor(float(np.log(1 / 0.07))))

        def encode_image(self, x: torch.Tensor) -> torch.Tensor:
            return F.normalize(self.image_proj(self.convs(x).flatten(1)), dim=-1)

        def encode_text(self, tokens: torch.Tensor) -> torch.Tensor:
            pad = tokens == 0
            x = self.token_embedding(tokens) + self.position_embedding[: tokens.shape[1]]
            bias = torch.zeros(pad.shape, dtype=x.dtype, device=x.device).masked_fill(pad, float("-inf"))[
                :, None, None, :
            ]
            for block in self.blocks:
                x = block(x, bias)
            x = self.text_norm(x)
            keep = (~pad).unsqueeze(-1).to(x.dtype)
            pooled = (x * keep).sum(1) / keep.sum(1).clamp(min=1)
            return F.normalize(self.text_proj(pooled), dim=-1)

    return ShapesClipNet


def build_network(config: dict[str, Any]) -> Any:
    """A fresh (untrained) network for a config (see ``scripts/train_shapes_clip.py``)."""
    return _network_class()(config)


def load_network(path: Path) -> tuple[Any, dict[str, Any], dict[str, int]]:
    """The network of a weights file (fp32, eval mode), its config and its vocabulary."""
    from safetensors import safe_open
    from safetensors.torch import load_file

    with safe_open(str(path), framework="pt") as f:
        meta = f.metadata() or {}
    config, vocab = json.loads(meta["config"]), json.loads(meta["vocab"])
    net = build_network(config)
    state = {k: v.float() for k, v in load_file(str(path)).items()}
    net.load_state_dict(state)
    return net.eval(), config, {w: i for i, w in enumerate(vocab)}


class ShapesClip(EmbeddingModel):
    """The shapes CLIP: a small contrastive model trained here on generated scenes (cosine similarity)."""

    type_name = "shapes_clip"
    requires = OPEN_CLIP
    similarity = "cosine"
    Params = ShapesClipParams

    def identify(self) -> Identity:
        """sha256 of the weights file; unavailable without the file or without PyTorch."""
        path = weights_path(self.params.weights)
        if not path.is_file():
            raise WeightsUnavailable(f"shapes_clip weights {path} are missing (train: scripts/train_shapes_clip.py)")
        for module in ("torch", "safetensors"):
            if importlib.util.find_spec(module) is None:
                raise WeightsUnavailable(
                    f"shapes_clip needs {module}: pip install 'vlc-harness[openclip]'", Reason.PACKAGE_MISSING
                )
        return Identity(weights=file_identity(path), dtype="fp32", protocol="embed/cosine/shapes-vocab")

    def load(self, device: str) -> None:
        """Build the network from the weights file's config and load the (fp16-stored) weights as fp32."""
        import torch

        net, config, vocab = load_network(weights_path(self.params.weights))
        self._net = net.to(device)
        self._vocab, self._config = vocab, config
        self._device = device
        self._torch = torch

    def preprocess(self, image: Any) -> Any:
        """Box-filter resize to the network's input size; normalised float array."""
        return image_array(image, self._config["image_size"])

    def embed_images(self, batch: list[Any]) -> np.ndarray:
        """L2-normalised image embeddings."""
        torch = self._torch
        with torch.no_grad():
            x = torch.from_numpy(np.stack(batch)).to(self._device)
            return self._net.encode_image(x).float().cpu().numpy()

    def embed_texts(self, texts: list[str]) -> np.ndarray:
        """L2-normalised text embeddings (word tokens of the shapes vocabulary)."""
        torch = self._torch
        with torch.no_grad():
            tokens = torch.from_numpy(tokenize(texts, self._vocab, self._config["max_len"])).to(self._device)
            return self._net.encode_text(tokens).float().cpu().numpy()

    @classmethod
    def conformance_example(cls, tmp_path: Path) -> dict[str, Any]:
        """The shipped weights (1.8 MB, offline)."""
        return {}


@hookimpl
def register_models(register: Any) -> None:
    """Register the shapes CLIP model type."""
    register(ShapesClip)
