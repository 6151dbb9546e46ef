"""Tiny checkpoints of the VQAScore families with scorers of their own, with random weights (tests, never the hub).

* :func:`save_tiny_qwen_vl`: Qwen2.5-VL or Qwen3-VL (:mod:`vlc_harness_builtins.models.vqascore_qwen_vl`).
* :func:`save_tiny_internvl`: InternVL3 -hf (:mod:`vlc_harness_builtins.models.vqascore_internvl`).
* :func:`save_tiny_llava_onevision`: LLaVA-OneVision (:mod:`vlc_harness_builtins.models.vqascore_llava_onevision`).

Each writes the family's processor with a minimal ChatML template (:func:`chat_template`) and the
family's special tokens, so that the scorer reads it as it reads a published checkpoint.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from vlc_harness_builtins.models.vqascore_qwen_vl import QWEN_IMAGE
from vlc_harness_builtins.testing.tiny_generative import generative_tokenizer, randomize_tiny_inits, tiny_llama

QWEN_MARKERS = ("<|im_start|>", "<|im_end|>", "<|vision_start|>", "<|image_pad|>", "<|vision_end|>", "<|video_pad|>")
INTERNVL_TOKENS = {
    "start_image_token": "<img>",
    "end_image_token": "</img>",
    "context_image_token": "<IMG_CONTEXT>",
    "video_token": "<video>",
}
"""InternVL-hf's image special tokens, as its tokenizer names them."""
ANYRES_PINPOINTS = [[28, 28], [28, 56], [56, 28], [56, 56]]
"""The tiny checkpoint's crop grids (the published ones use multiples of 384)."""


def chat_template(image: str, system: str = "") -> str:
    """A minimal ChatML template (``<|im_start|>role ... <|im_end|>``) with ``image`` for image parts,
    as the tiny checkpoints carry it; ``system`` is rendered first when not empty."""
    head = f"<|im_start|>system\n{system}<|im_end|>\n" if system else ""
    return (
        head + "{% for message in messages %}<|im_start|>{{ message['role'] }}\n"
        "{% for part in message['content'] %}{% if part['type'] == 'image' %}" + image + "{% else %}"
        "{{ part['text'] }}{% endif %}{% endfor %}<|im_end|>\n{% endfor %}"
        "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
    )


def save_tiny_qwen_vl(folder: Path, model_type: str, seed: int = 0) -> Path:
    """A 2-layer ``Qwen2_5_VLForConditionalGeneration`` or ``Qwen3VLForConditionalGeneration`` with
    a word-level tokenizer (Qwen's chat markers) and the family's processors; returns the folder."""
    import torch
    import transformers

    if (folder / "config.json").is_file():
        return folder
    tok = generative_tokenizer(folder, bos=None, eos="<|im_end|>", add_bos=False, extra_special=QWEN_MARKERS)
    ids = {m: tok.convert_tokens_to_ids(m) for m in QWEN_MARKERS}
    text = tiny_llama(tok) | {"bos_token_id": None}
    rope = {"rope_type": "default", "mrope_section": [2, 3, 3], "rope_theta": 10000.0}
    vision: dict[str, Any] = {"depth": 2, "hidden_size": 32, "intermediate_size": 64, "num_heads": 2}
    vision |= {"out_hidden_size": 32, "spatial_merge_size": 2, "temporal_patch_size": 2}
    if model_type == "qwen3_vl":
        names = ("Qwen3VLConfig", "Qwen3VLForConditionalGeneration", "Qwen3VLProcessor", "Qwen3VLVideoProcessor")
        text |= {"head_dim": 16, "rope_parameters": rope | {"mrope_interleaved": True}}
        vision |= {"patch_size": 16, "num_position_embeddings": 64, "deepstack_visual_indexes": [0, 1]}
        system = ""
    else:
        names = (
            "Qwen2_5_VLConfig",
            "Qwen2_5_VLForConditionalGeneration",
            "Qwen2_5_VLProcessor",
            "Qwen2VLVideoProcessor",
        )
        text |= {"rope_parameters": rope}
        vision |= {"patch_size": 14, "window_size": 56, "fullatt_block_indexes": [1]}
        system = "you are a helpful assistant."
    config_cls, model_cls, processor_cls, video_cls = (getattr(transformers, n) for n in names)
    config = config_cls(
        text_config=text,
        vision_config=vision,
        image_token_id=ids["<|image_pad|>"],
        video_token_id=ids["<|video_pad|>"],
        vision_start_token_id=ids["<|vision_start|>"],
        vision_end_token_id=ids["<|vision_end|>"],
    )
    torch.manual_seed(seed)
    model = randomize_tiny_inits(model_cls(config))
    if model_type == "qwen3_vl":  # DeepStack mergers start near zero: make their contribution visible
        with torch.no_grad():
            for p in model.model.visual.deepstack_merger_list.parameters():
                p.normal_(0.0, 0.5)
    model.save_pretrained(folder)
    patch = vision["patch_size"]
    sizes = {"min_pixels": (4 * patch) ** 2, "max_pixels": (8 * patch) ** 2, "patch_size": patch, "merge_size": 2}
    images = transformers.Qwen2VLImageProcessor(**sizes)
    videos = video_cls(**sizes)
    template = chat_template(QWEN_IMAGE, system)
    processor_cls(
        image_processor=images, tokenizer=tok, video_processor=videos, chat_template=template
    ).save_pretrained(folder)
    return folder


