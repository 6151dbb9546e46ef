"""ARO's COCO-Order and Flickr30k-Order (Yuksekgonul et al., ICLR 2023): the original caption among 4
word-order perturbations, seeded per case. The reference: their cards, ``cards/aro_*_order.md``."""

from __future__ import annotations

import hashlib
import random
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from vlc_harness import hookimpl
from vlc_harness.cards import BenchmarkCard
from vlc_harness.datafiles import ImageArchive
from vlc_harness.errors import DataUnavailable
from vlc_harness.metrics.order import OrderAccuracy
from vlc_harness.requires import Requires
from vlc_harness.sources import ImageFolder, read_json_records
from vlc_harness.sources.fields import NAME, TEXT, list_of
from vlc_harness.types import ImageSource, Instance
from vlc_harness_builtins.benchmarks.aro import CARDS, AroTask
from vlc_harness_builtins.benchmarks.pos_tagging import Tagged, TaggerError, load_tagger, tagger_identity

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
ORDER_CHANCE = 0.2
KARPATHY_URL = "https://storage.googleapis.com/sfr-vision-language-research/datasets/{}"
COCO_VAL2014 = "http://images.cocodataset.org/zips/val2014.zip"
FLICKR30K_FORM = "https://forms.illinois.edu/sec/229675"

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
    a, b, c, d = (pre_caption(t, max_words) for t in raw)
    return OrderCase(
        texts=(original, a, b, c, d), identical=(a == original, b == original, c == original, d == original)
    )


@dataclass(frozen=True)
class COCOOrderParams:
    """Karpathy file and image locations, seeds, POS tagger (``spacy[:model]`` or ``table:<path>``)."""

    version: Literal["upstream", "custom"] = "upstream"
    annotations_dir: str = "karpathy"
    images_dir: str = "coco"
    seeds: tuple[int, ...] = (0, 1, 2)
    tagger: str = "spacy:en_core_web_sm"
    max_words: int = 30


@dataclass(frozen=True)
class Flickr30kOrderParams(COCOOrderParams):
    """As COCO-Order, with the Flickr30k image folder."""

    images_dir: str = "flickr30k"


class _AroOrder(AroTask):
    """Pick the original caption among it and 4 word-order perturbations (ties count right)."""

    requires = Requires(extras=("aro",), scoring=("spacy", "nltk"), spacy_model_param="tagger")

    @property
    def data_version(self) -> str:
        """File content, seeds, tagger versions and perturbation scheme."""
        seeds = ".".join(str(s) for s in self.params.seeds)
        tagger = tagger_identity(self.params.tagger, self.data_root)
        content = self.data_source().data_version
        return f"{content}/seeds-{seeds}/{tagger}/{PERTURBATION_VERSION}/max{self.params.max_words}"

    def annotation_url(self) -> str:
        """BLIP's Karpathy test split file."""
        return KARPATHY_URL.format(self.annotation_file)

    def get_hint(self) -> str:
        """Download BLIP's file."""
        return (
            f"download {KARPATHY_URL.format(self.annotation_file)} to {self.annotation_path} "
            "(`vlc-harness data fetch`); it is not pinned by sha256 (no upstream checksum is published)"
        )

    def validate_seeds(self) -> tuple[int, ...]:
        """The seeds, checked: at least one, no repeats."""
        seeds = tuple(self.params.seeds)
        if not seeds or len(set(seeds)) != len(seeds):
            raise ValueError(f"{self.type_name}: seeds must be distinct and at least one, got {list(seeds)}")
        return seeds

    def load_instances(self) -> list[Instance]:
        """One case per caption per seed: ``seed<k>/<case index>``, seeds in the order given."""
        seeds = self.validate_seeds()
        annotations = read_json_records(self.annotation_path, self.title, {"image": NAME, "caption": list_of(TEXT)})
        cases = [(ann["image"], i, cap) for ann in annotations for i, cap in enumerate(ann["caption"])]
        tagger = load_tagger(self.params.tagger, self.data_root)
        unique = sorted({cap for _, _, cap in cases})
        try:
            tags = dict(zip(unique, tagger.tag_many(unique)))
            words = {cap: tagger.words(cap) for cap in unique}
        except TaggerError as exc:
            raise DataUnavailable(f"{self.title}: {exc}") from None
        images = self.path(self.params.images_dir)
        out = []
        for seed in seeds:
            for k, (image, i, cap) in enumerate(cases):
                case = order_case(cap, tags[cap], words[cap], case_rng(seed, f"{image}#{i}"), self.params.max_words)
                out.append(
                    Instance(
                        id=f"seed{seed}/{k}",
                        category=f"seed{seed}",
                        images=(ImageSource(images / image),),
                        texts=case.texts,
                        gold={"positive": 0, "seed": seed, "identical": list(case.identical)},
                    )
                )
        return out

    metrics = (
        OrderAccuracy(
            "i2t_accuracy",
            PERTURBATIONS,
            pairwise_id="i2t_pairwise_accuracy",
            identical_id="identical_rate",
            chance=ORDER_CHANCE,
            description="accuracy of picking the original caption among 5 (per seed; 'all': the mean over seeds, "
            "ARO Table 5); a tie with the original counts right, as ARO's first-index argmax does",
        ),
    )


class COCOOrder(_AroOrder):
    """ARO COCO-Order: COCO Karpathy test captions (5,000 val2014 images) and 4 perturbations each."""

    type_name = "aro_coco_order"
    card = BenchmarkCard.read(CARDS / "aro_coco_order.md")
    Params = COCOOrderParams
    annotation_file = "coco_karpathy_test.json"

    def image_folder(self) -> ImageFolder:
        """COCO val2014 (about 6 GB), unzipped into ``images_dir``."""
        images_dir = Path(self.params.images_dir)
        marker = images_dir / "val2014" / "COCO_val2014_000000391895.jpg"
        archives = () if images_dir.is_absolute() else (ImageArchive(COCO_VAL2014, str(images_dir), str(marker)),)
        hint = (
            f"run `vlc-harness data fetch -b aro_coco_order --images`, or download {COCO_VAL2014} and unzip it "
            f"so that {self.path(images_dir)}/val2014/COCO_val2014_000000391895.jpg exists, or set images_dir"
        )
        return ImageFolder(self.path(images_dir), hint, archives, manual=not archives)


class Flickr30kOrder(_AroOrder):
    """ARO Flickr30k-Order: Flickr30k Karpathy test captions (1,000 images) and 4 perturbations each."""

    type_name = "aro_flickr30k_order"
    card = BenchmarkCard.read(CARDS / "aro_flickr30k_order.md")
    Params = Flickr30kOrderParams
    annotation_file = "flickr30k_test.json"

    def image_folder(self) -> ImageFolder:
        """Flickr30k needs a sign-up."""
        images = self.path(self.params.images_dir)
        hint = (
            f"Flickr30k images need a sign-up at {FLICKR30K_FORM}; put them so that "
            f"{images}/flickr30k-images/<id>.jpg exist, or set images_dir"
        )
        return ImageFolder(images, hint, manual=True)


@hookimpl
def register_benchmarks(register: Any) -> None:
    """Register ARO's COCO-Order and Flickr30k-Order."""
    for cls in (COCOOrder, Flickr30kOrder):
        register(cls)
