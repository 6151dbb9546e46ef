"""Tiny BLIP-family generative checkpoints with random weights, saved locally (tests, never the hub).

* :func:`save_tiny_blip2`: ``Blip2ForConditionalGeneration`` with an OPT decoder or a T5.
* :func:`save_tiny_instructblip`: ``InstructBlipForConditionalGeneration`` with Llama or T5.
* :func:`save_tiny_blip_captioner`: ``BlipForConditionalGeneration`` (BLIP's captioning head).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from vlc_harness_builtins.testing.tiny_generative import (
    TINY,
    generative_tokenizer,
    randomize_tiny_inits,
    tiny_llama,
    tiny_t5,
    tiny_vision,
)


def save_tiny_blip2(folder: Path, decoder: str = "opt", seed: int = 0) -> Path:
    """A Blip2ForConditionalGeneration with an OPT decoder (``decoder="opt"``) or a T5 (``"t5"``)."""
    import torch
    from transformers import Blip2Config, Blip2ForConditionalGeneration, Blip2Processor, BlipImageProcessor

    if (folder / "config.json").is_file():
        return folder
    seq2seq = decoder == "t5"
    tok = generative_tokenizer(
        folder, bos=None if seq2seq else "</s>", add_bos=not seq2seq, add_eos=seq2seq, extra_special=("<image>",)
    )
    if seq2seq:
        text: dict[str, Any] = {"model_type": "t5", **tiny_t5(tok)}
    else:
        text = {
            "model_type": "opt",
            "vocab_size": len(tok),
            "hidden_size": 32,
            "ffn_dim": 64,
            "num_hidden_layers": 2,
            "num_attention_heads": 2,
            "max_position_embeddings": 512,
            "word_embed_proj_dim": 32,
            "bos_token_id": tok.bos_token_id,
            "eos_token_id": tok.eos_token_id,
            "pad_token_id": tok.pad_token_id,
        }
    qformer = {"hidden_size": 32, "encoder_hidden_size": 32, "vocab_size": 64, **TINY}
    config = Blip2Config(
        vision_config=tiny_vision(32, 8),
        qformer_config=qformer,
        text_config=text,
        num_query_tokens=4,
        image_token_index=tok.convert_tokens_to_ids("<image>"),
    )
    torch.manual_seed(seed)
    randomize_tiny_inits(Blip2ForConditionalGeneration(config)).save_pretrained(folder)
    images = BlipImageProcessor(size={"height": 32, "width": 32})
    Blip2Processor(image_processor=images, tokenizer=tok, num_query_tokens=4).save_pretrained(folder)
    return folder


def save_tiny_instructblip(folder: Path, decoder: str = "llama", seed: int = 0) -> Path:
    """An InstructBlipForConditionalGeneration with a Llama decoder or a T5; its Q-Former reads the
    instruction through its own (BERT-style word-level) tokenizer."""
    import torch
    from transformers import (
        BlipImageProcessor,
        InstructBlipConfig,
        InstructBlipForConditionalGeneration,
        InstructBlipProcessor,
    )

    from vlc_harness_builtins.testing.tiny_hf import word_tokenizer

    if (folder / "config.json").is_file():
        return folder
    seq2seq = decoder == "t5"
    tok = generative_tokenizer(
        folder, bos=None if seq2seq else "<s>", add_bos=not seq2seq, add_eos=seq2seq, extra_special=("<image>",)
    )
    qtok = word_tokenizer(folder / "qformer_tokenizer", "[CLS]", "[SEP]", "[PAD]", 64)
    text: dict[str, Any] = (
        {"model_type": "t5", **tiny_t5(tok)} if seq2seq else {"model_type": "llama", **tiny_llama(tok)}
    )
    qformer = {"hidden_size": 32, "encoder_hidden_size": 32, "vocab_size": len(qtok), **TINY}
    qformer |= {"pad_token_id": qtok.pad_token_id, "max_position_embeddings": 64}
    config = InstructBlipConfig(
        vision_config=tiny_vision(32, 8),
        qformer_config=qformer,
        text_config=text,
        num_query_tokens=4,
        image_token_index=tok.convert_tokens_to_ids("<image>"),
    )
    torch.manual_seed(seed)
    randomize_tiny_inits(InstructBlipForConditionalGeneration(config)).save_pretrained(folder)
    images = BlipImageProcessor(size={"height": 32, "width": 32})
    processor = InstructBlipProcessor(image_processor=images, tokenizer=tok, qformer_tokenizer=qtok, num_query_tokens=4)
    processor.save_pretrained(folder)
    return folder


def save_tiny_blip_captioner(folder: Path, seed: int = 0, positions: int = 40) -> Path:
    """A BlipForConditionalGeneration (ViT + BERT-style decoder with cross-attention); ``positions``: the
    decoder's position table (prompt and caption tokens at most)."""
    import torch
    from transformers import BlipConfig, BlipForConditionalGeneration, BlipImageProcessor, BlipProcessor

    from vlc_harness_builtins.testing.tiny_hf import word_tokenizer

    if (folder / "config.json").is_file():
        return folder
    tok = word_tokenizer(folder, "[CLS]", "[SEP]", "[PAD]", positions)
    tok.add_special_tokens({"bos_token": "[CLS]", "sep_token": "[SEP]", "cls_token": "[CLS]"})
    tok.save_pretrained(folder)
    text = {"vocab_size": len(tok), "hidden_size": 32, "encoder_hidden_size": 32, **TINY}
    text |= {
        "max_position_embeddings": positions,
        "pad_token_id": tok.pad_token_id,
        "bos_token_id": tok.bos_token_id,
        "sep_token_id": tok.sep_token_id,
        "eos_token_id": tok.sep_token_id,
    }
    config = BlipConfig(text_config=text, vision_config=tiny_vision(32, 8), image_text_hidden_size=16)
    torch.manual_seed(seed)
    randomize_tiny_inits(BlipForConditionalGeneration(config)).save_pretrained(folder)
    BlipProcessor(image_processor=BlipImageProcessor(size={"height": 32, "width": 32}), tokenizer=tok).save_pretrained(
        folder
    )
    return folder
