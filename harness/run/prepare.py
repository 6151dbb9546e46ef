"""A benchmark made ready for a run: data checked, instances loaded and limited, images hashed.

Loading happens once per run and serves every model. Images are hashed only when some model
needs them (image-blind models run with no image files present).
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from vlc_harness.benchmarks import Benchmark
from vlc_harness.catalog import Registrar
from vlc_harness.errors import InputError, Unavailable, reason_of, show_traceback
from vlc_harness.hashing import sha256_files
from vlc_harness.instance_manifest import limit_per_category, manifest_hash
from vlc_harness.reasons import Reason
from vlc_harness.registry import BenchmarkEntry
from vlc_harness.types import BLIND_IMAGE_KEY, ImageSource, Instance, every_pair


@dataclass
class PreparedBenchmark:
    """A benchmark entry with its instances, or the reason it cannot run here."""

    entry: BenchmarkEntry
    benchmark: Benchmark | None = None
    instances: list[Instance] = field(default_factory=list)
    n_total: int = 0
    limit: int | None = None
    unavailable: str | None = None
    unavailable_code: str | None = None
    """The reason code of ``unavailable`` (the :class:`~vlc_harness.errors.Unavailable`'s)."""
    load_error: str | None = None
    load_code: str | None = None
    """The reason code of ``load_error``: ``input_malformed`` for a malformed file (an
    :class:`~vlc_harness.errors.InputError`, its one sentence the error), else ``benchmark_error``."""
    raised: Exception | None = field(default=None, repr=False, compare=False)
    """What was raised, when something was (``unavailable`` or ``load_error``): the InputError's ``file``,
    ``record`` and ``field``, for callers that want them."""
    manifest_hash: str = ""
    version: str = ""
    """The data version, read once when the instances were loaded."""
    _hashes: dict[Path, str] | None = None
    _missing: dict[Path, str] = field(default_factory=dict)
    _images_unavailable: str | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)
    hash_seconds: float = 0.0
    """Wall time spent hashing (or finding in the hash cache) this benchmark's images."""

    @property
    def data_version(self) -> str:
        """The data version of the loaded benchmark ('' when it could not be loaded)."""
        return self.version

    @property
    def ready(self) -> bool:
        """True when instances are loaded."""
        return self.unavailable is None and self.load_error is None

    def resolve_images(self) -> str | None:
        """Hash every image once; return the reason when no image of the benchmark is present.

        Models running in parallel (``--workers``) share this object: the first caller hashes,
        the others wait for it.
        """
        with self._lock:
            if self._hashes is None:
                start = time.perf_counter()
                self._hash_images()
                self.hash_seconds = time.perf_counter() - start
            return self._images_unavailable

    def _hash_images(self) -> None:
        assert self.benchmark is not None
        paths = sorted({src.path for inst in self.instances for src in inst.images})
        present, missing = [], {}
        for p in paths:
            try:
                found = p.is_file()
            except (OSError, ValueError) as exc:  # a name the file system refuses (too long, a NUL)
                missing[p] = f"unusable image path {str(p)[:200]}: {getattr(exc, 'strerror', None) or exc}"
                continue
            if found:
                present.append(p)
            else:
                missing[p] = f"missing image {p}"
        hashes: dict[Path, str] = {}
        if paths and not present:
            where = self.benchmark.image_dir() or paths[0].parent
            hint = self.benchmark.image_hint()
            self._images_unavailable = f"no images of {self.entry.id} under {where}" + (f": {hint}" if hint else "")
        else:
            try:
                hashes = sha256_files(present)
            except OSError:
                for p in present:  # find the unreadable ones one by one
                    try:
                        hashes.update(sha256_files([p]))
                    except OSError as exc:
                        missing[p] = f"unreadable image {p}: {exc.strerror or exc}"
        self._missing = missing
        self._hashes = hashes  # last: other threads see the keys only once they are complete

    def image_key(self, path: Path, transform_spec: str) -> str | None:
        """Store key of an image, or None when the file is missing or unreadable."""
        assert self._hashes is not None, "resolve_images() first"
        sha = self._hashes.get(path)
        if sha is None:
            return None
        return sha if not transform_spec else f"{sha}|{transform_spec}"

    def image_problem(self, path: Path) -> str:
        """Why an image has no key."""
        return self._missing.get(path, f"missing image {path}")

    def instance_keys(self, inst: Instance, blind: bool) -> list[str] | str:
        """The image keys of an instance, or the reason they cannot be had."""
        if blind:
            return [BLIND_IMAGE_KEY] * len(inst.images)
        keys = []
        for src in inst.images:
            key = self.image_key(src.path, src.transform_spec())
            if key is None:
                return self.image_problem(src.path)
            keys.append(key)
        return keys

    def image_sha(self, path: Path) -> str | None:
        """sha256 of an image file when it was hashed."""
        return (self._hashes or {}).get(path)