def save_tiny_internvl(folder: Path, seed: int = 0) -> Path:
    """A 2-layer ``InternVLForConditionalGeneration`` (Qwen2 decoder, 28x28 tiles of 2x2 patches,
    pixel shuffle to 1 token per tile) with a word-level tokenizer and InternVL's processor."""
    import torch
    from transformers import (
        GotOcr2ImageProcessor,
        InternVLConfig,
        InternVLForConditionalGeneration,
        InternVLProcessor,
        InternVLVideoProcessor,
        PreTrainedTokenizerFast,
    )

    if (folder / "config.json").is_file():
        return folder
    markers = ("<|im_start|>", "<|im_end|>", *INTERNVL_TOKENS.values())
    generative_tokenizer(folder, bos=None, eos="<|im_end|>", add_bos=False, extra_special=markers)
    tok = PreTrainedTokenizerFast.from_pretrained(folder, extra_special_tokens=INTERNVL_TOKENS)
    tok.save_pretrained(folder)
    text = {"model_type": "qwen2", **tiny_llama(tok), "bos_token_id": None}
    vision: dict[str, Any] = {
        "hidden_size": 32,
        "intermediate_size": 64,
        "num_hidden_layers": 2,
        "num_attention_heads": 2,
    }
    vision |= {"image_size": [28, 28], "patch_size": [14, 14]}
    config = InternVLConfig(
        vision_config=vision,
        text_config=text,
        image_token_id=tok.context_image_token_id,
        downsample_ratio=0.5,
        vision_feature_layer=-1,
        vision_feature_select_strategy="default",
    )
    torch.manual_seed(seed)
    randomize_tiny_inits(InternVLForConditionalGeneration(config)).save_pretrained(folder)
    size = {"height": 28, "width": 28}
    images = GotOcr2ImageProcessor(size=size, crop_to_patches=True, min_patches=1, max_patches=4)
    processor = InternVLProcessor(
        image_processor=images,
        tokenizer=tok,
        video_processor=InternVLVideoProcessor(size=size),
        image_seq_length=1,
        chat_template=chat_template("<IMG_CONTEXT>\n"),
    )
    processor.save_pretrained(folder)
    return folder


def save_tiny_llava_onevision(folder: Path, seed: int = 0) -> Path:
    """A 2-layer ``LlavaOnevisionForConditionalGeneration`` (SigLIP tower, Qwen2 decoder, 28x28 crops
    of 2x2 patches) with a word-level tokenizer and LLaVA-OneVision's processor; returns the folder."""
    import torch
    from transformers import (
        LlavaOnevisionConfig,
        LlavaOnevisionForConditionalGeneration,
        LlavaOnevisionImageProcessor,
        LlavaOnevisionProcessor,
        LlavaOnevisionVideoProcessor,
    )

    if (folder / "config.json").is_file():
        return folder
    markers = ("<|im_start|>", "<|im_end|>", "<image>", "<video>")
    tok = generative_tokenizer(folder, bos=None, eos="<|im_end|>", add_bos=False, extra_special=markers)
    text = {"model_type": "qwen2", **tiny_llama(tok), "bos_token_id": None}
    vision = {"model_type": "siglip_vision_model", "hidden_size": 32, "intermediate_size": 64}
    vision |= {"num_hidden_layers": 2, "num_attention_heads": 2, "image_size": 28, "patch_size": 14}
    config = LlavaOnevisionConfig(
        vision_config=vision,
        text_config=text,
        image_token_index=tok.convert_tokens_to_ids("<image>"),
        video_token_index=tok.convert_tokens_to_ids("<video>"),
        image_grid_pinpoints=ANYRES_PINPOINTS,
        vision_feature_select_strategy="full",
        vision_feature_layer=-1,
        vision_aspect_ratio="anyres_max_9",
    )
    torch.manual_seed(seed)
    randomize_tiny_inits(LlavaOnevisionForConditionalGeneration(config)).save_pretrained(folder)
    size = {"height": 28, "width": 28}
    processor = LlavaOnevisionProcessor(
        image_processor=LlavaOnevisionImageProcessor(size=size, image_grid_pinpoints=ANYRES_PINPOINTS, do_pad=True),
        tokenizer=tok,
        video_processor=LlavaOnevisionVideoProcessor(size=size),
        num_image_tokens=4,
        vision_feature_select_strategy="full",
        vision_aspect_ratio="anyres_max_9",
        chat_template=chat_template("<image>\n"),
    )
    processor.save_pretrained(folder)
    return folder
