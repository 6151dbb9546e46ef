"""SeeTRUE (Yarom, Bitton et al., NeurIPS 2023): binary image-text alignment, scored by ROC AUC per source.

The reference (data layout, versions, metric definitions): its card, ``cards/seetrue.md``."""

from __future__ import annotations

import shutil
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from vlc_harness import hookimpl
from vlc_harness.benchmarks import Benchmark, DataFile
from vlc_harness.cards import BenchmarkCard
from vlc_harness.errors import DataUnavailable
from vlc_harness.metrics.auc import RocAuc
from vlc_harness.requires import Requires
from vlc_harness.sources import ImageFolder, PinnedFiles, files_digest, read_csv, read_jsonl
from vlc_harness.sources.fields import ID, NAME, TEXT, WORDS, at, one_of, require
from vlc_harness.sources.rows import unique_ids
from vlc_harness.types import ImageSource, Instance

HF_DATASET = "yonatanbitton/SeeTRUE"
HF_REVISION = "6cc46a6e5d9388f44fdf9096d5387cd3b7988676"
CSV_SHA256 = "175c78dffe54724259ed8466f9e71fbda8aaa4f479b99a3a3530a2c89f763fd0"
# A byte-identical copy of the HF CSV that needs no Hugging Face login:
CSV_URL = "https://raw.githubusercontent.com/linzhiqiu/t2v_metrics/6ecb74f92028f42c7e64546d3a71e98c8c73068f/datasets/SeeTRUE.csv"
COLUMNS = ("image", "text", "label", "original_dataset_id", "dataset_source")
SAMPLE_IMAGE = "id_22_Colors_sd_2_1_2.png"
"""An image of the public CSV (DrawBench), used to tell whether images.zip was extracted."""
WINOGROUND = "winoground"
ROW = {"image": NAME, "label": one_of("0", "1"), "dataset_source": WORDS}
"""What a CSV row must hold besides its columns: an image file, a label of 0 or 1, a source (a category)."""
WINOGROUND_FIELDS = {"id": ID, "image_0": NAME, "image_1": NAME, "caption_0": TEXT, "caption_1": TEXT}
IMAGES_HINT = (
    "the images are in images.zip of the gated Hugging Face dataset yonatanbitton/SeeTRUE (about 5.4 GB): "
    "accept its terms, log in (`huggingface-cli login` or HF_TOKEN), then run "
    "`vlc-harness data fetch -b seetrue --images` (needs `pip install 'vlc-harness[data]'`), or unzip it so that "
    f"<data root>/seetrue/images/{SAMPLE_IMAGE} exists, or set the benchmark's images_dir param"
)


@dataclass(frozen=True)
class SeeTrueParams:
    """Data version, file locations (relative to the data root) and the binary-prediction threshold."""

    version: Literal["hf-6930", "custom"] = "hf-6930"
    csv: str = "seetrue/SeeTRUE.csv"
    images_dir: str = "seetrue/images"
    threshold: float = 0.5
    """``auc_binary`` predicts aligned when score > threshold (strict)."""
    winoground_dir: str = ""
    """Folder of the facebook/winoground export (examples.jsonl, images/); '' leaves Winoground out."""