def prepare(
    entry: BenchmarkEntry, registrar: Registrar[Benchmark], data_root: Path, limit: int | None
) -> PreparedBenchmark:
    """Instantiate a benchmark entry, check its data and load its instances.

    An entry whose type's listed package is not installed (``entry.unavailable``) is ``unavailable``
    with the install line (reason code ``package_missing``): there is no class to instantiate. Missing
    data is ``unavailable``; a malformed file (:class:`~vlc_harness.errors.InputError`) is a ``load_error``
    of one sentence (``input_malformed``; ``--debug`` prints its traceback); anything else the plugin
    raises, or instances the harness cannot use, a ``load_error`` too (``benchmark_error``). Nothing that
    is read later (the data version, the manifest) can raise: each cell of a benchmark fails alone.
    """
    prepared = PreparedBenchmark(entry=entry, limit=limit)
    if entry.unavailable:
        prepared.unavailable, prepared.unavailable_code = entry.unavailable, Reason.PACKAGE_MISSING
        return prepared
    try:
        benchmark = registrar.get(entry.type).cls(entry.params, data_root)
        prepared.benchmark = benchmark
        benchmark.check_data()
        instances = benchmark.load_instances()
        problem = instances_problem(entry.id, instances)
        if problem is None:
            prepared.version = benchmark.data_version
            chosen = limit_per_category(instances, limit)
            prepared.manifest_hash = manifest_hash(prepared.version, chosen)
    except Unavailable as exc:
        prepared.unavailable, prepared.unavailable_code, prepared.raised = str(exc), exc.code, exc
    except InputError as exc:
        show_traceback(exc)
        prepared.load_error, prepared.load_code, prepared.raised = str(exc), exc.code, exc
    except Exception as exc:
        prepared.raised = exc
        prepared.load_error = f"loading {entry.id} failed: {type(exc).__name__}: {exc}"
        prepared.load_code = reason_of(exc, Reason.BENCHMARK_ERROR)
    else:
        if problem is None:
            prepared.n_total, prepared.instances = len(instances), chosen
            return prepared
        prepared.load_error, prepared.load_code = problem, Reason.BENCHMARK_ERROR
    prepared.version = _known_version(prepared.benchmark)  # a cell that cannot run still names its data
    return prepared


def _known_version(benchmark: Benchmark | None) -> str:
    """The data version a benchmark names for its params, or '' when it cannot say (no class, a raise)."""
    try:
        return benchmark.data_version if benchmark is not None else ""
    except Exception:  # the cell records what it can; why the data cannot be read is its error already
        return ""


def instances_problem(benchmark_id: str, instances: list[Instance]) -> str | None:
    """What makes a plugin's instances unusable (a duplicate id, a text that is not a string, an image that
    is not an :class:`~vlc_harness.types.ImageSource`, a needed pair out of range), or ``None``. A loader
    refuses malformed records itself (naming the file); this keeps the run from ever sorting an int."""
    seen: set[str] = set()
    for inst in instances:
        if not isinstance(inst, Instance) or not isinstance(inst.id, str) or not isinstance(inst.category, str):
            return f"benchmark {benchmark_id} yields {inst!r:.80}, not an Instance with a string id and category"
        if inst.id in seen:
            return f"benchmark {benchmark_id} yields duplicate instance id {inst.id!r}"
        seen.add(inst.id)
        if not isinstance(inst.texts, (tuple, list)) or not all(isinstance(t, str) for t in inst.texts):
            return (
                f"benchmark {benchmark_id} instance {inst.id!r} has texts that are not all strings: {inst.texts!r:.80}"
            )
        if not isinstance(inst.images, (tuple, list)) or not all(
            isinstance(i, ImageSource) and isinstance(i.path, Path) for i in inst.images
        ):
            return f"benchmark {benchmark_id} instance {inst.id!r} has an image that is not an ImageSource with a path"
        n_images, n_texts, pairs = len(inst.images), len(inst.texts), inst.needed_pairs()
        if pairs is every_pair(n_images, n_texts):  # made in range (the default: no pairs given)
            continue
        if not all(_in_range(pair, n_images, n_texts) for pair in pairs):
            return f"benchmark {benchmark_id} instance {inst.id!r} needs a pair outside its images and texts"
    return None


def _in_range(pair: object, n_images: int, n_texts: int) -> bool:
    if not isinstance(pair, (tuple, list)) or len(pair) != 2 or not all(type(k) is int for k in pair):
        return False
    return 0 <= pair[0] < n_images and 0 <= pair[1] < n_texts
