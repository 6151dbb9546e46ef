"""Training-data overlap as data: image pools, which pools share images, and the mark of a cell.

A registry model entry names the image pools it was trained on in ``meta.trained_on`` (every
stage: pre-training, fine-tuning, and the pre-training of the towers it was initialised from); a
benchmark type names the pools its images are drawn from in
:attr:`vlc_harness.benchmarks.Benchmark.image_pools`. :data:`POOLS` is the shared vocabulary: the
pools models are trained on and those more than one benchmark draws on (COCO, Visual Genome, LAION,
...). A pool only one benchmark brings (its own photographs or generated images) is declared by that
benchmark, in its card's ``own_pools``, and is known wherever the benchmark is: ``trained_on`` names
shared pools only, a benchmark's ``image_pools`` shared pools or its own. A cell is marked when a
pool of the model and a pool of the benchmark share images.

Pools share images when they are the same pool, when one is part of the other (``part_of``,
followed transitively), when both hold a common part, or when two of their parts are listed in
:data:`SHARED` (a pool that holds a part holds what the part shares). The table records only
overlaps that are documented or that follow from how the pools were cut; pools not related by it
are treated as disjoint, which is not a proof that they are: web crawls (LAION, DataComp, WebLI,
...) may hold COCO or Flickr images, and no such overlap is marked. ``undisclosed`` in
``trained_on`` says that the model's training images are not (fully) published; its cells are
marked ``unknown`` unless a listed pool already overlaps.

COCO, for example: the 2017 splits re-cut the 2014 images along Detectron's minival: val2017 is
exactly the 2014 ``minival`` (5,000 images of val2014), and train2017 is train2014 plus the rest of
val2014 (``valminusminival``, 35,504 images; facebookresearch/Detectron
``detectron/datasets/data/README.md`` @5ed75f9, "COCO Minival Annotations"). So val2017 shares no
image with train2014 or train2017 (a model fine-tuned on train2014, as CE-CLIP, has not seen
SugarCrepe's images), while the Karpathy train split (train2014 plus the 30,504 ``restval`` images
of val2014) holds 1,200 of SugarCrepe's 1,560 val2017 images: the Karpathy val and test lists
(peteanderson80/Up-Down-Captioner ``data/coco_splits/karpathy_{val,test}_images.txt`` @0b4e8e5,
5,000 val2014 images each) hold 177 and 183 of them, and val2014 is restval, val and test.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

Pools = Mapping[str, "Pool"]

UNDISCLOSED = "undisclosed"
"""``meta.trained_on`` value: the model's training images are not (fully) published."""


@dataclass(frozen=True)
class Pool:
    """One image pool of the vocabulary."""

    title: str
    part_of: tuple[str, ...] = ()
    """Pools that hold every image of this one."""
    source: str = ""
    """Where the pool is defined (paper or page)."""


