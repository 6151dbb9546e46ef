"""ARO's COCO-Order / Flickr30k-Order caption perturbations, seeded per case.

Given a caption, an Order case offers 5 texts: the original and 4 perturbations (ARO Table 1,
in the option order of ARO's ``COCO_Order``/``Flickr30k_Order``):

1. ``shuffle_nouns_and_adj``: permute the nouns (PTB NN, NNS, NNP, NNPS) among themselves and the
   adjectives (JJ, JJR, JJS) among themselves, on spaCy tokens;
2. ``shuffle_allbut_nouns_and_adj``: permute every other spaCy token (punctuation included);
3. ``shuffle_within_trigrams``: split the NLTK word tokens into consecutive trigrams (the last
   may be shorter) and permute the words inside each;
4. ``shuffle_trigrams``: permute the trigrams.

Tokens are joined with single spaces and every text (the original too) goes through ARO's
``pre_caption`` (lower-case; ``. ! " ( ) * # : ; ~`` become spaces; whitespace runs collapse;
truncated to ``max_words`` = 30 words).

As in ARO, a permutation may be the identity (two nouns keep their order half the time), so a
perturbed text can equal the original; such texts are kept (ARO does not resample) and flagged.

Randomness: ARO shuffles with the global numpy/``random`` state in loading order, so its cases
cannot be regenerated exactly. Here every case draws from its own ``random.Random`` seeded by
``sha256("aro-order/<seed>/<case key>")``: the same seed and tags give the same texts on any
machine, and one case never shifts another. :data:`PERTURBATION_VERSION` names this scheme.
"""

from __future__ import annotations

import hashlib
import random
import re
from collections.abc import Sequence
from dataclasses import dataclass

from vlc_harness_builtins.benchmarks.pos_tagging import Tagged

PERTURBATION_VERSION = "aro-order-v1"
PERTURBATIONS = (
    "shuffle_nouns_and_adj",
    "shuffle_allbut_nouns_and_adj",
    "shuffle_within_trigrams",
    "shuffle_trigrams",
)
NOUN_TAGS = frozenset({"NN", "NNS", "NNP", "NNPS"})
ADJ_TAGS = frozenset({"JJ", "JJR", "JJS"})
MAX_WORDS = 30

_PUNCT = re.compile(r"([.!\"()*#:;~])")
_SPACES = re.compile(r"\s{2,}")


def pre_caption(caption: str, max_words: int = MAX_WORDS) -> str:
    """ARO's (BLIP's) caption normalisation, applied to the original and to every perturbation."""
    text = _PUNCT.sub(" ", caption.lower())
    text = _SPACES.sub(" ", text).rstrip("\n").strip(" ")
    words = text.split(" ")
    return " ".join(words[:max_words]) if len(words) > max_words else text


def case_rng(seed: int, key: str) -> random.Random:
    """The random generator of one case under one seed (independent of every other case)."""
    digest = hashlib.sha256(f"aro-order/{seed}/{key}".encode()).digest()
    return random.Random(int.from_bytes(digest[:16], "big"))


def _permute_positions(tokens: list[str], positions: Sequence[int], rng: random.Random) -> None:
    values = [tokens[i] for i in positions]
    rng.shuffle(values)
    for i, v in zip(positions, values):
        tokens[i] = v


def shuffle_nouns_and_adj(tagged: Tagged, rng: random.Random) -> str:
    """Permute nouns among nouns and adjectives among adjectives (nouns first, as ARO draws)."""
    tokens = [tok for tok, _ in tagged]
    _permute_positions(tokens, [i for i, (_, tag) in enumerate(tagged) if tag in NOUN_TAGS], rng)
    _permute_positions(tokens, [i for i, (_, tag) in enumerate(tagged) if tag in ADJ_TAGS], rng)
    return " ".join(tokens)


def shuffle_allbut_nouns_and_adj(tagged: Tagged, rng: random.Random) -> str:
    """Permute every token that is neither a noun nor an adjective."""
    tokens = [tok for tok, _ in tagged]
    keep = NOUN_TAGS | ADJ_TAGS
    _permute_positions(tokens, [i for i, (_, tag) in enumerate(tagged) if tag not in keep], rng)
    return " ".join(tokens)


def trigrams(words: Sequence[str]) -> list[list[str]]:
    """Consecutive groups of 3 words; the last group holds the 1 or 2 words left over."""
    return [list(words[i : i + 3]) for i in range(0, len(words), 3)]


def shuffle_within_trigrams(words: Sequence[str], rng: random.Random) -> str:
    """Permute the words inside each trigram."""
    groups = trigrams(words)
    for g in groups:
        rng.shuffle(g)
    return " ".join(" ".join(g) for g in groups)


def shuffle_trigrams(words: Sequence[str], rng: random.Random) -> str:
    """Permute the trigrams, keeping each one's word order."""
    groups = trigrams(words)
    rng.shuffle(groups)
    return " ".join(" ".join(g) for g in groups)


@dataclass(frozen=True)
class OrderCase:
    """The 5 texts of one Order case (original first) and which perturbations equal the original."""

    texts: tuple[str, str, str, str, str]
    identical: tuple[bool, bool, bool, bool]


def order_case(
    caption: str, tagged: Tagged, words: Sequence[str], rng: random.Random, max_words: int = MAX_WORDS
) -> OrderCase:
    """Build a case from a raw caption, its spaCy tags and its NLTK words."""
    original = pre_caption(caption, max_words)
    raw = (
        shuffle_nouns_and_adj(tagged, rng),
        shuffle_allbut_nouns_and_adj(tagged, rng),
        shuffle_within_trigrams(words, rng),
        shuffle_trigrams(words, rng),
    )
    perturbed = tuple(pre_caption(t, max_words) for t in raw)
    return OrderCase(
        texts=(original, *perturbed),  # type: ignore[arg-type]
        identical=tuple(t == original for t in perturbed),  # type: ignore[arg-type]
    )
