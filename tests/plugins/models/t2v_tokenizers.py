"""The real transformers tokenizer classes of the families t2v_metrics scores, built offline on tiny
vocabularies learned here (tests only; nothing is downloaded):

* LLaVA-1.5: ``LlamaTokenizer`` from a SentencePiece BPE model laid out as Llama's (byte fallback,
  a dummy prefix, no normalisation; ``<unk>`` 0, ``<s>`` 1, ``</s>`` 2), plus ``<image>``.
* CLIP-FlanT5 and InstructBLIP-FlanT5: ``T5Tokenizer`` from a unigram SentencePiece model laid out
  as T5's (``nmt_nfkc``, extra whitespace removed; ``<pad>`` 0, ``</s>`` 1, ``<unk>`` 2).
* Qwen2-VL and LLaVA-OneVision: ``Qwen2Tokenizer`` (byte-level BPE behind Qwen2's split pattern)
  with the chat and vision markers as special tokens.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

from tests.plugins.models.tokenizers_offline import training_captions

PROMPT_LINES = (
    "A chat between a curious user and an artificial intelligence assistant. The assistant gives helpful, "
    "detailed, and polite answers to the user's questions. USER: Does this figure show it? Please answer yes "
    "or no. ASSISTANT: Yes",
    "Question: Does this image show the picture? Answer the question with Yes or No",
    "system You are a helpful assistant. user assistant Yes No yes no",
)
QWEN_MARKERS = ("<|im_start|>", "<|im_end|>", "<|vision_start|>", "<|image_pad|>", "<|vision_end|>", "<|video_pad|>")


def _corpus() -> list[str]:
    lines = [f'Does this figure show "{c}"? Please answer yes or no.' for c in training_captions()[:200]]
    return [*PROMPT_LINES * 20, *["Yes", "No", "yes", "no"] * 40, *lines, *training_captions()]


def _sentencepiece(**options: Any) -> bytes:
    import sentencepiece as spm

    model = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(_corpus()),
        model_writer=model,
        character_coverage=1.0,
        num_threads=1,
        minloglevel=2,
        **options,
    )
    return model.getvalue()


def llama_tokenizer(folder: Path, legacy: bool = False) -> Any:
    """``LlamaTokenizer`` (as LLaVA-1.5's, BOS added, ``<image>`` a special token), saved in ``folder``."""
    from transformers import AutoTokenizer

    folder.mkdir(parents=True, exist_ok=True)
    model = _sentencepiece(
        vocab_size=480,
        model_type="bpe",
        byte_fallback=True,
        split_digits=True,
        allow_whitespace_only_pieces=True,
        normalization_rule_name="identity",
        remove_extra_whitespaces=False,
        add_dummy_prefix=True,
        unk_id=0,
        bos_id=1,
        eos_id=2,
        pad_id=-1,
    )
    (folder / "tokenizer.model").write_bytes(model)
    config = {"tokenizer_class": "LlamaTokenizer", "legacy": legacy, "add_bos_token": True, "add_eos_token": False}
    (folder / "tokenizer_config.json").write_text(json.dumps(config))
    tokenizer = AutoTokenizer.from_pretrained(folder)
    tokenizer.add_special_tokens({"additional_special_tokens": ["<image>"]})
    tokenizer.pad_token = tokenizer.unk_token
    tokenizer.save_pretrained(folder)
    return AutoTokenizer.from_pretrained(folder)


def t5_tokenizer(folder: Path, extra_special: tuple[str, ...] = ()) -> Any:
    """``T5Tokenizer`` (as Flan-T5's, ``</s>`` appended), saved in ``folder``."""
    from transformers import AutoTokenizer

    folder.mkdir(parents=True, exist_ok=True)
    model = _sentencepiece(
        vocab_size=240, model_type="unigram", pad_id=0, eos_id=1, unk_id=2, bos_id=-1, hard_vocab_limit=False
    )
    (folder / "spiece.model").write_bytes(model)
    (folder / "tokenizer_config.json").write_text(json.dumps({"tokenizer_class": "T5Tokenizer", "extra_ids": 0}))
    tokenizer = AutoTokenizer.from_pretrained(folder)
    if extra_special:
        tokenizer.add_special_tokens({"additional_special_tokens": list(extra_special)})
    tokenizer.save_pretrained(folder)
    return AutoTokenizer.from_pretrained(folder)


def qwen2_tokenizer(folder: Path, extra_special: tuple[str, ...] = QWEN_MARKERS) -> Any:
    """``Qwen2Tokenizer`` with ``<|endoftext|>`` and the chat and vision markers, saved in ``folder``."""
    from tokenizers import Regex, Tokenizer, pre_tokenizers, trainers
    from tokenizers.models import BPE
    from transformers import AutoTokenizer, Qwen2Tokenizer
    from transformers.models.qwen2.tokenization_qwen2 import PRETOKENIZE_REGEX

    core = Tokenizer(BPE())
    split = pre_tokenizers.Split(Regex(PRETOKENIZE_REGEX), behavior="isolated", invert=False)
    core.pre_tokenizer = pre_tokenizers.Sequence(
        [split, pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)]
    )
    trainer = trainers.BpeTrainer(
        vocab_size=600,
        special_tokens=["<|endoftext|>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    core.train_from_iterator(_corpus(), trainer=trainer)
    model = json.loads(core.to_str())["model"]
    merges = [tuple(m) if isinstance(m, list) else tuple(m.split(" ")) for m in model["merges"]]
    tokenizer = Qwen2Tokenizer(vocab=model["vocab"], merges=merges)
    tokenizer.add_special_tokens({"additional_special_tokens": list(extra_special)})
    tokenizer.save_pretrained(folder)
    return AutoTokenizer.from_pretrained(folder)
