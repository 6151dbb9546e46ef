"""Tiny open_clip checkpoints with random weights, saved locally (tests, never the hub).

* :data:`TINY_CONFIG`: a 2-layer ViT CLIP config (32 px images, open_clip's tokenizer), passed
  inline as the ``arch`` param.
* :func:`save_tiny_openclip`: its random weights as a ``state_dict`` file (the ``open_clip`` example).
* :func:`write_tiny_lora_checkpoint`: the same model as a DDP training checkpoint with LoRA factors
  (the ``open_clip_tuned`` example, layout ``open_clip_lora``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from vlc_harness_builtins.models.openclip import register_inline_config
from vlc_harness_builtins.models.openclip_tuned import merge_lora

TINY_CONFIG: dict[str, Any] = {
    "embed_dim": 32,
    "vision_cfg": {"image_size": 32, "layers": 2, "width": 64, "patch_size": 8, "head_width": 32},
    "text_cfg": {"context_length": 77, "vocab_size": 49408, "width": 64, "heads": 2, "layers": 2},
}


def save_tiny_openclip(checkpoint: Path, seed: int = 0) -> Path:
    """Random weights of :data:`TINY_CONFIG` under ``seed``, saved as a ``state_dict`` file (once)."""
    import open_clip
    import torch

    torch.manual_seed(seed)
    if not checkpoint.exists():
        model = open_clip.create_model(register_inline_config(TINY_CONFIG), pretrained=None, pretrained_text=False)
        torch.save(model.state_dict(), checkpoint)
    return checkpoint


def write_tiny_lora_checkpoint(path: Path, rank: int = 2, seed: int = 0) -> dict[str, Any]:
    """A random tiny CLIP (QuickGELU) as an open_clip training checkpoint with LoRA factors on the
    attention input projections, attention output and MLP ``Linear`` layers and the patch
    ``Conv2d``, as DAC's and FSC-CLIP's layers hold them; returns the merged state dict it stands for."""
    import open_clip
    import torch

    torch.manual_seed(seed)
    model = open_clip.create_model(register_inline_config(TINY_CONFIG), pretrained=None, force_quick_gelu=True)
    base = model.state_dict()
    state: dict[str, Any] = dict(base)
    for key, weight in base.items():
        if (
            key.endswith(("mlp.c_fc.weight", "mlp.c_proj.weight", "attn.out_proj.weight"))
            or key == "visual.conv1.weight"
        ):
            kernel = int(weight.shape[-1]) if weight.dim() == 4 else 1
            out_f, in_f = int(weight.shape[0]), int(weight.shape[1])
            state[key[: -len("weight")] + "lora_A"] = torch.randn(rank * kernel, in_f * kernel) * 0.1
            state[key[: -len("weight")] + "lora_B"] = torch.randn(out_f * kernel, rank * kernel) * 0.1
        elif key.endswith("attn.in_proj_weight"):
            state[key + "_lora_A"] = torch.randn(rank, int(weight.shape[1])) * 0.1
            state[key + "_lora_B"] = torch.randn(int(weight.shape[0]), rank) * 0.1
    path.parent.mkdir(parents=True, exist_ok=True)
    wrapped = {"epoch": 5, "name": "tiny-lora", "state_dict": {"module." + k: v for k, v in state.items()}}
    torch.save(wrapped, path)
    return merge_lora(state, 1.0)
