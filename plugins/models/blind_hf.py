"""Shared helpers of the image-blind Hugging Face model plugins (``blind_*``); registers nothing.

* :func:`checkpoint_identity`: ``hf:<repo>@<commit>`` for a hub checkpoint name, or
  ``local-dir:sha256:<hex>`` (a digest of every file's name and sha256) for a local folder.
* :func:`load_checked`: ``from_pretrained`` pinned to the identified commit, refusing a checkpoint
  that leaves any weight of the architecture uninitialised (a classifier head missing from a base
  model checkpoint would otherwise score with random weights).
* ``tiny_*``: random-weight checkpoints and tokenizers built locally (no hub), for the
  conformance examples and the tests.

Heavy imports (torch, transformers, tokenizers) happen inside the functions only.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from vlc_harness.kit.weights import dir_identity, hub_identity, pinned_revision

HF_WEIGHT_FILES = (
    "model.safetensors",
    "model.safetensors.index.json",
    "pytorch_model.bin",
    "pytorch_model.bin.index.json",
)
"""The weight files whose presence in the local hub cache identifies a cached checkpoint."""
PRECISIONS = ("fp32", "bf16", "fp16")
TINY_WORDS = (
    "a an the red blue green yellow square circle above below on in of with man woman dog cat "
    "riding horse beach table sitting standing next to is are two people street car"
).split()
"""Words of the tiny test vocabularies (the conformance texts are made of them)."""


def is_local_path(checkpoint: str) -> bool:
    """True for a name that can only be a local path (absolute, ``./``, ``../``, ``~``)."""
    return checkpoint.startswith(("/", "./", "../", "~")) or Path(checkpoint).expanduser().is_dir()


def checkpoint_identity(checkpoint: str, extra_files: Sequence[str] = ()) -> str:
    """``local-dir:sha256:<hex>`` for a local folder, else ``hf:<repo>@<commit>`` of a hub name.

    A hub name is resolved online (short timeout) or from the local cache; neither raises
    :class:`~vlc_harness.errors.WeightsUnavailable`. A local path that does not exist raises
    :class:`FileNotFoundError`.
    """
    if is_local_path(checkpoint):
        path = Path(checkpoint).expanduser()
        if not path.is_dir():
            raise FileNotFoundError(f"local checkpoint folder {path} does not exist")
        return "local-dir:sha256:" + dir_identity(path)
    return hub_identity(checkpoint, [*HF_WEIGHT_FILES, *extra_files])


def load_source(checkpoint: str, weights: str | None) -> tuple[str, dict[str, Any]]:
    """What to pass to ``from_pretrained``: the folder or repo, and the pinned ``revision``.

    ``weights`` is the identity from :func:`checkpoint_identity` (``None`` if not identified);
    a hub checkpoint is then loaded at exactly the identified commit.
    """
    if is_local_path(checkpoint):
        return str(Path(checkpoint).expanduser()), {}
    revision = pinned_revision(weights or "")
    return checkpoint, ({"revision": revision} if revision else {})


def torch_dtype(precision: str, device: str) -> Any:
    """The torch dtype of a precision name; fp16 needs a CUDA device."""
    import torch

    if precision not in PRECISIONS:
        raise ValueError(f"precision must be one of {', '.join(PRECISIONS)}, got {precision!r}")
    if precision == "fp16" and not device.startswith("cuda"):
        raise ValueError(f"precision fp16 needs a CUDA device; on {device} use fp32 or bf16")
    return {"fp32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}[precision]


def load_checked(model_cls: Any, source: str, dtype: Any, device: str, **kwargs: Any) -> Any:
    """``model_cls.from_pretrained`` in eval mode on ``device``; raise if any weight is missing.

    Unexpected keys (a full T5 checkpoint loaded as its encoder) are fine; missing or
    shape-mismatched keys mean part of the model would be randomly initialised, which is refused.
    """
    model, info = model_cls.from_pretrained(source, dtype=dtype, output_loading_info=True, **kwargs)
    missing = sorted(info.get("missing_keys") or [])
    mismatched = list(info.get("mismatched_keys") or [])
    if missing or mismatched:
        shown = ", ".join([*missing[:5], *[str(m[0]) for m in mismatched[:5]]])
        raise ValueError(
            f"checkpoint {source} does not fit {model_cls.__name__}: {len(missing)} missing and "
            f"{len(mismatched)} mismatched weight(s) ({shown}); refusing to score with random weights"
        )
    return model.to(device).eval()


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
