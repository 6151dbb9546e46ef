"""The real transformers tokenizer classes of CLIP, SigLIP and SigLIP 2, built offline on tiny
vocabularies learned here from generated captions (tests only; nothing is downloaded).

Each builder returns the tokenizer as its class constructs it, with the class's own defaults
(padding side, the inputs it returns), or with the settings the published checkpoints' converters
give it (``official=True``), so that tests see what a saved tokenizer really does.
"""

from __future__ import annotations

import io
import itertools
from pathlib import Path
from typing import Any

COLOURS = ("red", "blue", "green", "yellow", "black", "white")
THINGS = ("cat", "dog", "man", "woman", "square", "circle", "triangle", "horse", "car", "table")
RELATIONS = ("on", "under", "next to", "behind", "left of", "right of", "above", "below", "holding", "chasing")


def training_captions() -> list[str]:
    """A few hundred short captions (mixed case and punctuation) to learn the vocabularies from."""
    captions = []
    for (c1, t1), (c2, t2), rel in itertools.islice(
        zip(
            itertools.cycle(itertools.product(COLOURS, THINGS)),
            itertools.cycle(itertools.product(reversed(COLOURS), reversed(THINGS))),
            itertools.cycle(RELATIONS),
        ),
        360,
    ):
        captions.append(f"a {c1} {t1} {rel} a {c2} {t2}")
        captions.append(f"A {c2.title()} {t2}, {rel} the {t1}.")
    return captions


def sentencepiece_model(vocab_size: int = 160) -> bytes:
    """A unigram SentencePiece model laid out as SigLIP's C4 vocabulary: ``<pad>`` 0, ``</s>`` 1,
    ``<unk>`` 2, no BOS."""
    import sentencepiece as spm

    model = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(training_captions()),
        model_writer=model,
        vocab_size=vocab_size,
        model_type="unigram",
        pad_id=0,
        eos_id=1,
        unk_id=2,
        bos_id=-1,
        character_coverage=1.0,
        num_threads=1,
        hard_vocab_limit=False,
        minloglevel=2,
    )
    return model.getvalue()


def siglip_tokenizer(folder: Path, official: bool = False) -> Any:
    """transformers' ``SiglipTokenizer`` on a locally trained SentencePiece model, saved in ``folder``.

    ``official``: as ``convert_siglip_to_hf.py`` builds it for the published checkpoints
    (``model_input_names=["input_ids"]``); otherwise the class defaults (it also returns an
    attention mask)."""
    from transformers import SiglipTokenizer

    folder.mkdir(parents=True, exist_ok=True)
    vocab_file = folder / "spiece.model"
    vocab_file.write_bytes(sentencepiece_model())
    kwargs: dict[str, Any] = {"model_input_names": ["input_ids"]} if official else {}
    tokenizer = SiglipTokenizer(vocab_file=str(vocab_file), **kwargs)
    tokenizer.save_pretrained(folder)
    return tokenizer


def byte_level_bpe(end_of_word_suffix: str | None, specials: list[str], vocab_size: int = 400) -> tuple[dict, list]:
    """A BPE vocabulary and merges learned from :func:`training_captions`: CLIP's layout (bytes as
    characters, words split off and ending in ``end_of_word_suffix``) or, without a suffix, Gemma's
    (spaces replaced by ``▁``, no pre-tokenization), both on lower-cased text."""
    import json

    from tokenizers import Regex, Tokenizer, normalizers, pre_tokenizers, trainers
    from tokenizers.models import BPE

    if end_of_word_suffix:
        core = Tokenizer(BPE(end_of_word_suffix=end_of_word_suffix, continuing_subword_prefix=""))
        core.normalizer = normalizers.Sequence([normalizers.Replace(Regex(r"\s+"), " "), normalizers.Lowercase()])
        words = pre_tokenizers.Split(Regex(r"[\p{L}]+|[\p{N}]|[^\s\p{L}\p{N}]+"), behavior="removed", invert=True)
        core.pre_tokenizer = pre_tokenizers.Sequence([words, pre_tokenizers.ByteLevel(add_prefix_space=False)])
        alphabet = pre_tokenizers.ByteLevel.alphabet()
    else:
        core = Tokenizer(BPE())
        core.normalizer = normalizers.Sequence([normalizers.Lowercase(), normalizers.Replace(" ", "▁")])
        alphabet = sorted({ch for caption in training_captions() for ch in caption.lower().replace(" ", "▁")})
    suffix = {"end_of_word_suffix": end_of_word_suffix} if end_of_word_suffix else {}
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size, special_tokens=specials, initial_alphabet=alphabet, show_progress=False, **suffix
    )
    core.train_from_iterator(training_captions(), trainer=trainer)
    model = json.loads(core.to_str())["model"]
    merges = [tuple(m) if isinstance(m, list) else tuple(m.split(" ")) for m in model["merges"]]
    return model["vocab"], merges


def gemma_bpe_tokenizer(folder: Path, class_name: str, official: bool = False) -> Any:
    """transformers' ``Siglip2Tokenizer`` (the class SigLIP 2 NaFlex checkpoints load as: Gemma's
    BPE layout, lower-casing) or ``GemmaTokenizer`` (the class fixed-resolution SigLIP 2 checkpoints
    name: no lower-casing) on a tiny learned BPE vocabulary, appending ``<eos>`` as SigLIP 2's
    tokenizer does, saved in ``folder``.

    ``official``: the settings ``convert_siglip2_to_hf.py`` (``get_siglip2_tokenizer``) gives the
    published tokenizer (``padding_side="right"``, ``model_input_names=["input_ids"]``); otherwise
    the class defaults (left padding and an attention mask)."""
    import transformers

    specials = ["<pad>", "<eos>", "<bos>", "<unk>", "<mask>"]
    vocab, merges = byte_level_bpe(None, specials)
    kwargs: dict[str, Any] = {"padding_side": "right", "model_input_names": ["input_ids"]} if official else {}
    cls = getattr(transformers, class_name)
    tokenizer = cls(vocab=vocab, merges=merges, add_bos_token=False, add_eos_token=True, **kwargs)
    tokenizer.save_pretrained(folder)
    return tokenizer


def clip_tokenizer(folder: Path) -> Any:
    """transformers' ``CLIPTokenizer`` (byte-level BPE with ``</w>``) on a tiny learned vocabulary,
    with its own defaults (right padding with ``<|endoftext|>``, an attention mask), saved in ``folder``."""
    from transformers import CLIPTokenizer

    vocab, merges = byte_level_bpe("</w>", ["<|startoftext|>", "<|endoftext|>"])
    tokenizer = CLIPTokenizer(vocab=vocab, merges=merges)
    tokenizer.save_pretrained(folder)
    return tokenizer
