"""A benchmark made ready for a run: data checked, instances loaded and limited, images hashed.

Loading happens once per run and serves every model. Images are hashed only when some model
needs them (image-blind models run with no image files present).
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from vlc_harness.benchmarks import Benchmark
from vlc_harness.catalog import Registrar
from vlc_harness.errors import Unavailable
from vlc_harness.hashing import sha256_files
from vlc_harness.instance_manifest import limit_per_category, manifest_hash
from vlc_harness.reasons import Reason
from vlc_harness.registry import BenchmarkEntry
from vlc_harness.types import BLIND_IMAGE_KEY, Instance


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
    manifest_hash: str = ""
    _hashes: dict[Path, str] | None = None
    _missing: dict[Path, str] = field(default_factory=dict)
    _images_unavailable: str | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)
    hash_seconds: float = 0.0
    """Wall time spent hashing (or finding in the hash cache) this benchmark's images."""

    @property
    def data_version(self) -> str:
        """The data version of the loaded benchmark ('' when it could not be loaded)."""
        return self.benchmark.data_version if self.benchmark else ""

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
            if p.is_file():
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
    with the install line (reason code ``package_missing``): there is no class to instantiate.
    """
    prepared = PreparedBenchmark(entry=entry, limit=limit)
    if entry.unavailable:
        prepared.unavailable, prepared.unavailable_code = entry.unavailable, Reason.PACKAGE_MISSING
        return prepared
    cls = registrar.get(entry.type).cls
    benchmark = cls(entry.params, data_root)
    prepared.benchmark = benchmark
    try:
        benchmark.check_data()
        instances = benchmark.load_instances()
    except Unavailable as exc:
        prepared.unavailable, prepared.unavailable_code = str(exc), exc.code
        return prepared
    except Exception as exc:
        prepared.load_error = f"loading {entry.id} failed: {type(exc).__name__}: {exc}"
        return prepared
    ids = [i.id for i in instances]
    if len(set(ids)) != len(ids):
        dup = next(i for i, c in Counter(ids).items() if c > 1)
        prepared.load_error = f"benchmark {entry.id} yields duplicate instance id {dup!r}"
        return prepared
    prepared.n_total = len(instances)
    prepared.instances = limit_per_category(instances, limit)
    prepared.manifest_hash = manifest_hash(benchmark.data_version, prepared.instances)
    return prepared