POOLS: dict[str, Pool] = {
    # COCO (cocodataset.org; Lin et al. 2014), the 2017 re-cut along Detectron's minival, and the
    # Karpathy splits (Karpathy & Fei-Fei 2015: dataset_coco.json's train, restval, val and test)
    "coco-train2014": Pool(
        "COCO 2014 train (82,783 images)", ("coco-train2017", "coco-karpathy-train"), "cocodataset.org"
    ),
    "coco-val2014": Pool("COCO 2014 val (40,504 images)", (), "cocodataset.org"),
    "coco-test2014": Pool("COCO 2014 test (40,775 images)", (), "cocodataset.org"),
    "coco-train2017": Pool(
        "COCO 2017 train (118,287 images: train2014 + valminusminival)", (), "cocodataset.org; Detectron"
    ),
    "coco-val2017": Pool(
        "COCO 2017 val (5,000 images: the 2014 minival, part of val2014)", ("coco-val2014",), "Detectron"
    ),
    "coco-valminusminival2014": Pool(
        "COCO val2014 without minival (35,504 images, in train2017)", ("coco-val2014", "coco-train2017"), "Detectron"
    ),
    "coco-karpathy-train": Pool(
        "COCO Karpathy train (113,287: train2014 + 30,504 'restval' images of val2014)", (), "Karpathy & Fei-Fei 2015"
    ),
    "coco-karpathy-restval": Pool(
        "COCO Karpathy restval (30,504 images of val2014, in Karpathy train)",
        ("coco-val2014", "coco-karpathy-train"),
        "Karpathy & Fei-Fei 2015",
    ),
    "coco-karpathy-val": Pool(
        "COCO Karpathy val (5,000 images of val2014)", ("coco-val2014",), "Karpathy & Fei-Fei 2015"
    ),
    "coco-karpathy-test": Pool(
        "COCO Karpathy test (5,000 images of val2014)", ("coco-val2014",), "Karpathy & Fei-Fei 2015"
    ),
    # Flickr30k (Young et al. 2014) and its Karpathy test split
    "flickr30k": Pool("Flickr30k (31,783 images)", (), "Young et al. 2014"),
    "flickr30k-karpathy-test": Pool(
        "Flickr30k Karpathy test (1,000 images)", ("flickr30k",), "Karpathy & Fei-Fei 2015"
    ),
    # region/scene-graph and action datasets
    "vg": Pool("Visual Genome (108,077 images; GQA and VAW use them)", (), "Krishna et al. 2017"),
    "swig": Pool("SWiG / imSitu (126,102 images)", (), "Pratt et al. 2020"),
    "hake": Pool("HAKE (HICO-DET, V-COCO, OpenImages, HCVRD, PIC images)", (), "Li et al. 2019"),
    "openimages": Pool("Open Images (TextVQA and TextCaps use them)", (), "Kuznetsova et al. 2020"),
    "ocr-vqa": Pool("OCR-VQA book covers", (), "Mishra et al. 2019"),
    "imagenet-1k": Pool("ImageNet-1k", ("imagenet-21k",), "Russakovsky et al. 2015"),
    "imagenet-21k": Pool("ImageNet-21k", (), "Deng et al. 2009"),
    "objects365": Pool("Objects365", (), "Shao et al. 2019"),
    "ade20k": Pool("ADE20K", (), "Zhou et al. 2017"),
    # web-scale image-text pools
    "wit-400m": Pool("OpenAI WebImageText (400M pairs, not released)", (), "Radford et al. 2021"),
    "cc3m": Pool("Conceptual Captions 3M", (), "Sharma et al. 2018"),
    "cc12m": Pool("Conceptual 12M", (), "Changpinyo et al. 2021"),
    "sbu": Pool("SBU Captions (1M)", (), "Ordonez et al. 2011"),
    "yfcc15m": Pool("YFCC15M", (), "Radford et al. 2021"),
    "laion-400m": Pool("LAION-400M", (), "Schuhmann et al. 2021"),
    "laion-2b": Pool("LAION-2B (English part of LAION-5B)", ("laion-5b",), "Schuhmann et al. 2022"),
    "laion-5b": Pool("LAION-5B", (), "Schuhmann et al. 2022"),
    "laion-coco": Pool("LAION-COCO (LAION-2B images with synthetic captions)", ("laion-2b",), "LAION 2022"),
    "coyo-700m": Pool("COYO-700M", (), "Byeon et al. 2022"),
    "datacomp-commonpool": Pool("DataComp CommonPool (12.8B) and its scales", (), "Gadre et al. 2023"),
    "datacomp-1b": Pool("DataComp-1B", ("datacomp-commonpool",), "Gadre et al. 2023"),
    "dfn-2b": Pool("DFN-2B (filtered CommonPool; MobileCLIP2's DFNDR-2B images)", ("datacomp-commonpool",), ""),
    "dfn-5b": Pool("DFN-5B (DFN-2B plus 3B filtered from a non-public pool)", (), "Fang et al. 2023"),
    "metaclip-2.5b": Pool("MetaCLIP 2.5B (curated CommonCrawl)", (), "Xu et al. 2023"),
    "metaclip-5.4b": Pool("MetaCLIP 5.4B (Perception Encoder pre-training)", (), "Bolya et al. 2025"),
    "metaclip2-worldwide": Pool("MetaCLIP 2 worldwide (29B pairs, 300+ languages)", (), "Chuang et al. 2025"),
    "webli": Pool("WebLI (Google, not released)", (), "Chen et al. 2022"),
    # benchmark images more than one benchmark draws on (Winoground's are in SeeTRUE too)
    "winoground": Pool("Winoground (800 Getty Images photographs)", (), "Thrush et al. 2022"),
}
"""The shared vocabulary of image pools (a benchmark's own pools are in its card: ``own_pools``)."""

