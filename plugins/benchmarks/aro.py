"""ARO (Yuksekgonul et al., ICLR 2023): VG-Relation, VG-Attribution, COCO-Order, Flickr30k-Order.

Four benchmark types, all image-to-text choices (ARO's retrieval experiments with shuffled
captions, Tables 3-4, are out of scope):

* ``aro_vg_relation``: a Visual Genome image cropped to the box of two objects, the true caption
  "the [object 1] is [relation] [object 2]" vs the swapped one. Category: ``relation_name``.
* ``aro_vg_attribution``: the same crop, "the [attr 1] [obj 1] and the [attr 2] [obj 2]" vs the
  attributes swapped. Category: ``<attributes[0]>_<attributes[1]>`` (ARO's key; order matters).
* ``aro_coco_order`` / ``aro_flickr30k_order``: a Karpathy-test image, its caption and 4 word-order
  perturbations (:mod:`vlc_harness_builtins.benchmarks.aro_order`), one case per caption per seed.

Data (upstream JSON schemas, read as ARO's ``dataset_zoo/aro_datasets.py`` reads them)::

    <data root>/aro/visual_genome_relation.json     # [{image_path, bbox_x, bbox_y, bbox_w, bbox_h,
                                                    #   true_caption, false_caption, relation_name}, ...]
    <data root>/aro/visual_genome_attribution.json  # same fields, ``attributes`` [a1, a2] for relation_name
    <data root>/aro/images/<image_path>             # ARO's vgr_vga_images.zip (a GQA subset), unzipped in aro/
    <data root>/karpathy/coco_karpathy_test.json    # [{image: "val2014/COCO_val2014_....jpg", caption: [...]}, ...]
    <data root>/karpathy/flickr30k_test.json        # [{image: "flickr30k-images/....jpg", caption: [...]}, ...]
    <data root>/coco/val2014/...   <data root>/flickr30k/flickr30k-images/...

The VG files and images are on Google Drive (ids as ARO's code names them: relation
``1kX2iCHEv0CADL8dSO1nMdW-V0NqIAiP3``, attribution ``13tWvOrNOLHxl3Rm9cR3geAdHx2qR3-Tw``, images
``1qaPlrwhGNMrR3a11iopZUT_GPP_LrgP9``); the Karpathy files are BLIP's. **No upstream checksum is
published and none could be verified here**, so these files are *unpinned*: ``data_files`` lists
them with sha256 ``"unpinned"``, ``check_data`` checks presence only, and the data version names
the sha256 of the file actually read (``upstream-unpinned-<sha256[:12]>``), so scores of two
different files never mix. ``version: custom`` reads the same paths under ``custom-<sha>``.

Metrics (ARO takes the argmax over ``caption_options``; ``np.argmax`` returns the first maximum):

* VG tasks store ``[false, true]`` and count a case right when the argmax is 1, so a tie is
  WRONG (strict ``>``, tie rule ``wrong``). ``i2t_accuracy`` per relation / attribute pair (all of
  them, with counts); ``i2t_accuracy_macro``: the unweighted mean over relations minus ARO's
  symmetric list (``aro_symmetric_relations.json``, param ``exclude_symmetric``) / over attribute
  pairs with at least 25 cases (param ``min_pair_count``), the paper's "macro accuracy" and the
  headline; for VG-Relation also over the spatial and verb relations of ARO Table 2;
  ``i2t_accuracy_micro``: pooled over every case (no filter).
* Order tasks put the original first and count the argmax 0 right, so a tie with the original
  is RIGHT (tie rule ``right``), e.g. a perturbation identical to the original. Chance is 1/5.
  ``i2t_accuracy`` per seed (categories ``seed<k>``) and, under ``all``, the mean over seeds (ARO
  Table 5 averages 3 seeds; every seed has the same cases, so this is also the pooled accuracy);
  ``i2t_accuracy_seed_std`` (sample std over seeds); ``i2t_pairwise_accuracy`` (original vs each
  perturbation); ``identical_rate`` (perturbations equal to the original, per perturbation and
  ``any``). The seed is part of each instance id (``seed<k>/<case index>``) and the seeds, the
  tagger's versions and the perturbation scheme are part of the data version.

Known differences from ARO's code: the shuffles use per-case seeded generators (not ARO's global
RNG) and whatever spaCy/NLTK versions are installed, so the Order texts are ARO's procedure, not
ARO's exact strings (``aro_order``); ``vlc_harness.images`` clips a crop box to the image where PIL
would pad it with black.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path
from typing import Any, ClassVar, Literal

from vlc_harness import hookimpl
from vlc_harness.benchmarks import Benchmark, DataFile, ImageArchive, load_reference_rows
from vlc_harness.errors import DataUnavailable
from vlc_harness.metrics import Macro, Micro, PairwiseAccuracy, PerCategory
from vlc_harness.metrics.order import OrderAccuracy
from vlc_harness.types import ImageSource, Instance, ReferenceRow
from vlc_harness_builtins.benchmarks.aro_order import PERTURBATION_VERSION, PERTURBATIONS, case_rng, order_case

ARO_REPO = "https://github.com/mertyg/vision-language-models-are-bows"
ARO_COMMIT = "81fdd20dc5b6f434aa5a4a971717bc80d1cedb0d"
ARO_CITATION = (
    "Yuksekgonul, Bianchi, Kalluri, Jurafsky, Zou. When and why vision-language models behave like "
    "bags-of-words, and what to do about it? ICLR 2023."
)
UNPINNED = "unpinned"
"""The sha256 of a file whose upstream publishes no checksum (presence is checked, not content)."""
GDRIVE_URL = "https://drive.google.com/uc?export=download&id={}"
GDRIVE_IDS = {
    "visual_genome_relation.json": "1kX2iCHEv0CADL8dSO1nMdW-V0NqIAiP3",
    "visual_genome_attribution.json": "13tWvOrNOLHxl3Rm9cR3geAdHx2qR3-Tw",
    "vgr_vga_images.zip": "1qaPlrwhGNMrR3a11iopZUT_GPP_LrgP9",
}
KARPATHY_URL = "https://storage.googleapis.com/sfr-vision-language-research/datasets/{}"
COCO_VAL2014 = "http://images.cocodataset.org/zips/val2014.zip"
FLICKR30K_FORM = "https://forms.illinois.edu/sec/229675"
RULES_FILE = Path(__file__).with_name("aro_symmetric_relations.json")
REFERENCE_FILE = Path(__file__).with_name("aro_reference.json")
VG_FIELDS = ("image_path", "bbox_x", "bbox_y", "bbox_w", "bbox_h", "true_caption", "false_caption")
VGA_MIN_PAIR_COUNT = 25  # VG_Attribution.evaluate_scores skips pairs with fewer cases
ORDER_CHANCE = 0.2
ARO_PAPER = "ARO (Yuksekgonul et al., ICLR 2023)"


@dataclass(frozen=True)
class RelationRules:
    """ARO's VG-Relation rules as data: the symmetric relations and the Table 2 groups."""

    symmetric: frozenset[str]
    groups: dict[str, tuple[str, ...]]


