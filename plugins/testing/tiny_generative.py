"""Tiny generative vision-language checkpoints with random weights, saved locally (tests, never the hub).

Each builder writes a real transformers architecture from a small config, a word-level tokenizer
built here (with the family's special tokens) and the family's own image processor, with
``save_pretrained``, so that plugins load them exactly as they load hub checkpoints:

* :func:`save_tiny_llava`: ``LlavaForConditionalGeneration`` (CLIP vision tower, Llama decoder).
* :func:`save_tiny_qwen2_vl`: ``Qwen2VLForConditionalGeneration`` (the image-text-to-text auto class).

The shared parts (:func:`generative_tokenizer`, :func:`randomize_tiny_inits` and the tiny
configs :func:`tiny_vision`, :func:`tiny_llama`, :func:`tiny_t5`) serve the other builders too:
:mod:`.tiny_blip` (BLIP-2, InstructBLIP, BLIP's captioner), :mod:`.tiny_clip_flant5` and
:mod:`.tiny_vqascore` (Qwen2.5/3-VL, InternVL, LLaVA-OneVision).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from vlc_harness_builtins.testing.tiny_hf import WORDS

PROMPT_WORDS = (
    "does this figure show please answer yes no or user assistant system describe picture photo image "
    "what question chat between curious assistant gives helpful detailed polite answers questions artificial "
    "intelligence"
).split()
PUNCTUATION = list("\"?.,:;!'()-/")
TINY = {"num_hidden_layers": 2, "num_attention_heads": 2, "intermediate_size": 64}

LLAVA_CHAT_TEMPLATE = (
    "{% for message in messages %}{% if message['role'] == 'user' %}USER: "
    "{% for part in message['content'] %}{% if part['type'] == 'image' %}<image>\n"
    "{% else %}{{ part['text'] }}{% endif %}{% endfor %} {% endif %}{% endfor %}"
    "{% if add_generation_prompt %}ASSISTANT:{% endif %}"
)
QWEN_CHAT_TEMPLATE = (
    "{% for message in messages %}<|im_start|>{{ message['role'] }}\n"
    "{% for part in message['content'] %}{% if part['type'] == 'image' %}"
    "<|vision_start|><|image_pad|><|vision_end|>{% else %}{{ part['text'] }}{% endif %}{% endfor %}"
    "<|im_end|>\n{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)


def generative_tokenizer(
    folder: Path,
    *,
    bos: str | None = "<s>",
    eos: str = "</s>",
    pad: str = "<pad>",
    add_bos: bool = True,
    add_eos: bool = False,
    extra_special: tuple[str, ...] = (),
    max_length: int = 512,
) -> Any:
    """A lower-casing word-level tokenizer whose punctuation marks are single tokens.

    ``add_bos`` prefixes ``bos`` (decoder-only style), ``add_eos`` appends ``eos`` (T5 style).
    ``extra_special`` tokens (an image placeholder, chat markers) are never split or lower-cased.
    """
    from tokenizers import AddedToken, Tokenizer, normalizers, pre_tokenizers, processors
    from tokenizers.models import WordLevel
    from transformers import PreTrainedTokenizerFast

    specials = [pad, "[UNK]", *([bos] if bos else []), eos]
    vocab = {tok: i for i, tok in enumerate(dict.fromkeys([*specials, *WORDS, *PROMPT_WORDS, *PUNCTUATION]))}
    core = Tokenizer(WordLevel(vocab, unk_token="[UNK]"))
    core.normalizer = normalizers.Lowercase()
    core.pre_tokenizer = pre_tokenizers.Sequence(
        [pre_tokenizers.WhitespaceSplit(), pre_tokenizers.Punctuation(behavior="isolated")]
    )
    single = "$A"
    pairs: list[tuple[str, int]] = []
    if add_bos and bos:
        single, pairs = f"{bos} {single}", [*pairs, (bos, vocab[bos])]
    if add_eos:
        single, pairs = f"{single} {eos}", [*pairs, (eos, vocab[eos])]
    core.post_processor = processors.TemplateProcessing(single=single, special_tokens=pairs)
    core.add_special_tokens([AddedToken(t, normalized=False, special=True) for t in extra_special])
    kwargs: dict[str, Any] = {"bos_token": bos} if bos else {}
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=core, eos_token=eos, pad_token=pad, unk_token="[UNK]", model_max_length=max_length, **kwargs
    )
    tokenizer.save_pretrained(folder)
    return tokenizer


def randomize_tiny_inits(model: Any, std: float = 0.02) -> Any:
    """Give weights that their family initialises at (near) zero a visible random value.

    BLIP-family vision towers start from ``initializer_range=1e-10`` and query tokens from zeros, so
    a random tiny model would barely see its image; tests need scores that depend on the image.
    """
    import torch

    with torch.no_grad():
        for _, param in model.named_parameters():
            if param.dim() >= 2 and float(param.abs().max()) < 1e-3:
                param.normal_(0.0, std)
    return model


def tiny_vision(image_size: int, patch_size: int, hidden: int = 32) -> dict[str, Any]:
    """A 2-layer vision tower's config fields (CLIP/ViT style)."""
    return {"hidden_size": hidden, "image_size": image_size, "patch_size": patch_size, **TINY}


