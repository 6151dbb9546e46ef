"""The board bundle: everything ``render`` reads, as one versioned, schema-checked zip file.

Members (``K``: a cell's place in the document's ``cells``):

* ``bundle.json``: the document (``bundle.schema.json`` in this package; version :data:`VERSION`): what made
  it (harness version, commit, registry digest), the registry's ids, each benchmark's column (its card,
  metric declaration as data, the papers' rows, human values, drilldown), each model's row (name, kind,
  meta), every cell the board lists (values, status, reason, what keys it, the provenance the pages show),
  the runs, the instance browser's data (ids, categories, captions where their license allows, gold
  marks, roles, image names, links and thumbnails, questions, each model's verdict letters) and the
  thumbnails' names;
* ``replicates/K.f8``: cell K's bootstrap replicates, little-endian float64, one row per key the document
  lists;
* ``outcomes/K.jsonl``: published cell K's outcome records (:mod:`vlc_leaderboard.outcome_records`);
* ``thumbnails/NAME``: a thumbnail (PNG, at most 160 px a side, named by its sha256).

Bounded (:class:`Limits`): a bundle holds thumbnails, never an image file, and only of benchmarks that
declare ``images_redistributable``; every member and the whole are capped, and the writer refuses to
write what the reader would refuse to read. Reading checks every member against the document (nothing
missing, nothing else), the document against its schema, each record's shape and each thumbnail's digest,
and never writes a member's name to disk. Members are written in a fixed order with a fixed date, so the
same store and registry give the same bytes.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import tempfile
import zipfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from vlc_leaderboard.board_data import BoardData, BundleError, CellOutcomes, board_data
from vlc_leaderboard.bundle_codec import SCHEMA, VERSION, dump
from vlc_leaderboard.outcome_records import read_records, record_lines

if TYPE_CHECKING:
    from vlc_leaderboard.export import Export

DOCUMENT = "bundle.json"
SCHEMA_FILE = Path(__file__).with_name("bundle.schema.json")
THUMBNAIL = re.compile(r"[0-9a-f]{16}\.png")
PNG = b"\x89PNG\r\n\x1a\n"
EPOCH = (1980, 1, 1, 0, 0, 0)


@dataclass(frozen=True)
class Limits:
    """What a bundle may hold (read and written alike)."""

    file_bytes: int = 8 << 30
    """The zip file itself."""
    document_bytes: int = 512 << 20
    """``bundle.json``, uncompressed."""
    member_bytes: int = 2 << 30
    """Any other member, uncompressed."""
    total_bytes: int = 32 << 30
    """Every member together, uncompressed."""
    members: int = 1_000_000
    thumbnail_bytes: int = 256 << 10


LIMITS = Limits()


def schema() -> dict[str, Any]:
    """The document's JSON Schema, as shipped in this package."""
    loaded: dict[str, Any] = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    return loaded


def check_document(doc: Any) -> None:
    """Raise :class:`BundleError` unless ``doc`` is a version-:data:`VERSION` document its schema accepts."""
    from vlc_leaderboard.json_schema import SchemaError, check

    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA:
        raise BundleError(f"not a board bundle: {DOCUMENT} does not say schema {SCHEMA!r}")
    if doc.get("version") != VERSION:
        raise BundleError(f"a board bundle of version {doc.get('version')!r}; this harness reads version {VERSION}")
    try:
        check(doc, schema())
    except SchemaError as exc:
        raise BundleError(f"{DOCUMENT} does not follow its schema: {exc}") from None
    _consistent(doc)


def _consistent(doc: Mapping[str, Any]) -> None:
    """What the schema cannot say: lists that run in parallel have one length, names that point resolve."""
    rows = {r["id"] for r in doc["rows"]}
    thumbnails = set(doc["thumbnails"])
    for bench, data in doc["instances"].items():
        if data["missing"]:
            continue
        n = len(data["ids"])
        lists = [data["categories"], data["roles"], data["gold"], data["images"]] + (
            [data["captions"]] if data["captions"] is not None else []
        )
        if any(len(x) != n for x in lists) or (data["questions"] is not None and len(data["questions"]) != n):
            raise BundleError(f"instances of {bench}: its lists do not run in parallel over {n} instances")
        for model, verdicts in data["models"].items():
            if model not in rows or len(verdicts) != n:
                raise BundleError(f"instances of {bench}: model {model!r} is no row, or its verdicts are not {n}")
        named = {image[3] for row in data["images"] for image in row if image[3] is not None}
        if not named <= thumbnails:
            raise BundleError(f"instances of {bench}: a thumbnail it names is not in the bundle")