SHARED: dict[frozenset[str], str] = {
    frozenset({"coco-karpathy-restval", "coco-val2017"}): (
        "1,200 of SugarCrepe's 1,560 val2017 images are in neither Karpathy val nor test, so in restval"
    ),
    frozenset({"coco-karpathy-val", "coco-val2017"}): "177 of SugarCrepe's val2017 images are in Karpathy val",
    frozenset({"coco-karpathy-test", "coco-val2017"}): "183 of SugarCrepe's val2017 images are in Karpathy test",
    frozenset({"coco-karpathy-restval", "coco-valminusminival2014"}): (
        "30,504 restval and 35,504 valminusminival images of val2014's 40,504 share at least 25,504"
    ),
    frozenset({"coco-karpathy-val", "coco-valminusminival2014"}): (
        "Karpathy val is not val2017 (1,383 of SugarCrepe's val2017 images are outside it), so at least "
        "1,383 of its 5,000 val2014 images are in valminusminival"
    ),
    frozenset({"coco-karpathy-test", "coco-valminusminival2014"}): (
        "Karpathy test is not val2017 (1,377 of SugarCrepe's val2017 images are outside it), so at least "
        "1,377 of its 5,000 val2014 images are in valminusminival"
    ),
    frozenset({"vg", "coco-train2014"}): "about 51k Visual Genome images are COCO 2014 images",
    frozenset({"vg", "coco-val2014"}): "about 51k Visual Genome images are COCO 2014 images",
    frozenset({"vg", "coco-train2017"}): "about 51k Visual Genome images are COCO 2014 images; val2017 has only 5,000",
    frozenset({"hake", "coco-train2014"}): "HAKE includes V-COCO, built on COCO 2014 images",
    frozenset({"hake", "coco-val2014"}): "HAKE includes V-COCO, built on COCO 2014 images",
    frozenset({"hake", "vg"}): "HAKE includes HCVRD, built on Visual Genome images",
    frozenset({"hake", "openimages"}): "HAKE includes Open Images images",
    frozenset({"dfn-5b", "dfn-2b"}): "DFN-5B contains DFN-2B",
}
"""Documented or derived overlaps between pools that are not parts of one another, with the reason."""


def check_pools(
    pools: Iterable[str], where: str, allow_undisclosed: bool = False, known: Pools = POOLS
) -> tuple[str, ...]:
    """The pools as a tuple, after checking every name is in ``known`` (``ValueError`` naming ``where``)."""
    out = tuple(pools)
    for name in out:
        if name == UNDISCLOSED and allow_undisclosed:
            continue
        if name not in known:
            raise ValueError(f"{where}: unknown image pool {name!r}; known pools: {', '.join(sorted(known))}")
    return out


def vocabulary(own_pools: Pools, where: str = "own_pools") -> dict[str, Pool]:
    """The shared pools and a benchmark's own, checked: an own pool may not take a shared name, and
    each ``part_of`` names a known pool (``ValueError`` naming ``where``)."""
    taken = sorted(set(own_pools) & set(POOLS))
    if taken:
        raise ValueError(f"{where}: {taken[0]!r} is a shared pool (vlc_harness.overlap.POOLS); name yours otherwise")
    known = {**POOLS, **own_pools}
    for name, pool in own_pools.items():
        check_pools(pool.part_of, f"{where}: {name!r} part_of", known=known)
    return known


def check_benchmark_pools(image_pools: Iterable[str], own_pools: Pools, where: str) -> None:
    """Check a benchmark's declaration: its own pools (:func:`vocabulary`) and that each of its
    ``image_pools`` is shared or its own (``ValueError`` naming ``where``)."""
    check_pools(image_pools, f"{where} image_pools", known=vocabulary(own_pools, f"{where} own_pools"))


