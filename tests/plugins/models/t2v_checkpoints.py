"""Tiny random-weight checkpoints of the families t2v_metrics scores, saved locally with the real
tokenizer classes of :mod:`tests.plugins.models.t2v_tokenizers` (tests only): LLaVA-1.5 (Llama
tokenizer), InstructBLIP with Flan-T5 (T5 tokenizer), Qwen2-VL (Qwen2 tokenizer, a
``generation_config`` with Qwen's repetition penalty) and LLaVA-OneVision (Qwen2 tokenizer)."""

from __future__ import annotations

from pathlib import Path

from tests.plugins.models.t2v_tokenizers import QWEN_MARKERS, llama_tokenizer, qwen2_tokenizer, t5_tokenizer

QWEN_IMAGE = "<|vision_start|><|image_pad|><|vision_end|>"
QWEN_SYSTEM = "You are a helpful assistant."
REPETITION_PENALTY = 1.05


def tiny_llava(folder: Path, seed: int = 0, legacy: bool = False) -> Path:
    """``LlavaForConditionalGeneration`` (CLIP tower 32 px / 8 px patches: 16 image tokens, Llama
    decoder) with LLaVA-1.5's Llama tokenizer (``legacy`` as its config says) and the llava-hf chat
    template."""
    import torch
    from transformers import CLIPImageProcessor, LlavaConfig, LlavaForConditionalGeneration, LlavaProcessor

    from vlc_harness_builtins.testing.tiny_generative import (
        LLAVA_CHAT_TEMPLATE,
        randomize_tiny_inits,
        tiny_llama,
        tiny_vision,
    )

    tok = llama_tokenizer(folder, legacy=legacy)
    config = LlavaConfig(
        vision_config={"model_type": "clip_vision_model", **tiny_vision(32, 8)},
        text_config={"model_type": "llama", **tiny_llama(tok)},
        image_token_id=tok.convert_tokens_to_ids("<image>"),
        vision_feature_layer=-2,
        vision_feature_select_strategy="default",
    )
    torch.manual_seed(seed)
    randomize_tiny_inits(LlavaForConditionalGeneration(config)).save_pretrained(folder)
    images = CLIPImageProcessor(size={"shortest_edge": 32}, crop_size={"height": 32, "width": 32})
    LlavaProcessor(
        image_processor=images,
        tokenizer=tok,
        patch_size=8,
        vision_feature_select_strategy="default",
        num_additional_image_tokens=1,
        chat_template=LLAVA_CHAT_TEMPLATE,
    ).save_pretrained(folder)
    return folder


def tiny_instructblip_t5(folder: Path, seed: int = 0, image_size: int = 32) -> Path:
    """``InstructBlipForConditionalGeneration`` with a Flan-T5-style decoder and T5 tokenizer."""
    import torch
    from transformers import (
        BlipImageProcessor,
        InstructBlipConfig,
        InstructBlipForConditionalGeneration,
        InstructBlipProcessor,
    )

    from vlc_harness_builtins.testing.tiny_generative import TINY, randomize_tiny_inits, tiny_t5, tiny_vision
    from vlc_harness_builtins.testing.tiny_hf import word_tokenizer

    tok = t5_tokenizer(folder, ("<image>",))
    qtok = word_tokenizer(folder / "qformer_tokenizer", "[CLS]", "[SEP]", "[PAD]", 64)
    qformer = {"hidden_size": 32, "encoder_hidden_size": 32, "vocab_size": len(qtok), **TINY}
    qformer |= {"pad_token_id": qtok.pad_token_id, "max_position_embeddings": 64}
    config = InstructBlipConfig(
        vision_config=tiny_vision(image_size, 8),
        qformer_config=qformer,
        text_config={"model_type": "t5", **tiny_t5(tok)},
        num_query_tokens=4,
        image_token_index=tok.convert_tokens_to_ids("<image>"),
    )
    torch.manual_seed(seed)
    randomize_tiny_inits(InstructBlipForConditionalGeneration(config)).save_pretrained(folder)
    images = BlipImageProcessor(size={"height": image_size, "width": image_size})
    InstructBlipProcessor(
        image_processor=images, tokenizer=tok, qformer_tokenizer=qtok, num_query_tokens=4
    ).save_pretrained(folder)
    return folder