def members(doc: Mapping[str, Any]) -> set[str]:
    """Every member a bundle with this document holds, the document besides."""
    out = {f"thumbnails/{name}" for name in doc["thumbnails"]}
    for k, cell in enumerate(doc["cells"]):
        out |= {f"replicates/{k}.f8"} if cell["replicates"] is not None else set()
        out |= {f"outcomes/{k}.jsonl"} if cell["outcomes"] else set()
    return out


def write_bundle(export: Export, path: Path, limits: Limits = LIMITS) -> Path:
    """Write ``export`` as a bundle at ``path`` (atomically: a file beside it, renamed in)."""
    check_document(json.loads(dump(export.doc)))
    path = path.resolve()
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    os.close(fd)
    try:
        with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED, compresslevel=6) as zf:
            writer = _Writer(zf, limits)
            writer.add(DOCUMENT, dump(export.doc).encode("utf-8"), limits.document_bytes)
            for k, cell in enumerate(export.doc["cells"]):
                if cell["replicates"] is not None:
                    keys = [tuple(key) for key in cell["replicates"]["keys"]]
                    matrix = np.stack([export.replicates[k][key].ravel() for key in keys]).astype("<f8")
                    writer.add(f"replicates/{k}.f8", matrix.tobytes(), limits.member_bytes)
                if cell["outcomes"]:
                    lines = record_lines(list(export.records(k)))  # a cell's lines at once: one encoder call
                    writer.stream(f"outcomes/{k}.jsonl", (line + "\n" for line in lines))
            for name in export.doc["thumbnails"]:
                writer.add(f"thumbnails/{name}", export.thumbnails[name], limits.thumbnail_bytes, stored=True)
        if os.path.getsize(tmp) > limits.file_bytes:
            raise BundleError(f"the bundle would be {os.path.getsize(tmp)} bytes, over its {limits.file_bytes}")
        os.replace(tmp, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
    return path


class _Writer:
    """Adds members in order, with a fixed date, counting them against the limits."""

    def __init__(self, zf: zipfile.ZipFile, limits: Limits) -> None:
        self.zf, self.limits, self.total, self.count = zf, limits, 0, 0

    def _info(self, name: str, stored: bool = False) -> zipfile.ZipInfo:
        self.count += 1
        if self.count > self.limits.members:
            raise BundleError(f"the bundle would hold over {self.limits.members} members")
        info = zipfile.ZipInfo(name, EPOCH)
        info.compress_type = zipfile.ZIP_STORED if stored else zipfile.ZIP_DEFLATED
        return info

    def _count(self, name: str, added: int, size: int, cap: int) -> None:
        """Count ``added`` bytes of member ``name``, now ``size`` bytes long (at most ``cap``)."""
        self.total += added
        if size > cap or self.total > self.limits.total_bytes:
            raise BundleError(f"{name} would be over the bundle's limits ({size} bytes; {self.total} in all)")

    def add(self, name: str, data: bytes, cap: int, stored: bool = False) -> None:
        self._count(name, len(data), len(data), cap)
        self.zf.writestr(self._info(name, stored), data)

    def stream(self, name: str, lines: Iterator[str]) -> None:
        size = 0
        with self.zf.open(self._info(name), "w", force_zip64=True) as f:
            for line in lines:
                data = line.encode("utf-8")
                size += len(data)
                self._count(name, len(data), size, self.limits.member_bytes)
                f.write(data)


@contextlib.contextmanager
def open_bundle(path: Path, limits: Limits = LIMITS) -> Iterator[BoardData]:
    """The board data of the bundle at ``path``, read on demand while the context is open."""
    path = Path(path)
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise BundleError(f"cannot read the bundle {path}: {exc.strerror or exc}") from None
    if size > limits.file_bytes:
        raise BundleError(f"{path} is {size} bytes, over a bundle's {limits.file_bytes}")
    try:
        zf = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as exc:
        raise BundleError(f"{path} is not a board bundle (not a zip file: {exc})") from None
    with zf:
        reader = _Reader(zf, limits, path)
        doc = reader.document()
        thumbnails = _Thumbnails(reader, doc["thumbnails"])
        yield board_data(doc, reader.replicates(doc), reader.records, thumbnails, after_fork=reader.reopen)


class _Reader:
    """Reads a bundle's members within the limits (a member's declared size is checked, then its bytes counted)."""

    def __init__(self, zf: zipfile.ZipFile, limits: Limits, path: Path | None = None) -> None:
        self.zf, self.limits, self.path, self.identity = zf, limits, path, _identity(zf)
        infos = zf.infolist()
        names = [i.filename for i in infos]
        if len(names) > limits.members or len(set(names)) != len(names):
            raise BundleError("the bundle holds too many members, or one name twice")
        if sum(i.file_size for i in infos) > limits.total_bytes:
            raise BundleError(f"the bundle's members hold over {limits.total_bytes} bytes in all")
        self.infos = {i.filename: i for i in infos}

    def reopen(self) -> None:
        """In a process forked from the one that opened the bundle: open the same file again (a child shares its
        parent's offset, and the zip reader seeks before each read: two processes would read at each other's)."""
        try:
            zf = zipfile.ZipFile(self.path or "")
        except (zipfile.BadZipFile, OSError) as exc:
            raise BundleError(f"cannot reopen the bundle {self.path}: {exc}") from None
        if _identity(zf) != self.identity:
            zf.close()
            raise BundleError(f"the bundle {self.path} was replaced while it was rendered: render it again")
        self.zf = zf  # its members are those already checked: the same file

    def read(self, name: str, cap: int) -> bytes:
        info = self.infos.get(name)
        if info is None:
            raise BundleError(f"the bundle has no {name}")
        if info.file_size > cap:
            raise BundleError(f"{name} holds {info.file_size} bytes, over its {cap}")
        try:
            with self.zf.open(info) as f:
                data = f.read(info.file_size + 1)
        except (zipfile.BadZipFile, OSError, EOFError) as exc:
            raise BundleError(f"{name} cannot be read: {exc}") from None
        if len(data) != info.file_size:
            raise BundleError(f"{name} does not hold the {info.file_size} bytes it declares")
        return data

    def document(self) -> dict[str, Any]:
        try:
            doc = json.loads(self.read(DOCUMENT, self.limits.document_bytes).decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as exc:
            raise BundleError(f"{DOCUMENT} is not JSON: {exc}") from None
        check_document(doc)
        expected, present = members(doc), set(self.infos) - {DOCUMENT}
        if expected != present:
            odd = sorted(present - expected)[:3] + sorted(expected - present)[:3]
            raise BundleError(f"the bundle's members do not match its document (e.g. {', '.join(odd)})")
        return doc

    def replicates(self, doc: Mapping[str, Any]) -> Any:
        def read(k: int) -> dict[tuple[str, str], np.ndarray]:
            spec = doc["cells"][k]["replicates"]
            keys, samples = [(str(m), str(c)) for m, c in spec["keys"]], int(spec["samples"])
            data = self.read(f"replicates/{k}.f8", self.limits.member_bytes)
            if len(data) != 8 * len(keys) * samples:
                raise BundleError(f"replicates/{k}.f8 does not hold {len(keys)} x {samples} float64 values")
            matrix = np.frombuffer(data, dtype="<f8").reshape(len(keys), samples).astype(np.float64)
            return {key: matrix[i].copy() for i, key in enumerate(keys)}

        return read

    def records(self, k: int) -> CellOutcomes:
        """Cell ``k``'s outcome records and their lines, each line read once and checked (:func:`read_records`)."""
        name = f"outcomes/{k}.jsonl"
        try:
            text = self.read(name, self.limits.member_bytes).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise BundleError(f"{name} cannot be read: {exc}") from None
        return read_records(text, name)


def _identity(zf: zipfile.ZipFile) -> tuple[int, ...] | None:
    """What tells the zip's file from another: its device, inode, size and modification time."""
    found = os.fstat(zf.fp.fileno()) if zf.fp is not None and hasattr(zf.fp, "fileno") else None
    return None if found is None else (found.st_dev, found.st_ino, found.st_size, found.st_mtime_ns)


class _Thumbnails(Mapping[str, bytes]):
    """The bundle's thumbnails by name, each read on demand and checked: a PNG whose sha256 its name starts with."""

    def __init__(self, reader: _Reader, names: list[str]) -> None:
        self.reader, self.names = reader, list(names)

    def __getitem__(self, name: str) -> bytes:
        if name not in self.names or not THUMBNAIL.fullmatch(name):
            raise KeyError(name)
        data = self.reader.read(f"thumbnails/{name}", self.reader.limits.thumbnail_bytes)
        if not data.startswith(PNG) or hashlib.sha256(data).hexdigest()[:16] != name[:16]:
            raise BundleError(f"thumbnails/{name} is not the PNG its name says")
        return data

    def __iter__(self) -> Iterator[str]:
        return iter(self.names)

    def __len__(self) -> int:
        return len(self.names)