class SeeTrue(Benchmark):
    """SeeTRUE: binary text-image alignment pairs with human labels, ROC AUC per source."""

    type_name = "seetrue"
    requires = Requires(extras=("data",))
    card = BenchmarkCard.read(Path(__file__).with_name("cards") / "seetrue.md")
    Params = SeeTrueParams
    metrics_version = "2"  # 2: an abstained pair ranks as the worst case in the AUC over all asked pairs

    @property
    def _csv(self) -> Path:
        return self.path(self.params.csv)

    @property
    def _winoground_examples(self) -> Path | None:
        if not self.params.winoground_dir:
            return None
        return self.path(self.params.winoground_dir) / "examples.jsonl"

    def data_source(self) -> PinnedFiles:
        """The pinned CSV (``custom``: any CSV of the schema, named by its hash), plus
        ``+winoground-<hash>`` when Winoground is added."""
        examples = self._winoground_examples
        suffix = "" if examples is None else f"+winoground-{files_digest([('', examples)])}"
        csv_file = {"": DataFile(self.params.csv, CSV_SHA256, CSV_URL)}
        return PinnedFiles(self.data_root, self.title, csv_file, self.params.version, suffix=suffix, noun="CSV")

    def check_data(self) -> None:
        """The CSV (pinned or present) and, when asked for, Winoground's examples.jsonl."""
        super().check_data()
        examples = self._winoground_examples
        if examples is not None and not examples.is_file():
            raise DataUnavailable(
                f"SeeTRUE: winoground_dir is set but {examples} is missing (get data/examples.jsonl and "
                "data/images.zip of the gated Hugging Face dataset facebook/winoground: accept its terms and log in "
                "with `huggingface-cli login` or HF_TOKEN; or leave winoground_dir empty)"
            )

    def load_instances(self) -> list[Instance]:
        """Every CSV row in file order, then the Winoground pairs (when asked for)."""
        images = self.path(self.params.images_dir)
        out, rows = [], read_csv(self._csv, self.title, COLUMNS)
        for k, row in enumerate(rows):
            with at(self._csv, f"row {k}"):
                require(row, ROW)
        unique_ids(self._csv, self.title, "original_dataset_id", [(f"row {k}", _id(r)) for k, r in enumerate(rows)])
        for row in rows:
            source = row["dataset_source"]
            out.append(
                Instance(
                    id=f"{source}/{row['original_dataset_id']}",
                    category=source,
                    images=(ImageSource(images / row["image"]),),
                    texts=(row["text"],),
                    gold={"label": int(row["label"])},
                )
            )
        if self._winoground_examples is not None:
            out.extend(winoground_pairs(self._winoground_examples))
        return out

    def image_folder(self) -> ImageFolder:
        """The SeeTRUE images (and where Winoground's go, when added)."""
        hint = IMAGES_HINT
        if self.params.winoground_dir:
            hint += "; Winoground images: data/images.zip of facebook/winoground, extracted into winoground_dir"
        return ImageFolder(self.path(self.params.images_dir), hint)

    def metric_families(self) -> tuple[RocAuc, ...]:
        """Per-source AUC (continuous and binary) and their unweighted means over the sources present."""
        threshold = self.params.threshold
        return (
            RocAuc("auc", "ROC AUC of the continuous alignment score per source (t2v_metrics' convention; Table 2)"),
            RocAuc(
                "auc_binary",
                f"ROC AUC of hard predictions 1[score > {threshold}] per source (official test script on yes/no)",
                threshold=threshold,
            ),
        )

    def fetch(self, images: bool = False, progress: bool = True) -> list[str]:
        """Download the CSV (and with ``images``, images.zip) from Hugging Face at the pinned revision.

        The HF dataset is script-based, which ``datasets.load_dataset`` no longer runs, so its files
        are downloaded with ``huggingface_hub`` (installed with ``vlc-harness[data]``). The CSV must
        match its pinned sha256. Winoground is not fetched here (see ``winoground_dir``).
        """
        from vlc_harness.datafetch import FetchError
        from vlc_harness.hashing import sha256_file

        try:
            from huggingface_hub import hf_hub_download
        except ImportError:
            raise FetchError(
                "fetching SeeTRUE from Hugging Face needs huggingface_hub: pip install 'vlc-harness[data]'"
            ) from None

        def download(filename: str, local_dir: Path | None = None) -> Path:
            try:
                return Path(
                    hf_hub_download(
                        HF_DATASET, filename, repo_type="dataset", revision=HF_REVISION, local_dir=local_dir
                    )
                )
            except Exception as exc:  # huggingface_hub's error classes differ between its versions
                raise FetchError(_hf_error(filename, exc)) from None

        lines = []
        if self.params.version != "custom":
            if self._csv.is_file() and sha256_file(self._csv) == CSV_SHA256:
                lines.append(f"present  {self._csv}")
            else:
                got = download("SeeTRUE.csv")
                digest = sha256_file(got)
                if digest != CSV_SHA256:
                    raise FetchError(
                        f"{HF_DATASET}@{HF_REVISION[:7]} SeeTRUE.csv has sha256 {digest[:12]}..., expected "
                        f"{CSV_SHA256[:12]}... (the pinned copy is {CSV_URL}; or use version=custom)"
                    )
                self._csv.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(got, self._csv)
                lines.append(f"fetched  {self._csv} (from {HF_DATASET}@{HF_REVISION[:7]})")
        if images:
            lines.append(self._fetch_images(download))
        return lines

    def _fetch_images(self, download: Any) -> str:
        """images.zip holds ``images/<file>``: extract it next to ``images_dir``."""
        from vlc_harness.datafetch import FetchError

        target = self.image_dir()
        if target is None:
            raise FetchError(f"{self.type_name} declares no image folder to extract images.zip into")
        if (target / SAMPLE_IMAGE).is_file():
            return f"present  {target}"
        if target.name != "images":
            raise FetchError(f"images.zip extracts to a folder named images/; images_dir {target} is not one")
        downloads = self.data_root / "downloads"
        zip_path = download("images.zip", downloads)
        parent = target.parent.resolve()
        parent.mkdir(parents=True, exist_ok=True)
        with zipfile.ZipFile(zip_path) as zf:
            for member in zf.infolist():
                if not (parent / member.filename).resolve().is_relative_to(parent):
                    raise FetchError(f"{zip_path} contains an unsafe path {member.filename!r}")
            zf.extractall(parent)
        if not (target / SAMPLE_IMAGE).is_file():
            raise FetchError(f"{zip_path} did not provide {target / SAMPLE_IMAGE}; it is kept for inspection")
        shutil.rmtree(downloads, ignore_errors=True)
        return f"fetched  {target} (from {HF_DATASET}@{HF_REVISION[:7]} images.zip)"