def relation_rules(path: Path = RULES_FILE) -> RelationRules:
    """Read ``aro_symmetric_relations.json``."""
    data = json.loads(path.read_text(encoding="utf-8"))
    return RelationRules(
        frozenset(data["symmetric_relations"]), {g: tuple(rs) for g, rs in data["relation_groups"].items()}
    )


def file_sha256(path: Path) -> str:
    """sha256 of a file (cached by the harness's file-hash cache)."""
    from vlc_harness.hashing import sha256_file

    return sha256_file(path)


def content_version(version: str, path: Path) -> str:
    """``upstream-unpinned-<sha12>`` or ``custom-<sha12>`` of the file actually present."""
    digest = file_sha256(path)[:12] if path.is_file() else "missing"
    return f"custom-{digest}" if version == "custom" else f"upstream-{UNPINNED}-{digest}"


def read_records(path: Path, fields: tuple[str, ...], what: str) -> list[dict[str, Any]]:
    """A JSON list of records, each with ``fields``; a malformed file is DataUnavailable."""
    try:
        records = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise DataUnavailable(f"{what}: cannot read {path} as JSON ({exc})") from None
    if not isinstance(records, list):
        raise DataUnavailable(f"{what}: {path} is not a JSON list of records (the upstream schema)")
    for k, rec in enumerate(records):
        missing = [f for f in fields if not isinstance(rec, dict) or f not in rec]
        if missing:
            raise DataUnavailable(f"{what}: record {k} of {path} lacks {', '.join(missing)}")
    return records


