"""A tiny CLIP-FlanT5 checkpoint folder in the published layout, with random weights (tests, never the hub).

Its ``config.json`` fields and state-dict key names are those of the published checkpoints, see
:mod:`vlc_harness_builtins.models.clip_flant5_weights`.
"""

from __future__ import annotations

import json
from pathlib import Path

from vlc_harness_builtins.testing.tiny_generative import generative_tokenizer, tiny_t5, tiny_vision

CLIP_FLANT5_VISION = {**tiny_vision(28, 14, hidden=32), "projection_dim": 16}


def save_tiny_clip_flant5(
    folder: Path, seed: int = 0, vision_in_checkpoint: bool = True, file_format: str = "bin", extra_rows: int = 0
) -> Path:
    """A CLIP-FlanT5 checkpoint folder in the published layout, from random tiny weights.

    Writes ``config.json`` (``model_type: clip_t5``, the T5 fields and the ``mm_*`` fields that
    t2v_metrics reads) and the weights under the published key names (see
    :func:`vlc_harness_builtins.models.clip_flant5_weights.published_state_dict`), a T5-style tokenizer in
    ``folder/tokenizer`` and the CLIP vision tower's own folder in ``folder/vision_tower``
    (config, weights, image processor), which ``mm_vision_tower`` names. With
    ``vision_in_checkpoint=False`` the checkpoint leaves the vision tower out, as LLaVA-style
    training scripts may; the plugin then takes it from ``mm_vision_tower``. ``file_format``:
    ``bin`` (two ``pytorch_model-*.bin`` shards and their index, aliases included) or
    ``safetensors`` (one file, shared tensors once). ``extra_rows`` gives the vocabulary more rows
    than the tokenizer has tokens (the plugin cuts them, as t2v_metrics does).
    """
    import torch
    from safetensors.torch import save_file
    from transformers import CLIPImageProcessor, CLIPVisionConfig, CLIPVisionModel, T5Config, T5ForConditionalGeneration

    from vlc_harness_builtins.models.clip_flant5_weights import CLIP_T5_DEFAULTS, published_state_dict

    if (folder / "config.json").is_file():
        return folder
    folder.mkdir(parents=True, exist_ok=True)
    tok = generative_tokenizer(folder / "tokenizer", bos=None, add_bos=False, add_eos=True)
    torch.manual_seed(seed)
    vision = CLIPVisionModel(CLIPVisionConfig(**CLIP_FLANT5_VISION)).eval()
    vision.save_pretrained(folder / "vision_tower")
    CLIPImageProcessor(size={"shortest_edge": 28}, crop_size={"height": 28, "width": 28}).save_pretrained(
        folder / "vision_tower"
    )
    t5_fields = tiny_t5(tok) | {"vocab_size": len(tok) + extra_rows}
    t5 = T5ForConditionalGeneration(T5Config(**t5_fields)).eval()
    t5.lm_head.weight = torch.nn.Parameter(torch.randn_like(t5.shared.weight) * 0.5)  # Flan-T5's own output layer
    d = t5_fields["d_model"]
    projector = torch.nn.Sequential(torch.nn.Linear(32, d), torch.nn.GELU(), torch.nn.Linear(d, d))
    state = published_state_dict(t5, projector, vision if vision_in_checkpoint else None)
    if file_format == "safetensors":  # shared tensors are stored once, as save_pretrained does
        aliases = ("embed_tokens.weight", "encoder.embed_tokens.weight", "decoder.embed_tokens.weight")
        save_file({k: v.contiguous() for k, v in state.items() if k not in aliases}, str(folder / "model.safetensors"))
    else:  # two torch.save shards and their index, every alias listed (transformers 4.x .bin layout)
        names = sorted(state)
        shards = {"pytorch_model-00001-of-00002.bin": names[::2], "pytorch_model-00002-of-00002.bin": names[1::2]}
        for file, keys in shards.items():
            torch.save({k: state[k] for k in keys}, folder / file)
        weight_map = {k: file for file, keys in shards.items() for k in keys}
        index = {"metadata": {}, "weight_map": weight_map}
        (folder / "pytorch_model.bin.index.json").write_text(json.dumps(index, indent=1), encoding="utf-8")
    config = {
        "architectures": ["CLIPT5ForConditionalGeneration"],
        "model_type": "clip_t5",
        **t5_fields,
        **CLIP_T5_DEFAULTS,
        "mm_vision_tower": str(folder / "vision_tower"),
        "mm_hidden_size": 32,
    }
    (folder / "config.json").write_text(json.dumps(config, indent=1), encoding="utf-8")
    return folder
