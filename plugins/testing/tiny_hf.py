"""Tiny transformers contrastive and retrieval checkpoints with random weights, saved locally (tests; never the hub).

Each is a real architecture class from a small config, with a word-level tokenizer built here
and the family's own image processor, written with ``save_pretrained`` so that plugins load them
through exactly the path they use for hub checkpoints.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

WORDS = (
    "a an the of on in to and with is are two three "
    "red blue green yellow black white small large big square circle triangle cat dog man woman "
    "left right above below next behind front chasing holding sitting standing"
).split()
TINY_LAYERS = {"num_hidden_layers": 2, "num_attention_heads": 2, "intermediate_size": 64}


def word_tokenizer(
    folder: Path, bos: str, eos: str, pad: str, max_length: int, input_names: tuple[str, ...] | None = None
) -> Any:
    """A lower-casing word-level tokenizer over :data:`WORDS` that wraps captions in bos/eos."""
    from tokenizers import Tokenizer, normalizers, pre_tokenizers, processors
    from tokenizers.models import WordLevel
    from transformers import PreTrainedTokenizerFast

    specials = [pad, "[UNK]", bos, eos]
    vocab = {tok: i for i, tok in enumerate(dict.fromkeys([*specials, *WORDS]))}
    core = Tokenizer(WordLevel(vocab, unk_token="[UNK]"))
    core.normalizer = normalizers.Lowercase()
    core.pre_tokenizer = pre_tokenizers.Whitespace()
    core.post_processor = processors.TemplateProcessing(
        single=f"{bos} $A {eos}", special_tokens=[(bos, vocab[bos]), (eos, vocab[eos])]
    )
    kwargs: dict[str, Any] = {}
    if input_names is not None:
        kwargs["model_input_names"] = list(input_names)
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=core,
        bos_token=bos,
        eos_token=eos,
        pad_token=pad,
        unk_token="[UNK]",
        model_max_length=max_length,
        **kwargs,
    )
    tokenizer.save_pretrained(folder)
    return tokenizer


def save_tiny_clip(folder: Path, seed: int = 0) -> Path:
    """A 2-layer CLIPModel (32x32 images) with a word-level tokenizer; returns the folder."""
    import torch
    from transformers import CLIPConfig, CLIPImageProcessor, CLIPModel

    if (folder / "config.json").is_file():
        return folder
    tok = word_tokenizer(folder, "<|startoftext|>", "<|endoftext|>", "<pad>", 77)
    text = {"vocab_size": len(tok), "hidden_size": 32, "max_position_embeddings": 77, **TINY_LAYERS}
    text |= {"bos_token_id": tok.bos_token_id, "eos_token_id": tok.eos_token_id, "pad_token_id": tok.pad_token_id}
    vision = {"hidden_size": 32, "image_size": 32, "patch_size": 8, **TINY_LAYERS}
    torch.manual_seed(seed)
    CLIPModel(CLIPConfig(text_config=text, vision_config=vision, projection_dim=16)).save_pretrained(folder)
    CLIPImageProcessor(size={"shortest_edge": 32}, crop_size={"height": 32, "width": 32}).save_pretrained(folder)
    return folder


def save_tiny_siglip(folder: Path, seed: int = 0) -> Path:
    """A 2-layer SiglipModel; its tokenizer returns input ids only and pads to 16 tokens."""
    import torch
    from transformers import SiglipConfig, SiglipImageProcessor, SiglipModel

    if (folder / "config.json").is_file():
        return folder
    tok = word_tokenizer(folder, "<s>", "</s>", "<pad>", 16, input_names=("input_ids",))
    text = {"vocab_size": len(tok), "hidden_size": 32, "max_position_embeddings": 16, **TINY_LAYERS}
    text |= {"pad_token_id": tok.pad_token_id, "eos_token_id": tok.eos_token_id}
    vision = {"hidden_size": 32, "image_size": 32, "patch_size": 8, **TINY_LAYERS}
    torch.manual_seed(seed)
    model = SiglipModel(SiglipConfig(text_config=text, vision_config=vision))
    with torch.no_grad():
        model.logit_bias.fill_(-3.0)  # a non-zero bias, so that tests see it applied
    model.save_pretrained(folder)
    SiglipImageProcessor(size={"height": 32, "width": 32}).save_pretrained(folder)
    return folder


def save_tiny_blip(folder: Path, seed: int = 0) -> Path:
    """A 2-layer BlipForImageTextRetrieval (ITM and ITC heads) with a BERT-style tokenizer."""
    import torch
    from transformers import BlipConfig, BlipForImageTextRetrieval, BlipImageProcessor

    if (folder / "config.json").is_file():
        return folder
    tok = word_tokenizer(folder, "[CLS]", "[SEP]", "[PAD]", 35)
    tok.add_special_tokens({"bos_token": "[DEC]", "additional_special_tokens": ["[ENC]"]})  # BLIP's layout
    tok.save_pretrained(folder)
    text = {"vocab_size": len(tok), "hidden_size": 32, "encoder_hidden_size": 32, **TINY_LAYERS}
    text |= {"bos_token_id": tok.bos_token_id}
    text |= {"max_position_embeddings": 40, "pad_token_id": tok.pad_token_id}
    vision = {"hidden_size": 32, "image_size": 32, "patch_size": 8, **TINY_LAYERS}
    torch.manual_seed(seed)
    config = BlipConfig(text_config=text, vision_config=vision, image_text_hidden_size=16)
    BlipForImageTextRetrieval(config).save_pretrained(folder)
    BlipImageProcessor(size={"height": 32, "width": 32}).save_pretrained(folder)
    return folder