def tiny_qwen2_vl(folder: Path, seed: int = 0) -> Path:
    """``Qwen2VLForConditionalGeneration`` with a Qwen2 tokenizer, Qwen2-VL's chat template (system
    turn) and a ``generation_config`` with Qwen's repetition penalty."""
    import torch
    from transformers import (
        Qwen2VLConfig,
        Qwen2VLForConditionalGeneration,
        Qwen2VLImageProcessor,
        Qwen2VLProcessor,
        Qwen2VLVideoProcessor,
    )

    from vlc_harness_builtins.testing.tiny_generative import randomize_tiny_inits, tiny_llama
    from vlc_harness_builtins.testing.tiny_vqascore import chat_template

    tok = qwen2_tokenizer(folder)
    ids = {m: tok.convert_tokens_to_ids(m) for m in QWEN_MARKERS}
    text = tiny_llama(tok) | {"bos_token_id": None, "eos_token_id": tok.convert_tokens_to_ids("<|im_end|>")}
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
    model = randomize_tiny_inits(Qwen2VLForConditionalGeneration(config))
    model.generation_config.repetition_penalty = REPETITION_PENALTY
    model.save_pretrained(folder)
    sizes = {"min_pixels": 56 * 56, "max_pixels": 112 * 112, "patch_size": 14, "merge_size": 2}
    Qwen2VLProcessor(
        image_processor=Qwen2VLImageProcessor(**sizes),
        tokenizer=tok,
        video_processor=Qwen2VLVideoProcessor(**sizes),
        chat_template=chat_template(QWEN_IMAGE, QWEN_SYSTEM),
    ).save_pretrained(folder)
    return folder


OV_PINPOINTS = [[384 * i, 384 * j] for i in range(1, 7) for j in range(1, 7)]
"""llava-onevision-qwen2-7b-ov's crop grids (``anyres_max_9``: 1x1 to 6x6 crops of 384 pixels)."""


def tiny_llava_onevision(folder: Path, seed: int = 0, published_geometry: bool = False) -> Path:
    """``LlavaOnevisionForConditionalGeneration`` (as the tiny one of ``vqascore_llava_onevision``)
    with a Qwen2 tokenizer; ``published_geometry``: the 7B checkpoint's image geometry (384-pixel
    crops of 14-pixel patches, :data:`OV_PINPOINTS`, SigLIP's mean and std 0.5) on the tiny widths."""
    import torch
    from transformers import (
        LlavaOnevisionConfig,
        LlavaOnevisionForConditionalGeneration,
        LlavaOnevisionImageProcessor,
        LlavaOnevisionProcessor,
        LlavaOnevisionVideoProcessor,
    )

    from vlc_harness_builtins.testing.tiny_generative import randomize_tiny_inits, tiny_llama
    from vlc_harness_builtins.testing.tiny_vqascore import ANYRES_PINPOINTS, chat_template

    tok = qwen2_tokenizer(folder, ("<|im_start|>", "<|im_end|>", "<image>", "<video>"))
    text = {"model_type": "qwen2", **tiny_llama(tok), "bos_token_id": None}
    vision = {"model_type": "siglip_vision_model", "hidden_size": 32, "intermediate_size": 64}
    side, pinpoints = (384, OV_PINPOINTS) if published_geometry else (28, ANYRES_PINPOINTS)
    vision |= {"num_hidden_layers": 2, "num_attention_heads": 2, "image_size": side, "patch_size": 14}
    config = LlavaOnevisionConfig(
        vision_config=vision,
        text_config=text,
        image_token_index=tok.convert_tokens_to_ids("<image>"),
        video_token_index=tok.convert_tokens_to_ids("<video>"),
        image_grid_pinpoints=pinpoints,
        vision_feature_select_strategy="full",
        vision_feature_layer=-1,
        vision_aspect_ratio="anyres_max_9",
    )
    torch.manual_seed(seed)
    randomize_tiny_inits(LlavaOnevisionForConditionalGeneration(config)).save_pretrained(folder)
    size = {"height": side, "width": side}
    norm = {"image_mean": [0.5] * 3, "image_std": [0.5] * 3} if published_geometry else {}
    LlavaOnevisionProcessor(
        image_processor=LlavaOnevisionImageProcessor(size=size, image_grid_pinpoints=pinpoints, do_pad=True, **norm),
        tokenizer=tok,
        video_processor=LlavaOnevisionVideoProcessor(size=size),
        num_image_tokens=4,
        vision_feature_select_strategy="full",
        vision_aspect_ratio="anyres_max_9",
        chat_template=chat_template("<image>\n"),
    ).save_pretrained(folder)
    return folder
