"""VL-CheckList (Zhao et al., 2022): image-to-text choice between a positive and a REPLACE negative.

The reference (data layout, versions, metric definitions): its card, ``cards/vl_checklist.md``."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from vlc_harness import hookimpl
from vlc_harness.benchmarks import Benchmark, DataFile
from vlc_harness.cards import BenchmarkCard
from vlc_harness.metrics import Macro, Micro, PairwiseAccuracy, PerCategory
from vlc_harness.sources import ImageFolder, PinnedFiles, gc_paused, load_json
from vlc_harness.sources.fields import ANY, NAME, OBJECT, TEXT, at, list_of, require
from vlc_harness.types import ImageSource, Instance

UPSTREAM = "https://raw.githubusercontent.com/om-ai-lab/VL-CheckList/6f8d6a3281c401b89e4e154f46c6974ec2df3a82/data"
IMAGE_ROOTS = {"vg": "vg", "vaw": "vg", "swig": "swig", "hake": "hake"}
"""Upstream corpus IMG_ROOT per source: VAW annotates Visual Genome images."""


@dataclass(frozen=True)
class CorpusFile:
    """One upstream corpus entry: its category, file (under ``data/``) and source dataset."""

    category: str
    relpath: str

    @property
    def type(self) -> str:
        """Object, Attribute or Relation."""
        return self.category.split("/")[0]

    @property
    def subtype(self) -> str:
        """The category without its source (``Attribute/color``, ``Object/Size/large``)."""
        return self.category.rsplit("/", 1)[0]

    @property
    def source(self) -> str:
        """The dataset the radar chart averages over (vg, vaw, swig, hake); vg_obj and vg_subj are vg."""
        return self.category.rsplit("/", 1)[1].split("_")[0]


def _attribute_files() -> list[CorpusFile]:
    return [
        CorpusFile(f"Attribute/{sub}/{src}", f"Attribute/{src}/{sub}.json")
        for sub in ("action", "color", "material", "size", "state")
        for src in ("vaw", "vg")
    ]


RELATION_FILES = [
    CorpusFile("Relation/action/vg", "Relation/vg/action.json"),
    CorpusFile("Relation/action/swig", "Relation/swig_action.json"),
    CorpusFile("Relation/action/hake", "Relation/hake_action.json"),
    CorpusFile("Relation/spatial/vg", "Relation/vg/spatial.json"),
]


def _object_files() -> list[CorpusFile]:
    out = []
    for aspect, values in (("Location", ("center", "mid", "margin")), ("Size", ("large", "medium", "small"))):
        folder = aspect.lower()
        for value in values:
            for src in ("vg_obj", "vg_subj"):
                out.append(
                    CorpusFile(f"Object/{aspect}/{value}/{src}", f"Object/{aspect}/vg_{folder}/{src}_{value}.json")
                )
            for role in ("agent", "destination", "item", "tool"):
                out.append(
                    CorpusFile(
                        f"Object/{aspect}/{value}/swig_{role}",
                        f"Object/{aspect}/swig_{folder}/swig_{role}/swig_{role}_{value}.json",
                    )
                )
            out.append(
                CorpusFile(f"Object/{aspect}/{value}/hake", f"Object/{aspect}/hake_{folder}/hake_obj_{value}.json")
            )
    return out


ATTRIBUTE_FILES = _attribute_files()
OBJECT_FILES = _object_files()
CORPUS = [*OBJECT_FILES, *ATTRIBUTE_FILES, *RELATION_FILES]
"""Every upstream corpus entry, in upstream radar order (Object, Attribute, Relation)."""

SHA256 = {
    "Attribute/vaw/action.json": "aa9b2e4348a83bfae9593eb3edd713b451d14ae041f1f553a05bc3ab22670358",
    "Attribute/vaw/material.json": "e182bff14fa4f7e3cd212b46efa1d63ee25b7b91b05eece1cab3bb8ba65de2e9",
    "Attribute/vaw/size.json": "847850ec3533a5425872ce349c5f6eda3377e71ba3fe124a6327fe0a8ee8a986",
    "Attribute/vaw/state.json": "09ea607e33d7ca62014eec46ffd18a70c34d9f3bbe6a46d8cbb70fa93b2b7681",
    "Attribute/vg/action.json": "a20b1ee682ab2fb62978cca3a95fc27aa6b35f9238ca7c8847f74671c40db7ba",
    "Attribute/vg/color.json": "93e5d316cfc964c7b4bce2182c9916533ec3aa6e006830859af7c0d2de9f76c7",
    "Attribute/vg/material.json": "b2c1e312cba0a8efdc5113dd451e21f7fd9d0e96a222a5406ffa8dd67b30d094",
    "Attribute/vg/size.json": "0a2a929d9dce990cfd4b05299e2d2a7fe59b5c679a3e7f52419a5375ea42f24b",
    "Attribute/vg/state.json": "d13bc1292de364cd787fc651f4abc0ffaafe9fbf09ec8ce25af76bb349415a2e",
    "Relation/swig_action.json": "ed3a65cb815c1fb0947b337bbfc95bbcf517fa0124ce7cb9bd4d915de02eb4f4",
    "Relation/vg/action.json": "2722201353c885670315f935d53cb4e08f462e629c3f88c73da9a286ea66d7a1",
    "Relation/vg/spatial.json": "2582095a4b8515048ba2e33d37d2bffc109e6734924b47bf977236b7f9b72303",
}
"""The pinned files of version partial-12files."""
PINNED = [f for f in CORPUS if f.relpath in SHA256]
IMAGES_HINT = (
    "put the upstream image folders (VL-CheckList DATASETS.md) under <data root>/vl_checklist/images/ or set the "
    "images_dir param: vg/VG_100K and vg/VG_100K_2 from Visual Genome "
    "(https://cs.stanford.edu/people/rak248/VG_100K_2/images.zip and images2.zip; VAW items use them too), "
    "swig/ from SWiG images_512 (https://swig-data-weights.s3.us-east-2.amazonaws.com/images_512.zip), "
    "hake/ from HAKE (https://github.com/DirtyHarryLYL/HAKE/tree/master/Images)"
)


def declaration(files: list[CorpusFile]) -> PairwiseAccuracy:
    """Accuracy per corpus file, per sub-type (the mean over sources of each source's mean file
    accuracy, as upstream radar.py), per type, their macro mean (the headline) and micro."""
    subtypes: dict[str, dict[str, list[str]]] = {}
    for f in files:
        subtypes.setdefault(f.subtype, {}).setdefault(f.source, []).append(f.category)
    types: dict[str, list[str]] = {}
    for subtype in subtypes:
        types.setdefault(subtype.split("/")[0], []).append(subtype)
    return PairwiseAccuracy(
        "i2t_accuracy",
        "image-to-text accuracy per corpus file (<Type>/<sub-type>/<source>)",
        (
            PerCategory(unit="file"),
            Macro(
                "i2t_accuracy_subtype",
                "accuracy per sub-type: mean over sources of each source's mean file accuracy (upstream radar.py)",
                groups=subtypes,
                what="sources",
                name_members=True,
            ),
            Macro(
                "i2t_accuracy_type",
                "accuracy per type (Object, Attribute, Relation): mean of its sub-types",
                groups=types,
                of="i2t_accuracy_subtype",
                what="sub-types",
                name_members=True,
            ),
            Macro(
                "i2t_accuracy_macro",
                "unweighted mean of the type accuracies present (named in the result)",
                of="i2t_accuracy_type",
                what="types",
                name_members=True,
            ),
            Micro("i2t_accuracy_micro", "image-to-text accuracy pooled over all instances"),
        ),
    )


@dataclass(frozen=True)
class VLCheckListParams:
    """Which data version to read and where its files are (relative to the data root)."""

    version: Literal["partial-12files", "custom"] = "partial-12files"
    annotations_dir: str = "vl_checklist/data"
    images_dir: str = "vl_checklist/images"


class VLCheckList(Benchmark):
    """VL-CheckList: positive vs REPLACE-negative captions for objects, attributes and relations."""

    type_name = "vl_checklist"
    card = BenchmarkCard.read(Path(__file__).with_name("cards") / "vl_checklist.md")
    Params = VLCheckListParams
    metrics_version = "2"  # 2: the word-order audit reports identical-text (111 pairs) apart from same-words
    metrics = (declaration(CORPUS),)

    def data_source(self) -> PinnedFiles:
        """The 12 pinned files of version partial-12files; ``custom``: every upstream corpus file present."""
        entries = CORPUS if self.params.version == "custom" else PINNED
        folder = Path(self.params.annotations_dir)
        files = {
            f.relpath: DataFile(str(folder / f.relpath), SHA256.get(f.relpath, ""), f"{UPSTREAM}/{f.relpath}")
            for f in entries
        }
        return PinnedFiles(self.data_root, self.title, files, self.params.version, noun="upstream corpus file")

    def corpus(self) -> list[CorpusFile]:
        """The corpus entries this version reads: the pinned 12, or every upstream entry present."""
        if self.params.version == "custom":
            present = set(self.data_source().present())
            return [f for f in CORPUS if f.relpath in present]
        return PINNED

    def load_instances(self) -> list[Instance]:
        """Every item of every corpus file, files in upstream order, items in file order."""
        with gc_paused():  # 123,234 instances: no collection pass in between (vlc_harness.sources.bulk)
            return self._load_instances()

    def _load_instances(self) -> list[Instance]:
        images, source, out = self.path(self.params.images_dir), self.data_source(), []
        for f in self.corpus():
            root = images / IMAGE_ROOTS[f.source]
            paths: dict[str, Path] = {}  # an image is in several items: its path made once (a Path costs ~5 us)
            for index, (image, texts) in enumerate(read_items(source.file(f.relpath))):
                path = paths.get(image)
                if path is None:
                    path = paths[image] = root / image
                out.append(
                    Instance(
                        id=f"{f.category}/{index}",
                        category=f.category,
                        images=(ImageSource(path),),
                        texts=(texts["POS"][0], texts["NEG"][0]),
                        gold={"positive": 0},
                    )
                )
        return out

    def image_folder(self) -> ImageFolder:
        """The folder holding vg/, swig/ and hake/."""
        return ImageFolder(self.path(self.params.images_dir), IMAGES_HINT)


ITEM = list_of(ANY, 2)
"""An upstream item: ``[image path, {"POS": [caption, ...], "NEG": [caption, ...]}]``."""
CAPTIONS = {"POS": list_of(TEXT, min_length=1), "NEG": list_of(TEXT, min_length=1)}


def well_formed(item: Any, names: set[str]) -> bool:
    """True when ``item`` passes :func:`read_items`' checks (``names``: image names already accepted, to
    which its name is added); the same tests as :data:`ITEM`, ``NAME`` and :data:`CAPTIONS`, without the
    context and the messages, which cost more than the tests on 123,234 items."""
    if not (isinstance(item, list) and len(item) == 2 and isinstance(item[1], dict)):
        return False
    image, texts = item
    if not isinstance(image, str):
        return False
    if image not in names:
        if not NAME.accepts(image):
            return False
        names.add(image)
    return all(k in texts and CAPTIONS[k].accepts(texts[k]) for k in CAPTIONS)


def read_items(path: Path) -> list[tuple[str, dict[str, list[str]]]]:
    """A corpus file's items, each an image path and its captions (upstream reads the first positive and
    the first negative); a malformed one is an :class:`~vlc_harness.errors.InputError` naming its index."""
    items = load_json(path)
    with at(path):
        list_of(ANY).check("the file", items)
    out: list[tuple[str, dict[str, list[str]]]] = []
    names: set[str] = set()
    for k, item in enumerate(items):
        if well_formed(item, names):
            out.append((item[0], item[1]))
            continue
        with at(path, f"item {k}"):  # raises, naming the item, the field and what it holds
            ITEM.check("the record", item)
            image = NAME.check("item 0 (the image)", item[0])
            texts = require(OBJECT.check("item 1 (the captions)", item[1]), CAPTIONS)
        out.append((image, texts))
    return out


@hookimpl
def register_benchmarks(register: Any) -> None:
    """Register the VL-CheckList benchmark."""
    register(VLCheckList)
