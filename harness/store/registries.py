"""Which registry files filled the store.

Each run records the registry files it loaded, by absolute path and sha256, under the key
``registry`` of its provenance (the ``runs`` table; no schema change). The commands that read a
store (``show --format board``, ``list``, ``data``) default to the registry of the newest run
that still has cells in it, and say so when a store holds no cells of the registry given.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import Engine, select

from vlc_harness.store import schema

RECORD_KEY = "registry"
"""The run provenance key holding the registry files (a list of ``{"path", "sha256"}``)."""


@dataclass(frozen=True)
class RegistryFile:
    """One registry file as a run read it: its absolute path and the sha256 of its bytes."""

    path: str
    sha256: str


def registry_files(paths: Iterable[str | Path]) -> list[RegistryFile]:
    """The files ``paths`` (as given, relative to the working directory) by absolute path and content."""
    out = []
    for p in paths:
        path = Path(p).resolve()
        out.append(RegistryFile(str(path), hashlib.sha256(path.read_bytes()).hexdigest()))
    return out


def registry_record(paths: Iterable[str | Path]) -> list[dict[str, str]]:
    """What a run's provenance records under :data:`RECORD_KEY` for the registry files ``paths``."""
    return [{"path": f.path, "sha256": f.sha256} for f in registry_files(paths)]


@dataclass(frozen=True)
class RegistryUse:
    """The registry files one run recorded (``run_id``), in the order they were overlaid."""

    run_id: int
    files: tuple[RegistryFile, ...]

    def label(self) -> str:
        """The files as one line: ``a.yaml`` or ``a.yaml + overlay.yaml`` (paths relative to the
        working directory where they lie under it)."""
        return " + ".join(_shown(f.path) for f in self.files)

    def option(self) -> str:
        """The ``--registry`` options that name these files again."""
        return " ".join(f"--registry {_shown(f.path)}" for f in self.files)

    def present(self) -> bool:
        """Whether every file is still at its recorded path."""
        return all(Path(f.path).is_file() for f in self.files)

    def shares_a_file(self, files: Iterable[RegistryFile]) -> bool:
        """Whether any of ``files`` is one of this run's, by path or by content."""
        paths = {f.path for f in self.files}
        digests = {f.sha256 for f in self.files}
        return any(f.path in paths or f.sha256 in digests for f in files)


def _shown(path: str) -> str:
    try:
        return str(Path(path).relative_to(Path.cwd()))
    except ValueError:
        return path


class RegistryRows:
    """The store's record of the registries its cells came from (mixed into
    :class:`~vlc_harness.store.store.Store`)."""

    engine: Engine

    def registries_used(self) -> list[RegistryUse]:
        """Per run that recorded its registry files and still has cells in the store, those files,
        newest run first. Runs from inline specs, or from before runs recorded them, are left out."""
        runs, cells = schema.runs.c, schema.cells.c
        with_cells = select(cells.run_id).where(cells.run_id.is_not(None)).distinct()
        query = select(runs.id, runs.provenance).where(runs.id.in_(with_cells)).order_by(runs.id.desc())
        uses = []
        with self.engine.connect() as conn:
            for run_id, provenance in conn.execute(query):
                record = json.loads(provenance).get(RECORD_KEY) or []
                if record:
                    files = tuple(RegistryFile(str(f["path"]), str(f["sha256"])) for f in record)
                    uses.append(RegistryUse(int(run_id), files))
        return uses

    def unrecorded_cell_entries(self) -> set[tuple[str, str]]:
        """The (model id, benchmark id) pairs of the cells whose run recorded no registry files."""
        c = schema.cells.c
        recorded = {use.run_id for use in self.registries_used()}
        with self.engine.connect() as conn:
            rows = conn.execute(select(c.run_id, c.model_id, c.benchmark_id).distinct())
            return {(m, b) for run_id, m, b in rows if run_id not in recorded}
