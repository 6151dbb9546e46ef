"""A Hugging Face dataset split exported into an upstream layout: a rows file and the images beside it."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from vlc_harness.sources.hf import HfSplit, require_fields, save_stored_image, split_rows, write_atomically
from vlc_harness.sources.rowsfile import RowsFile


class HfExport(RowsFile):
    """A :class:`RowsFile` that ``data fetch`` exports from a Hugging Face split (``hf``), its image columns
    (``hf.images``) saved as stored under ``images``.

    The export writes each row's ``fields`` (every field with ``keep_all``), each image column replaced
    by how upstream names the file (``refer``), unless the rows and every image they name are there;
    nothing for version ``custom``. An image's file is ``stem(row, k)`` (``k``: the column's last
    character, ``image_1`` -> ``1``) plus ``suffix``, or ``.png``/``.jpg`` as its bytes say.
    """

    def __init__(
        self,
        root: Path,
        what: str,
        rows: str | Path,
        label: str,
        hf: HfSplit,
        stem: Callable[[dict[str, Any], str], str],
        *,
        keep_all: bool = False,
        **reading: Any,
    ) -> None:
        super().__init__(root, what, rows, label, image_columns=hf.images, **reading)
        self.hf, self.stem, self.keep_all = hf, stem, keep_all

    def fetch(self, progress: bool = True) -> list[str]:
        """Export the split unless it and its images are there (nothing for version ``custom``)."""
        if self.custom:
            return []
        rows = self.rows() if self.rows_path.is_file() else []
        files = self.image_files(rows)
        if rows and all(f.is_file() for f in files):
            return [f"present  {self.rows_path} and {len(files)} images"]
        snapshot = self.path("downloads") / self.hf.dataset.rsplit("/", 1)[-1]
        return self.export(self.hf.load(self.what, progress, snapshot), progress)

    def export(self, split: Any, progress: bool = True) -> list[str]:
        """Write the split's rows and images (bytes as stored)."""
        self.images.mkdir(parents=True, exist_ok=True)
        out = []
        for k, row in split_rows(split, self.hf.dataset, progress):
            require_fields(self.hf.dataset, row, k, self.fields)
            kept = dict(row) if self.keep_all else {f: row[f] for f in self.fields}
            for column in self.hf.images:
                stem = self.stem(row, column[-1])
                where = f"{self.hf.dataset} row {k} {column}"
                name = save_stored_image(row[column], self.images, stem, where, self.suffix)
                kept[column] = {"name": name, "stem": stem, "path": f"{self.images.name}/{name}"}[self.refer]
            out.append(kept)
        if self.layout == "json":
            text = json.dumps(out, indent=1, ensure_ascii=False)
        else:
            text = "\n".join(json.dumps(row, ensure_ascii=False) for row in out) + "\n"
        self.rows_path.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(self.rows_path, text.encode("utf-8"))
        n_images = len(out) * len(self.hf.images)
        return [
            f"fetched  {self.rows_path} ({len(out)} {self.noun}) and {n_images} images into {self.images} "
            f"from {self.hf.name}"
        ]