def _within(pool: str, pools: Pools) -> set[str]:
    """``pool`` and every pool it is (transitively) part of."""
    seen, todo = set(), [pool]
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo.extend(pools[name].part_of)
    return seen


def _parts(pool: str, pools: Pools) -> set[str]:
    """``pool`` and every pool that is (transitively) part of it."""
    return {name for name in pools if pool in _within(name, pools)}


def shared_reason(a: str, b: str, pools: Pools = POOLS) -> str | None:
    """Why pools ``a`` and ``b`` (of ``pools``: the shared ones, or :func:`vocabulary`'s) share images, or
    ``None`` when the table records no overlap."""
    if a == b:
        return "the same pool"
    if b in _within(a, pools):
        return f"{a} is part of {b}"
    if a in _within(b, pools):
        return f"{b} is part of {a}"
    common = sorted(_parts(a, pools) & _parts(b, pools))
    if common:
        return f"both hold {common[0]}"
    for x in sorted(_parts(a, pools)):
        for y in sorted(_parts(b, pools)):
            reason = SHARED.get(frozenset({x, y}))
            if reason is not None:
                return reason if (x, y) == (a, b) or (y, x) == (a, b) else f"{x} / {y}: {reason}"
    return None


def overlap_table(names: Iterable[str] | None = None, pools: Pools = POOLS) -> dict[tuple[str, str], str]:
    """Every ordered pair of distinct pools (of ``names``, default all of ``pools``) that share images,
    with the reason."""
    chosen = sorted(names if names is not None else pools)
    return {(a, b): r for a in chosen for b in chosen if a != b and (r := shared_reason(a, b, pools)) is not None}


@dataclass(frozen=True)
class OverlapMark:
    """Whether a model's training pools overlap a benchmark's image pools."""

    status: str
    """``overlap`` (some pools share images), ``unknown`` (the model's training images are
    undisclosed and no listed pool overlaps) or ``none`` (no overlap the table records)."""
    pairs: tuple[tuple[str, str, str], ...] = ()
    """``(model pool, benchmark pool, reason)`` for each overlapping pair."""

    @property
    def marked(self) -> bool:
        """True when the cell carries an overlap mark."""
        return self.status == "overlap"

    def describe(self) -> str:
        """One line for a tooltip or a note."""
        if self.status == "overlap":
            return "; ".join(f"trained on {m}, benchmark images from {b} ({r})" for m, b, r in self.pairs)
        if self.status == "unknown":
            return "training images undisclosed: overlap unknown"
        return ""


def overlap(trained_on: Iterable[str], image_pools: Iterable[str], own_pools: Pools | None = None) -> OverlapMark:
    """Which of a model's training pools (shared ones) share images with a benchmark's pools (shared
    ones or the benchmark's ``own_pools``)."""
    known = vocabulary(own_pools or {})
    model = check_pools(trained_on, "meta.trained_on", allow_undisclosed=True)
    bench = check_pools(image_pools, "image_pools", known=known)
    pairs = tuple(
        (m, b, reason)
        for m in model
        if m != UNDISCLOSED
        for b in bench
        if (reason := shared_reason(m, b, known)) is not None
    )
    if pairs:
        return OverlapMark("overlap", pairs)
    return OverlapMark("unknown" if UNDISCLOSED in model else "none")


def entry_overlap(
    meta: Mapping[str, Any], image_pools: Iterable[str], own_pools: Pools | None = None
) -> OverlapMark | None:
    """The mark of a registry model entry's ``meta`` against a benchmark's pools (and the pools it brings);
    ``None`` when either side declares nothing (an image-blind model, a benchmark without pools)."""
    trained_on = meta.get("trained_on")
    pools = tuple(image_pools)
    if trained_on is None or not pools:
        return None
    if isinstance(trained_on, str) or not isinstance(trained_on, Iterable):
        raise ValueError(f"meta.trained_on must be a list of image pools, not {trained_on!r}")
    return overlap([str(p) for p in trained_on], pools, own_pools)