def tiny_llama(tok: Any, hidden: int = 32, layers: int = 2) -> dict[str, Any]:
    """A Llama-style decoder's config fields over ``tok``'s vocabulary and special tokens."""
    return {
        "vocab_size": len(tok),
        "hidden_size": hidden,
        "intermediate_size": 64,
        "num_hidden_layers": layers,
        "num_attention_heads": 2,
        "num_key_value_heads": 2,
        "max_position_embeddings": 2048,
        "bos_token_id": tok.bos_token_id,
        "eos_token_id": tok.eos_token_id,
        "pad_token_id": tok.pad_token_id,
    }


def tiny_t5(tok: Any, d_model: int = 32) -> dict[str, Any]:
    """A 2-layer T5 (gated GELU, untied output layer) config's fields over ``tok``'s vocabulary."""
    return {
        "vocab_size": len(tok),
        "d_model": d_model,
        "d_kv": 16,
        "d_ff": 64,
        "num_layers": 2,
        "num_decoder_layers": 2,
        "num_heads": 2,
        "feed_forward_proj": "gated-gelu",
        "tie_word_embeddings": False,
        "pad_token_id": tok.pad_token_id,
        "eos_token_id": tok.eos_token_id,
        "decoder_start_token_id": tok.pad_token_id,
    }


def save_tiny_llava(
    folder: Path, seed: int = 0, image_size: int = 32, patch_size: int = 8, hidden: int = 32, layers: int = 2
) -> Path:
    """A LlavaForConditionalGeneration with a chat template ``USER: <image>\\n... ASSISTANT:``.

    ``(image_size / patch_size)**2`` image tokens (16 by default); returns the folder.
    """
    import torch
    from transformers import CLIPImageProcessor, LlavaConfig, LlavaForConditionalGeneration, LlavaProcessor

    if (folder / "config.json").is_file():
        return folder
    tok = generative_tokenizer(folder, extra_special=("<image>",))
    image_token_id = tok.convert_tokens_to_ids("<image>")
    config = LlavaConfig(
        vision_config={"model_type": "clip_vision_model", **tiny_vision(image_size, patch_size)},
        text_config={"model_type": "llama", **tiny_llama(tok, hidden, layers)},
        image_token_index=image_token_id,
        vision_feature_layer=-2,
        vision_feature_select_strategy="default",
    )
    torch.manual_seed(seed)
    randomize_tiny_inits(LlavaForConditionalGeneration(config)).save_pretrained(folder)
    images = CLIPImageProcessor(
        size={"shortest_edge": image_size}, crop_size={"height": image_size, "width": image_size}
    )
    processor = LlavaProcessor(
        image_processor=images,
        tokenizer=tok,
        patch_size=patch_size,
        vision_feature_select_strategy="default",
        num_additional_image_tokens=1,
        chat_template=LLAVA_CHAT_TEMPLATE,
    )
    processor.save_pretrained(folder)
    return folder


def save_tiny_qwen2_vl(folder: Path, seed: int = 0) -> Path:
    """A Qwen2VLForConditionalGeneration (M-RoPE, dynamic resolution) with a Qwen-style chat template."""
    import torch
    from transformers import (
        Qwen2VLConfig,
        Qwen2VLForConditionalGeneration,
        Qwen2VLImageProcessor,
        Qwen2VLProcessor,
        Qwen2VLVideoProcessor,
    )

    if (folder / "config.json").is_file():
        return folder
    markers = ("<|im_start|>", "<|im_end|>", "<|vision_start|>", "<|image_pad|>", "<|vision_end|>", "<|video_pad|>")
    tok = generative_tokenizer(folder, bos=None, eos="<|im_end|>", add_bos=False, extra_special=markers)
    ids = {m: tok.convert_tokens_to_ids(m) for m in markers}
    text = tiny_llama(tok)
    text["bos_token_id"] = None
    text |= {"rope_parameters": {"rope_type": "default", "mrope_section": [2, 3, 3], "rope_theta": 10000.0}}
    vision = {"depth": 2, "embed_dim": 16, "hidden_size": 32, "num_heads": 2, "mlp_ratio": 2, "patch_size": 14}
    config = Qwen2VLConfig(
        text_config=text,
        vision_config=vision,
        image_token_id=ids["<|image_pad|>"],
        video_token_id=ids["<|video_pad|>"],
        vision_start_token_id=ids["<|vision_start|>"],
        vision_end_token_id=ids["<|vision_end|>"],
    )
    torch.manual_seed(seed)
    randomize_tiny_inits(Qwen2VLForConditionalGeneration(config)).save_pretrained(folder)
    images = Qwen2VLImageProcessor(min_pixels=56 * 56, max_pixels=112 * 112, patch_size=14, merge_size=2)
    videos = Qwen2VLVideoProcessor(min_pixels=56 * 56, max_pixels=112 * 112, patch_size=14, merge_size=2)
    processor = Qwen2VLProcessor(
        image_processor=images, tokenizer=tok, video_processor=videos, chat_template=QWEN_CHAT_TEMPLATE
    )
    processor.save_pretrained(folder)
    return folder
