"""ARO (Yuksekgonul et al., ICLR 2023): VG-Relation and VG-Attribution, and what the four ARO types share.

The reference (data layout, versions, metric definitions): their cards, ``cards/aro_*.md``."""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path
from typing import Any, ClassVar, Literal

from vlc_harness import hookimpl
from vlc_harness.benchmarks import Benchmark
from vlc_harness.cards import BenchmarkCard
from vlc_harness.datafiles import UNPINNED
from vlc_harness.metrics import Macro, Micro, PairwiseAccuracy, PerCategory
from vlc_harness.sources import ImageFolder, UnpinnedFiles, read_json_records
from vlc_harness.sources.fields import NAME, NUMBER, TEXT, Kind, list_of
from vlc_harness.types import ImageSource, Instance
from vlc_harness.wording import plural

GDRIVE_URL = "https://drive.google.com/uc?export=download&id={}"
GDRIVE_IDS = {
    "visual_genome_relation.json": "1kX2iCHEv0CADL8dSO1nMdW-V0NqIAiP3",
    "visual_genome_attribution.json": "13tWvOrNOLHxl3Rm9cR3geAdHx2qR3-Tw",
    "vgr_vga_images.zip": "1qaPlrwhGNMrR3a11iopZUT_GPP_LrgP9",
}
RULES_FILE = Path(__file__).with_name("aro_symmetric_relations.json")
CARDS = Path(__file__).with_name("cards")
VG_FIELDS = {
    "image_path": NAME,
    **dict.fromkeys(("bbox_x", "bbox_y", "bbox_w", "bbox_h"), NUMBER),
    "true_caption": TEXT,
    "false_caption": TEXT,
}
"""What a VG-Relation or VG-Attribution record holds that the loaders read (the crop box is ARO's)."""
ATTRIBUTES = list_of(TEXT, 2)
"""VG-Attribution's ``attributes``: the two swapped attributes."""
VGA_MIN_PAIR_COUNT = 25  # VG_Attribution.evaluate_scores skips pairs with fewer cases


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


class AroTask(Benchmark):
    """What the four ARO types share: one unpinned annotation file each (each its own card and rows)."""

    annotation_file: ClassVar[str]

    @property
    def annotation_path(self) -> Path:
        """The annotation file this benchmark reads."""
        return self.path(self.params.annotations_dir) / self.annotation_file

    def annotation_url(self) -> str:
        """Where ``data fetch`` downloads the annotation file from."""
        raise NotImplementedError

    def get_hint(self) -> str:
        """Where to get the annotation file."""
        raise NotImplementedError

    def data_source(self) -> UnpinnedFiles:
        """The annotation file, unpinned (no upstream checksum is published): the data version names its
        hash, ``upstream-unpinned-<sha12>`` (``custom-<sha12>``)."""
        label = "custom" if self.params.version == "custom" else f"upstream-{UNPINNED}"
        relpath = Path(self.params.annotations_dir) / self.annotation_file
        url = {self.annotation_file: self.annotation_url()}
        files = {self.annotation_file: relpath}
        return UnpinnedFiles(
            self.data_root, self.title, files, label, hint=self.get_hint(), urls=url, version=self.params.version
        )


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


class _AroVG(AroTask):
    """A cropped VG image, the true caption and the swapped one; strict ``>`` (ARO's argmax)."""

    extra_fields: ClassVar[dict[str, Kind]] = {}
    unit: ClassVar[str] = ""

    def annotation_url(self) -> str:
        """The annotation file on Google Drive."""
        return GDRIVE_URL.format(GDRIVE_IDS[self.annotation_file])

    def get_hint(self) -> str:
        """``gdown`` the annotation file from Google Drive."""
        gid = GDRIVE_IDS[self.annotation_file]
        return (
            f"get ARO's {self.annotation_file} from Google Drive: `gdown --id {gid} -O {self.annotation_path}` "
            f"or {GDRIVE_URL.format(gid)}; it is not pinned by sha256 (no upstream checksum is published)"
        )

    def image_folder(self) -> ImageFolder:
        """ARO's VG images (the 1 GB zip is left to ``gdown``)."""
        images = self.path(self.params.images_dir)
        return ImageFolder(images, vg_images_hint(images), manual=True)

    def category(self, rec: dict[str, Any]) -> str:
        """The upstream grouping key of a record."""
        raise NotImplementedError

    def load_instances(self) -> list[Instance]:
        """Every record in file order: ``<category>/<index in the file>``."""
        records = read_json_records(self.annotation_path, self.title, {**VG_FIELDS, **self.extra_fields})
        images = self.path(self.params.images_dir)
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
    card = BenchmarkCard.read(CARDS / "aro_vg_relation.md")
    Params = VGRelationParams
    annotation_file = "visual_genome_relation.json"
    extra_fields = {"relation_name": TEXT}
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
            Macro("i2t_accuracy_macro", exclude=excluded, what=f"relations{note}", one=f"relation{note}"),
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
    card = BenchmarkCard.read(CARDS / "aro_vg_attribution.md")
    Params = VGAttributionParams
    annotation_file = "visual_genome_attribution.json"
    extra_fields = {"attributes": ATTRIBUTES}
    unit = "attribute pair"

    def category(self, rec: dict[str, Any]) -> str:
        """``<attributes[0]>_<attributes[1]>`` (ARO's key)."""
        a, b = rec["attributes"]
        return f"{a}_{b}"

    def metric_families(self) -> tuple[PairwiseAccuracy]:
        """Macro over the attribute pairs with at least ``min_pair_count`` cases."""
        count = self.params.min_pair_count
        macro = [
            Macro(
                "i2t_accuracy_macro",
                min_n=count,
                what=f"attribute pairs with at least {plural(count, 'case')}",
                one=f"attribute pair with at least {plural(count, 'case')}",
            )
        ]
        return self._declaration(
            macro,
            f"unweighted mean of the attribute-pair accuracies over pairs with at least {count} cases (ARO's "
            "'macro accuracy'; ARO's code skips pairs with fewer than 25)",
        )


@hookimpl
def register_benchmarks(register: Any) -> None:
    """Register ARO's VG-Relation and VG-Attribution (the Order types: :mod:`.aro_order`)."""
    for cls in (VGRelation, VGAttribution):
        register(cls)