def fetch_unpinned(dest: Path, url: str, manual: str, progress: bool) -> str:
    """Download an unpinned JSON file once (never re-downloaded); reject anything that is not JSON."""
    from vlc_harness.datafetch import FetchError, download

    if dest.is_file():
        return f"present  {dest} (unpinned: no upstream checksum)"
    download(url, dest, None, progress)
    try:
        json.loads(dest.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        dest.unlink(missing_ok=True)
        raise FetchError(f"{url} did not return the JSON file (a confirmation page?); {manual}") from None
    return f"fetched  {dest} (unpinned: sha256 {file_sha256(dest)[:12]}...)"


def crop(rec: dict[str, Any]) -> dict[str, list[Any]]:
    """ARO's crop box ``[x, y, w, h]`` of a VG record, as an image transform."""
    return {"crop": [rec["bbox_x"], rec["bbox_y"], rec["bbox_w"], rec["bbox_h"]]}


def vg_images_hint(images: Path) -> str:
    """Where to get ARO's VG-Relation/Attribution images."""
    return (
        f"download ARO's vgr_vga_images.zip (Google Drive id {GDRIVE_IDS['vgr_vga_images.zip']}: "
        f"`gdown --no-cookies {GDRIVE_IDS['vgr_vga_images.zip']}`, about 1 GB) and unzip it so that its images "
        f"are under {images}, or set the benchmark's images_dir param"
    )


class _Aro(Benchmark):
    """Shared metadata and reference rows of the four ARO types."""

    citation = ARO_CITATION
    homepage = ARO_REPO
    reference_file = REFERENCE_FILE
    annotation_file: ClassVar[str]

    def _dir(self, relative: str) -> Path:
        return Path(relative) if Path(relative).is_absolute() else self.data_root / relative

    @property
    def annotation_path(self) -> Path:
        """The annotation file this benchmark reads."""
        return self._dir(self.params.annotations_dir) / self.annotation_file

    def reference_rows(self) -> list[ReferenceRow]:
        """This task's rows of ``aro_reference.json``."""
        return [r for r in load_reference_rows(REFERENCE_FILE) if r.benchmark == self.type_name]

    def check_data(self) -> None:
        """The annotation file is present (it is unpinned: no checksum to compare)."""
        path = self.annotation_path
        if not path.is_file():
            raise DataUnavailable(f"{self.title} data is not ready: missing {path} ({self._get_hint()})")

    def _get_hint(self) -> str:
        raise NotImplementedError

    def image_dir(self) -> Path:
        """The image folder (``images_dir`` param)."""
        return self._dir(self.params.images_dir)


# --------------------------------------------------------------------------------------------
# VG-Relation and VG-Attribution


@dataclass(frozen=True)
class VGRelationParams:
    """Data location and ARO's macro rule (drop the symmetric relations)."""

    version: Literal["upstream", "custom"] = "upstream"
    annotations_dir: str = "aro"
    images_dir: str = "aro/images"
    exclude_symmetric: bool = True


@dataclass(frozen=True)
class VGAttributionParams:
    """Data location and ARO's macro rule (skip attribute pairs with fewer cases)."""

    version: Literal["upstream", "custom"] = "upstream"
    annotations_dir: str = "aro"
    images_dir: str = "aro/images"
    min_pair_count: int = VGA_MIN_PAIR_COUNT


class _AroVG(_Aro):
    """A cropped VG image, the true caption and the swapped one; strict ``>`` (ARO's argmax)."""

    headline = "i2t_accuracy_macro"
    license = "ARO code MIT; annotations templated from GQA/Visual Genome scene graphs (CC BY 4.0)"
    captions_redistributable = True
    extra_fields: ClassVar[tuple[str, ...]] = ()
    unit: ClassVar[str] = ""

    @property
    def data_version(self) -> str:
        """``upstream-unpinned-<sha12>`` or ``custom-<sha12>`` of the annotation file."""
        return content_version(self.params.version, self.annotation_path)

    def data_files(self) -> list[DataFile]:
        """The annotation file, unpinned, with its Google Drive URL."""
        if self.params.version == "custom":
            return []
        relpath = str(Path(self.params.annotations_dir) / self.annotation_file)
        return [DataFile(relpath, UNPINNED, GDRIVE_URL.format(GDRIVE_IDS[self.annotation_file]))]

    def _get_hint(self) -> str:
        gid = GDRIVE_IDS[self.annotation_file]
        return (
            f"get ARO's {self.annotation_file} from Google Drive: `gdown --id {gid} -O {self.annotation_path}` "
            f"or {GDRIVE_URL.format(gid)}; it is not pinned by sha256 (no upstream checksum is published)"
        )

    def fetch(self, images: bool = False, progress: bool = True) -> list[str]:
        """Download the annotation file (unpinned); the 1 GB image zip is left to ``gdown``."""
        if self.params.version == "custom":
            return []
        gid = GDRIVE_IDS[self.annotation_file]
        lines = [fetch_unpinned(self.annotation_path, GDRIVE_URL.format(gid), self._get_hint(), progress)]
        if images:
            lines.append(f"images: not downloadable here; {vg_images_hint(self.image_dir())}")
        return lines

    def image_hint(self) -> str:
        """ARO's image zip on Google Drive."""
        return vg_images_hint(self.image_dir())

    def category(self, rec: dict[str, Any]) -> str:
        """The upstream grouping key of a record."""
        raise NotImplementedError

    def load_instances(self) -> list[Instance]:
        """Every record in file order: ``<category>/<index in the file>``."""
        records = read_records(self.annotation_path, VG_FIELDS + self.extra_fields, self.title)
        images = self.image_dir()
        out = []
        for k, rec in enumerate(records):
            category = self.category(rec)
            out.append(
                Instance(
                    id=f"{category}/{k}",
                    category=category,
                    images=(ImageSource(images / rec["image_path"], crop(rec)),),
                    texts=(rec["true_caption"], rec["false_caption"]),
                    gold={"positive": 0},
                )
            )
        return out

    def _declaration(self, macro: list[Macro], macro_description: str) -> tuple[PairwiseAccuracy]:
        """Per-{unit} accuracy (every one, with its count), the macro (headline) and the micro."""
        unit = self.unit
        return (
            PairwiseAccuracy(
                "i2t_accuracy",
                f"image-to-text accuracy per {unit} (every {unit}, with its count)",
                (
                    PerCategory(unit=unit),
                    *(replace(m, description=macro_description) for m in macro),
                    Micro("i2t_accuracy_micro", "image-to-text accuracy pooled over every case (no filter)"),
                ),
            ),
        )


class VGRelation(_AroVG):
    """ARO VG-Relation: subject and object swapped around a relation; macro over relations."""

    type_name = "aro_vg_relation"
    title = "ARO VG-Relation"
    headline_source = f"{ARO_PAPER} Tables 2 and 6: VG-Relation macro accuracy, symmetric relations left out"
    image_pools = ("vg",)
    Params = VGRelationParams
    annotation_file = "visual_genome_relation.json"
    extra_fields = ("relation_name",)
    unit = "relation"

    def category(self, rec: dict[str, Any]) -> str:
        """``relation_name``."""
        return str(rec["relation_name"])

    @cached_property
    def rules(self) -> RelationRules:
        """The symmetric list and the relation groups."""
        return relation_rules()

    def metric_families(self) -> tuple[PairwiseAccuracy]:
        """Macro over the relations that are not excluded, and over ARO Table 2's spatial and verb groups."""
        excluded = self.rules.symmetric if self.params.exclude_symmetric else frozenset()
        note = " (ARO's symmetric relations excluded)" if self.params.exclude_symmetric else ""
        macro = [
            Macro("i2t_accuracy_macro", exclude=excluded, what=f"relations{note}"),
            Macro(
                "i2t_accuracy_macro", groups=dict(sorted(self.rules.groups.items())), exclude=excluded, what="relations"
            ),
        ]
        return self._declaration(
            macro,
            "unweighted mean of the relation accuracies, ARO's symmetric relations excluded (ARO's "
            "'macro accuracy'); categories spatial and verb: the same over ARO Table 2's groups",
        )


class VGAttribution(_AroVG):
    """ARO VG-Attribution: attributes swapped between two objects; macro over attribute pairs."""

    type_name = "aro_vg_attribution"
    title = "ARO VG-Attribution"
    headline_source = f"{ARO_PAPER} Table 6: VG-Attribution macro accuracy over attribute pairs with 25+ cases"
    image_pools = ("vg",)
    Params = VGAttributionParams
    annotation_file = "visual_genome_attribution.json"
    extra_fields = ("attributes",)
    unit = "attribute pair"

    def category(self, rec: dict[str, Any]) -> str:
        """``<attributes[0]>_<attributes[1]>`` (ARO's key)."""
        a, b = rec["attributes"]
        return f"{a}_{b}"

    def metric_families(self) -> tuple[PairwiseAccuracy]:
        """Macro over the attribute pairs with at least ``min_pair_count`` cases."""
        count = self.params.min_pair_count
        macro = [Macro("i2t_accuracy_macro", min_n=count, what=f"attribute pairs with at least {count} cases")]
        return self._declaration(
            macro,
            f"unweighted mean of the attribute-pair accuracies over pairs with at least {count} cases (ARO's "
            "'macro accuracy'; ARO's code skips pairs with fewer than 25)",
        )


# --------------------------------------------------------------------------------------------
# COCO-Order and Flickr30k-Order


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


class _AroOrder(_Aro):
    """Pick the original caption among it and 4 word-order perturbations (ties count right)."""

    headline = "i2t_accuracy"
    headline_source = f"{ARO_PAPER} Tables 5 and 6, Order columns: accuracy over 3 seeds (ARO's procedure, our strings)"

    @property
    def data_version(self) -> str:
        """File content, seeds, tagger versions and perturbation scheme."""
        from vlc_harness_builtins.benchmarks.pos_tagging import tagger_identity

        seeds = ".".join(str(s) for s in self.params.seeds)
        tagger = tagger_identity(self.params.tagger, self.data_root)
        content = content_version(self.params.version, self.annotation_path)
        return f"{content}/seeds-{seeds}/{tagger}/{PERTURBATION_VERSION}/max{self.params.max_words}"

    def data_files(self) -> list[DataFile]:
        """BLIP's Karpathy test split file, unpinned."""
        if self.params.version == "custom":
            return []
        relpath = str(Path(self.params.annotations_dir) / self.annotation_file)
        return [DataFile(relpath, UNPINNED, KARPATHY_URL.format(self.annotation_file))]

    def _get_hint(self) -> str:
        return (
            f"download {KARPATHY_URL.format(self.annotation_file)} to {self.annotation_path} "
            "(`vlc-harness data fetch`); it is not pinned by sha256 (no upstream checksum is published)"
        )

    def fetch(self, images: bool = False, progress: bool = True) -> list[str]:
        """The Karpathy file (unpinned) and, with ``images``, the image archive where there is one."""
        from vlc_harness.datafetch import fetch_archive

        if self.params.version == "custom":
            return []
        url = KARPATHY_URL.format(self.annotation_file)
        lines = [fetch_unpinned(self.annotation_path, url, self._get_hint(), progress)]
        if images:
            archives = self.image_archives()
            lines += [fetch_archive(self.data_root, a, progress) for a in archives]
            if not archives:
                lines.append(f"images: {self.image_hint()}")
        return lines

    def validate_seeds(self) -> tuple[int, ...]:
        """The seeds, checked: at least one, no repeats."""
        seeds = tuple(self.params.seeds)
        if not seeds or len(set(seeds)) != len(seeds):
            raise ValueError(f"{self.type_name}: seeds must be distinct and at least one, got {list(seeds)}")
        return seeds

    def load_instances(self) -> list[Instance]:
        """One case per caption per seed: ``seed<k>/<case index>``, seeds in the order given."""
        from vlc_harness_builtins.benchmarks.pos_tagging import TaggerError, load_tagger

        seeds = self.validate_seeds()
        annotations = read_records(self.annotation_path, ("image", "caption"), self.title)
        cases = [(ann["image"], i, cap) for ann in annotations for i, cap in enumerate(ann["caption"])]
        tagger = load_tagger(self.params.tagger, self.data_root)
        unique = sorted({cap for _, _, cap in cases})
        try:
            tags = dict(zip(unique, tagger.tag_many(unique)))
            words = {cap: tagger.words(cap) for cap in unique}
        except TaggerError as exc:
            raise DataUnavailable(f"{self.title}: {exc}") from None
        images = self.image_dir()
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
    title = "ARO COCO-Order"
    image_pools = ("coco-karpathy-test",)
    Params = COCOOrderParams
    annotation_file = "coco_karpathy_test.json"
    license = "ARO code MIT; COCO captions CC BY 4.0; images under Flickr terms"
    captions_redistributable = True

    def image_archives(self) -> list[ImageArchive]:
        """COCO val2014 (about 6 GB), unzipped into ``images_dir``."""
        images = Path(self.params.images_dir)
        if images.is_absolute():
            return []
        return [ImageArchive(COCO_VAL2014, str(images), str(images / "val2014" / "COCO_val2014_000000391895.jpg"))]

    def image_hint(self) -> str:
        """COCO val2014."""
        return (
            f"run `vlc-harness data fetch -b aro_coco_order --images`, or download {COCO_VAL2014} and unzip it "
            f"so that {self.image_dir()}/val2014/COCO_val2014_000000391895.jpg exists, or set images_dir"
        )


class Flickr30kOrder(_AroOrder):
    """ARO Flickr30k-Order: Flickr30k Karpathy test captions (1,000 images) and 4 perturbations each."""

    type_name = "aro_flickr30k_order"
    title = "ARO Flickr30k-Order"
    image_pools = ("flickr30k-karpathy-test",)
    Params = Flickr30kOrderParams
    annotation_file = "flickr30k_test.json"
    license = "ARO code MIT; Flickr30k captions and images under the Flickr30k terms (non-commercial research)"
    captions_redistributable = False

    def image_hint(self) -> str:
        """Flickr30k needs a sign-up."""
        return (
            f"Flickr30k images need a sign-up at {FLICKR30K_FORM}; put them so that "
            f"{self.image_dir()}/flickr30k-images/<id>.jpg exist, or set images_dir"
        )


@hookimpl
def register_benchmarks(register: Any) -> None:
    """Register the four ARO benchmarks."""
    for cls in (VGRelation, VGAttribution, COCOOrder, Flickr30kOrder):
        register(cls)
