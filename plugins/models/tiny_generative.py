"""Tiny generative vision-language checkpoints with random weights, saved locally (tests, never the hub).

Each builder writes a real transformers architecture from a small config, a word-level tokenizer
built here (with the family's special tokens) and the family's own image processor, with
``save_pretrained``, so that plugins load them exactly as they load hub checkpoints:

* :func:`save_tiny_llava`: ``LlavaForConditionalGeneration`` (CLIP vision tower, Llama decoder).
* :func:`save_tiny_qwen2_vl`: ``Qwen2VLForConditionalGeneration`` (the image-text-to-text auto class).
* :func:`save_tiny_blip2`: ``Blip2ForConditionalGeneration`` with an OPT decoder or a T5.
* :func:`save_tiny_instructblip`: ``InstructBlipForConditionalGeneration`` with Llama or T5.
* :func:`save_tiny_blip_captioner`: ``BlipForConditionalGeneration`` (BLIP's captioning head).
* :func:`save_tiny_clip_flant5`: a CLIP-FlanT5 checkpoint folder in the published layout (its
  ``config.json`` fields and state-dict key names), see :mod:`vlc_harness_builtins.models.clip_flant5`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from vlc_harness_builtins.models.tiny_hf import WORDS

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
    single, pairs = "$A", []
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


def _vision(image_size: int, patch_size: int, hidden: int = 32) -> dict[str, Any]:
    return {"hidden_size": hidden, "image_size": image_size, "patch_size": patch_size, **TINY}


def _llama(tok: Any, hidden: int = 32, layers: int = 2) -> dict[str, Any]:
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


def _t5(tok: Any, d_model: int = 32) -> dict[str, Any]:
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
        vision_config={"model_type": "clip_vision_model", **_vision(image_size, patch_size)},
        text_config={"model_type": "llama", **_llama(tok, hidden, layers)},
        image_token_id=image_token_id,
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
    text = _llama(tok)
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
        text: dict[str, Any] = {"model_type": "t5", **_t5(tok)}
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
        vision_config=_vision(32, 8),
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

    from vlc_harness_builtins.models.tiny_hf import word_tokenizer

    if (folder / "config.json").is_file():
        return folder
    seq2seq = decoder == "t5"
    tok = generative_tokenizer(
        folder, bos=None if seq2seq else "<s>", add_bos=not seq2seq, add_eos=seq2seq, extra_special=("<image>",)
    )
    qtok = word_tokenizer(folder / "qformer_tokenizer", "[CLS]", "[SEP]", "[PAD]", 64)
    text: dict[str, Any] = {"model_type": "t5", **_t5(tok)} if seq2seq else {"model_type": "llama", **_llama(tok)}
    qformer = {"hidden_size": 32, "encoder_hidden_size": 32, "vocab_size": len(qtok), **TINY}
    qformer |= {"pad_token_id": qtok.pad_token_id, "max_position_embeddings": 64}
    config = InstructBlipConfig(
        vision_config=_vision(32, 8),
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


def save_tiny_blip_captioner(folder: Path, seed: int = 0) -> Path:
    """A BlipForConditionalGeneration (ViT + BERT-style decoder with cross-attention)."""
    import torch
    from transformers import BlipConfig, BlipForConditionalGeneration, BlipImageProcessor, BlipProcessor

    from vlc_harness_builtins.models.tiny_hf import word_tokenizer

    if (folder / "config.json").is_file():
        return folder
    tok = word_tokenizer(folder, "[CLS]", "[SEP]", "[PAD]", 40)
    tok.add_special_tokens({"bos_token": "[CLS]", "sep_token": "[SEP]", "cls_token": "[CLS]"})
    tok.save_pretrained(folder)
    text = {"vocab_size": len(tok), "hidden_size": 32, "encoder_hidden_size": 32, **TINY}
    text |= {
        "max_position_embeddings": 40,
        "pad_token_id": tok.pad_token_id,
        "bos_token_id": tok.bos_token_id,
        "sep_token_id": tok.sep_token_id,
        "eos_token_id": tok.sep_token_id,
    }
    config = BlipConfig(text_config=text, vision_config=_vision(32, 8), image_text_hidden_size=16)
    torch.manual_seed(seed)
    randomize_tiny_inits(BlipForConditionalGeneration(config)).save_pretrained(folder)
    BlipProcessor(image_processor=BlipImageProcessor(size={"height": 32, "width": 32}), tokenizer=tok).save_pretrained(
        folder
    )
    return folder


CLIP_FLANT5_VISION = {**_vision(28, 14, hidden=32), "projection_dim": 16}


def save_tiny_clip_flant5(
    folder: Path, seed: int = 0, vision_in_checkpoint: bool = True, file_format: str = "bin", extra_rows: int = 0
) -> Path:
    """A CLIP-FlanT5 checkpoint folder in the published layout, from random tiny weights.

    Writes ``config.json`` (``model_type: clip_t5``, the T5 fields and the ``mm_*`` fields that
    t2v_metrics reads) and the weights under the published key names (see
    :func:`vlc_harness_builtins.models.clip_flant5.published_state_dict`), a T5-style tokenizer in
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

    from vlc_harness_builtins.models.clip_flant5 import CLIP_T5_DEFAULTS, published_state_dict

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
    t5_fields = _t5(tok) | {"vocab_size": len(tok) + extra_rows}
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
