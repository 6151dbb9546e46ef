"""Benchmark base class and the pinned-data helpers benchmarks share.

A benchmark type is a class registered through the ``register_benchmarks`` hook. It composes its
data from a source (:mod:`vlc_harness.sources`: files pinned by sha256 with the URL to get each, an
export, an image folder), loads :class:`~vlc_harness.types.Instance` objects in a deterministic order,
declares its metrics as metric families (:mod:`vlc_harness.metrics`): one declaration gives both the
specs the site shows and the values, computed as pure functions of per-instance score matrices; and
carries what the board shows as a card (:class:`~vlc_harness.cards.BenchmarkCard`). It never sees a model.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, ClassVar

from vlc_harness.cards import BenchmarkCard, apply_card
from vlc_harness.choices import InstanceAnswers, Question
from vlc_harness.datafiles import DataFile, ImageArchive, verify_files
from vlc_harness.overlap import Pool, check_benchmark_pools
from vlc_harness.params import NoParams
from vlc_harness.requires import Requires
from vlc_harness.types import Instance, MetricSpec, MetricValue, ReferenceRow

if TYPE_CHECKING:
    import numpy as np

    from vlc_harness.metrics.family import Family
    from vlc_harness.sources import DataSource, ImageFolder


@dataclass(frozen=True)
class InstanceScores:
    """An instance and its score matrix ``scores[i, j] = s(image_i, text_j)``.

    Pairs the instance does not need are NaN; metric code reads only the needed pairs.
    """

    instance: Instance
    scores: np.ndarray


class Benchmark:
    """Base of every benchmark type."""

    type_name: ClassVar[str]
    """The ``type`` that registry entries use to pick this class."""
    card: ClassVar[BenchmarkCard | None] = None
    """What the board shows, in one declaration: its fields become the attributes below (title ... about)."""
    title: ClassVar[str] = ""
    citation: ClassVar[str] = ""
    bibtex: ClassVar[str] = ""
    """The BibTeX entries of :attr:`citation` (:attr:`vlc_harness.cards.BenchmarkCard.bibtex`); empty: none."""
    homepage: ClassVar[str] = ""
    license: ClassVar[str] = ""
    headline: ClassVar[str] = ""
    """Metric id of the benchmark's headline number."""
    headline_source: ClassVar[str] = ""
    """The paper table or figure the headline reproduces, with the file or page (e.g. ``Table 6
    "Average" of Hsieh et al. 2023``), or text starting with ``ours:`` saying why when no paper
    reports it (a pool the harness made up, a generated benchmark). Shown on the benchmark page
    next to the headline; the conformance checks require it."""
    index_metrics: ClassVar[tuple[str, ...]] = ()
    """Metric ids the leaderboard's index shows beside the headline (e.g. brittleness)."""
    gap_metrics: ClassVar[tuple[str, str] | None] = None
    """``(image-to-text, text-to-image)`` metric ids whose difference is the directional gap."""
    captions_redistributable: ClassVar[bool] = False
    """Whether the data license allows publishing captions next to scores."""
    images_redistributable: ClassVar[bool] = False
    """Whether the images may be published (the board shows them as thumbnails; elsewhere file names and,
    for COCO files, a link to their source). Only images the benchmark made itself, or under a license
    that allows it, qualify: COCO's carry per-image Flickr licenses."""
    image_pools: ClassVar[tuple[str, ...]] = ()
    """The image pools the benchmark's images are drawn from, shared (:data:`vlc_harness.overlap.POOLS`) or
    its own (:attr:`own_pools`); the board marks cells whose model was trained on an overlapping pool."""
    own_pools: ClassVar[Mapping[str, Pool]] = MappingProxyType({})
    """The image pools this benchmark brings (its own images), by name: no model's ``meta.trained_on`` and no
    other benchmark names them (:attr:`vlc_harness.cards.BenchmarkCard.own_pools`)."""
    answers_only: ClassVar[bool] = False
    """True for a benchmark with nothing but a question-answering form (NaturalBench): models that
    score image-text pairs are skipped on it, never given an invented contrastive form."""
    requires: ClassVar[Requires] = Requires()
    """What the type needs installed (``data fetch`` from the hub, a tagger) and which distributions can
    change its instances or scores (:class:`~vlc_harness.requires.Requires`), declared once here."""
    references: ClassVar[tuple[ReferenceRow, ...]] = ()
    """Paper-reported, human and chance numbers (:class:`~vlc_harness.types.ReferenceRow`), the card's."""
    about: ClassVar[str] = ""
    """The benchmark's reference in Markdown (data layout, versions, metric definitions, known differences):
    its card file's body."""

    Params: ClassVar[type[Any]] = NoParams
    metrics: ClassVar[tuple[Family, ...]] = ()
    """The metric declaration: metric families with their options (see :mod:`vlc_harness.metrics`).
    Override :meth:`metric_families` instead when the declaration depends on params."""
    metrics_version: ClassVar[str] = "1"
    """Bump when this benchmark's metric code changes results: stored cells are then rebuilt."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "reference_file" in vars(cls):  # the JSON beside the plugin would be silently ignored
            raise TypeError(f"{cls.__name__} sets reference_file: give the rows as the card's references instead")
        apply_card(cls)
        check_benchmark_pools(cls.image_pools, cls.own_pools, f"benchmark {cls.__qualname__}")

    def __init__(self, params: Any, data_root: Path) -> None:
        self.params = params
        self.data_root = Path(data_root)

    def path(self, relative: str | Path) -> Path:
        """A params path: under the data root unless it is absolute."""
        return Path(relative) if Path(relative).is_absolute() else self.data_root / relative

    def data_source(self) -> DataSource | None:
        """Where the data of these params comes from (:mod:`vlc_harness.sources`): the data version, the
        pinned files, the check and the fetch below come from it. ``None`` (the default): the benchmark
        overrides those instead."""
        return None

    def image_folder(self) -> ImageFolder | None:
        """Where the images are read from and how to get them (``image_dir``, ``image_hint`` and
        ``image_archives`` come from it); ``None`` (the default): no image folder, or those overridden."""
        return None

    @property
    def data_version(self) -> str:
        """Name of the data version the params select (part of every cell record): the source's."""
        source = self.data_source()
        if source is None:
            raise NotImplementedError(f"{type(self).__name__} declares neither data_version nor data_source()")
        return source.data_version

    def data_files(self) -> list[DataFile]:
        """The pinned annotation files this data version needs (the source's)."""
        source = self.data_source()
        return source.data_files() if source is not None else []

    def check_data(self) -> None:
        """Raise :class:`~vlc_harness.errors.DataUnavailable` naming every missing or altered file (the
        source's check; without a source, the pinned :meth:`data_files`)."""
        source = self.data_source()
        if source is not None:
            source.check()
        else:
            verify_files(self.data_root, self.data_files(), self.title or self.type_name)

    def load_instances(self) -> list[Instance]:
        """Every instance of this data version, in a stable upstream order."""
        raise NotImplementedError

    def image_archives(self) -> list[ImageArchive]:
        """Image archives ``data fetch --images`` may download (the image folder's; none by default)."""
        folder = self.image_folder()
        return list(folder.archives) if folder is not None else []

    def fetch(self, images: bool = False, progress: bool = True) -> list[str]:
        """Download what is downloadable into the data root; one report line per item.

        The source's fetch (without a source, the pinned :meth:`data_files`) and, with ``images``, the
        :meth:`image_archives`, and the image folder's hint where some images cannot be downloaded.
        """
        from vlc_harness.datafetch import fetch_archive, fetch_files

        source = self.data_source()
        lines = (
            source.fetch(progress) if source is not None else fetch_files(self.data_root, self.data_files(), progress)
        )
        if images:
            lines += [fetch_archive(self.data_root, a, progress) for a in self.image_archives()]
            folder = self.image_folder()
            if folder is not None and folder.manual:
                lines.append(f"images: not downloadable here; {folder.hint}")
        return lines

    def image_dir(self) -> Path | None:
        """Folder the images are read from (the image folder's; ``None`` when there are no image files)."""
        folder = self.image_folder()
        return folder.path if folder is not None else None

    def image_hint(self) -> str:
        """Where to get the images and where to put them: shown when they are missing (the image folder's)."""
        folder = self.image_folder()
        return folder.hint if folder is not None else ""

    def headline_metric(self) -> str:
        """Metric id of the headline for these params (default: the class's :attr:`headline`)."""
        return self.headline

    def headline_origin(self) -> str:
        """Where the headline comes from for these params (default: the class's :attr:`headline_source`)."""
        return self.headline_source

    def metric_families(self) -> tuple[Family, ...]:
        """The metric declaration for these params (default: the class's :attr:`metrics`)."""
        return self.metrics

    def metric_specs(self) -> list[MetricSpec]:
        """Every metric this benchmark reports, headline included (from its declaration)."""
        from vlc_harness.metrics.cell import specs_of

        return specs_of(self.metric_families())

    def compute(self, results: list[InstanceScores]) -> list[MetricValue]:
        """Every metric, overall and per category, as a pure function of the scores (no intervals)."""
        from vlc_harness.metrics.cell import compute_values
        from vlc_harness.metrics.outcomes import outcomes_from_matrices

        outcomes = outcomes_from_matrices([r.instance for r in results], [r.scores for r in results])
        return compute_values(self, outcomes)

    def questions(self, instance: Instance) -> list[Question]:
        """The multiple-choice form of an instance, for models that answer rather than score.

        Return ``[]`` (the default) when the benchmark has no multiple-choice form; a
        ``choose`` model's cell is then ``skipped``.
        """
        return []

    def compute_choices(self, results: list[InstanceAnswers]) -> list[MetricValue]:
        """Metrics from multiple-choice answers, as the benchmark's reference protocol scores them."""
        from vlc_harness.metrics.cell import compute_values
        from vlc_harness.metrics.outcomes import choice_outcomes

        return compute_values(self, choice_outcomes(results))

    @classmethod
    def check_declaration(cls) -> None:
        """Build the metric declaration for default params and check it; raise ``ValueError``
        naming the problem (called when the plugin registers the class)."""
        from vlc_harness.metrics.cell import specs_of
        from vlc_harness.metrics.family import Family
        from vlc_harness.params import build

        try:
            params = build(cls.Params, {})
        except Exception:  # params without defaults: only the class-level declaration can be checked
            families = tuple(cls.metrics)
        else:
            families = tuple(cls(params, Path(".")).metric_families())
        for family in families:
            if not isinstance(family, Family):
                raise ValueError(f"the metric declaration holds {family!r}, which is not a metric family")
        if families and cls.headline and cls.headline not in {s.id for s in specs_of(families)}:
            raise ValueError(f"headline {cls.headline!r} is not among the declared metrics")

    def reference_rows(self) -> list[ReferenceRow]:
        """Paper-reported, human and chance numbers for these params (default: every row of
        :attr:`references`, the card's)."""
        return list(self.references)

    @classmethod
    def conformance_example(cls, tmp_path: Path) -> tuple[dict[str, Any], Path] | None:
        """``(params, data_root)`` of a tiny copy of this benchmark built under ``tmp_path``.

        Used by the shared conformance test; write only generated or permissively licensed data.
        """
        return None