def winoground_pairs(examples_path: Path) -> list[Instance]:
    """Winoground in SeeTRUE form: per example, image k x caption j, label 1 when k == j.

    Order as upstream ``process_winoground.py`` builds it: image 0 caption 0, image 0 caption 1,
    image 1 caption 0, image 1 caption 1, each over all examples in file order.
    """
    images = examples_path.parent / "images"
    examples = read_jsonl(examples_path, "Winoground (for SeeTRUE)", WINOGROUND_FIELDS, key="id")
    out = []
    for k in (0, 1):
        for j in (0, 1):
            for ex in examples:
                out.append(
                    Instance(
                        id=f"{WINOGROUND}/{ex['id']}_image_{k}_caption_{j}",
                        category=WINOGROUND,
                        images=(ImageSource(images / f"{ex[f'image_{k}']}.png"),),
                        texts=(ex[f"caption_{j}"],),
                        gold={"label": int(k == j)},
                    )
                )
    return out


def _id(row: dict[str, str]) -> str:
    """The instance id of a CSV row (unique: two rows of one source with one id would be one instance)."""
    return f"{row['dataset_source']}/{row['original_dataset_id']}"


def _hf_error(filename: str, exc: Exception) -> str:
    """A download failure, with what to do when the dataset is gated or the token is missing."""
    text = f"{type(exc).__name__}: {exc}".splitlines()[0]
    gated = any(k in text for k in ("Gated", "401", "403", "gated", "Unauthorized", "restricted"))
    advice = (
        f"{HF_DATASET} is gated: accept its terms at https://huggingface.co/datasets/{HF_DATASET}, then log in "
        "with `huggingface-cli login` or set HF_TOKEN"
        if gated
        else "check the network, or place the file by hand (see the benchmark's docstring for the layout)"
    )
    return f"cannot download {filename} from {HF_DATASET}@{HF_REVISION[:7]}: {text} ({advice})"


@hookimpl
def register_benchmarks(register: Any) -> None:
    """Register the SeeTRUE benchmark."""
    register(SeeTrue)
