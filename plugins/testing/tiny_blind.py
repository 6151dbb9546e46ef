"""Tiny image-blind checkpoints with random weights and tokenizers built locally (tests, never the hub).

* :func:`tiny_bert_tokenizer`, :func:`tiny_t5_tokenizer`, :func:`tiny_gpt2_tokenizer`: WordPiece,
  T5 (Unigram) and byte-level BPE tokenizers over :data:`TINY_WORDS`.
* :func:`build_tiny_gpt2` (``blind_causal_lm``), :func:`build_tiny_classifier` (``blind_classifier``),
  :func:`build_tiny_vera` (``blind_vera``): a model and its tokenizer saved as a checkpoint folder.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from vlc_harness_builtins.models.blind_vera import Vera

TINY_WORDS = (
    "a an the red blue green yellow square circle above below on in of with man woman dog cat "
    "riding horse beach table sitting standing next to is are two people street car"
).split()
"""Words of the tiny test vocabularies (the conformance texts are made of them)."""
TINY_VOCAB = 32128
GPT2_POSITIONS = 128
"""The tiny GPT-2's position table; its conformance example cuts captions there (``max_length``)."""
CLASSIFIER_POSITIONS = 64
"""The tiny DistilBERT's position table; its conformance example truncates captions there (``max_length``)."""
"""T5's padded vocabulary size: rows 32097..32099 (Vera's head) exist in every T5 checkpoint."""


def tiny_bert_tokenizer(words: Sequence[str] = TINY_WORDS) -> Any:
    """An uncased WordPiece tokenizer over ``words`` plus the letters (built locally)."""
    from transformers import BertTokenizer

    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    letters = [*"abcdefghijklmnopqrstuvwxyz0123456789.,!?'-", *(f"##{c}" for c in "abcdefghijklmnopqrstuvwxyz")]
    tokens = list(dict.fromkeys([*specials, *words, *letters]))
    return BertTokenizer(vocab={t: i for i, t in enumerate(tokens)})


def tiny_t5_tokenizer(words: Sequence[str] = TINY_WORDS) -> Any:
    """A T5 tokenizer (Unigram, Metaspace, ``</s>`` appended) built from a ``tokenizers`` object.

    Ids: ``<pad>`` 0, ``</s>`` 1, ``<unk>`` 2, as in T5's SentencePiece vocabulary.
    """
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors
    from transformers import T5Tokenizer

    pieces = [("<pad>", 0.0), ("</s>", 0.0), ("<unk>", 0.0), ("\u2581", -3.0)]
    pieces += [("\u2581" + w, -2.0) for w in dict.fromkeys(words)]
    pieces += [(c, -5.0) for c in "abcdefghijklmnopqrstuvwxyz0123456789.,!?'-"]
    tok = Tokenizer(models.Unigram(pieces, unk_id=2))
    tok.pre_tokenizer = pre_tokenizers.Metaspace()
    tok.decoder = decoders.Metaspace()
    tok.post_processor = processors.TemplateProcessing(
        single="$A </s>", pair="$A </s> $B </s>", special_tokens=[("</s>", 1)]
    )
    return T5Tokenizer(tokenizer_object=tok, extra_ids=0)


def tiny_gpt2_tokenizer(with_bos: bool = True) -> Any:
    """A byte-level BPE tokenizer with no merges (one token per byte) plus ``<|endoftext|>``.

    ``with_bos=False`` gives a tokenizer with neither a BOS nor an EOS token.
    """
    from tokenizers import pre_tokenizers
    from transformers import GPT2Tokenizer

    alphabet = sorted(pre_tokenizers.ByteLevel.alphabet())
    vocab = {c: i for i, c in enumerate(alphabet)}
    vocab["<|endoftext|>"] = len(vocab)
    tokenizer = GPT2Tokenizer(vocab=vocab, merges=[])
    if not with_bos:
        tokenizer.bos_token = None
        tokenizer.eos_token = None
    return tokenizer


def save_tiny(model: Any, tokenizer: Any, folder: Path) -> Path:
    """Save a model and its tokenizer into ``folder`` (a local checkpoint folder)."""
    folder.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def seeded(model_factory: Any, seed: int = 0) -> Any:
    """Build a model under a fixed torch seed (random but reproducible weights)."""
    import torch

    torch.manual_seed(seed)
    return model_factory()


def build_tiny_gpt2(folder: Path, seed: int = 0, n_layer: int = 2, with_bos: bool = True) -> Path:
    """Save a random 16-dim GPT-2 and its byte-level tokenizer (``with_bos=False``: no BOS/EOS)."""
    from transformers import GPT2Config, GPT2LMHeadModel

    tokenizer = tiny_gpt2_tokenizer(with_bos=with_bos)
    special = tokenizer.bos_token_id if with_bos else None
    config = GPT2Config(
        vocab_size=len(tokenizer),
        n_positions=GPT2_POSITIONS,
        n_embd=16,
        n_layer=n_layer,
        n_head=2,
        bos_token_id=special,
        eos_token_id=special,
    )
    model = seeded(lambda: GPT2LMHeadModel(config), seed)
    return save_tiny(model, tokenizer, folder)


def build_tiny_classifier(folder: Path, seed: int = 0) -> Path:
    """Save a 2-layer, 16-dim random DistilBERT classifier (2 labels) and its tokenizer."""
    from transformers import DistilBertConfig, DistilBertForSequenceClassification

    tokenizer = tiny_bert_tokenizer()
    config = DistilBertConfig(
        vocab_size=len(tokenizer),
        dim=16,
        hidden_dim=32,
        n_layers=2,
        n_heads=2,
        max_position_embeddings=CLASSIFIER_POSITIONS,
    )
    model = seeded(lambda: DistilBertForSequenceClassification(config), seed)
    return save_tiny(model, tokenizer, folder)


def build_tiny_vera(folder: Path, seed: int = 0, num_layers: int = 2) -> Path:
    """Save a random T5 encoder with T5-v1.1's layout (gated GELU, untied) at tiny width.

    The temperature row is set to 2.0 so that the calibration visibly matters.
    """
    import torch
    from transformers import T5Config, T5EncoderModel

    config = T5Config(
        vocab_size=TINY_VOCAB,
        d_model=8,
        d_kv=4,
        d_ff=16,
        num_layers=num_layers,
        num_heads=2,
        feed_forward_proj="gated-gelu",
        # T5 v1.1's marker (no decoder output scaling), which T5Config's __post_init__(**kwargs) reads
        tie_word_embeddings=False,
    )
    model = seeded(lambda: T5EncoderModel(config), seed)
    with torch.no_grad():
        model.shared.weight[Vera.temperature_row, 0] = 2.0
    return save_tiny(model, tiny_t5_tokenizer(), folder)
